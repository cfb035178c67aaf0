"""AnthropicProvider's server-side context management through the real SDK against the wire-level fake server."""

from __future__ import annotations

from dataclasses import replace

from pseudoclaude.llm import Completed, Message, Request, ServerContext, ToolCall, ToolSpec, Usage, model_info
from pseudoclaude.llm.anthropic import AnthropicProvider
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.collect import collect_stream
from tests.fakes.script import Reply, approx_tokens

MODEL = "claude-sonnet-4-6"
GREP = ToolSpec("grep", "Search", {"type": "object", "properties": {"pattern": {"type": "string"}}})
ASKED = ServerContext(
    compact_trigger=60_000, compact_instructions="nine sections", clear_trigger=30_000, clear_at_least=5_000, clear_exclude=("grep",), clear_thinking=True
)


def request(messages: tuple[Message, ...] = (Message.user("hello"),), **kwargs: object) -> Request:
    return Request(model=MODEL, system="You are a coding agent.", messages=messages, tools=(GREP,), server_context=ASKED, **kwargs)  # type: ignore[arg-type]


def completed(server: FakeAnthropicServer, asked: Request) -> Completed:
    events, error = collect_stream(AnthropicProvider(model=MODEL, api_key="sk-ant-test", base_url=server.url), asked)
    assert error is None, error
    return next(e for e in events if isinstance(e, Completed))


def test_a_thinking_request_clears_thinking_first_and_keeps_it_all() -> None:
    with FakeAnthropicServer([Reply(text="hi")]) as server:
        completed(server, request(effort="high"))
    edits = server.requests[0]["context_management"]["edits"]
    supported = model_info(MODEL)
    assert supported is not None and [e["type"] for e in edits] == [
        s for s in ("clear_thinking_20251015", "clear_tool_uses_20250919", "compact_20260112") if s in supported.context_management
    ]
    assert edits[0]["keep"] == "all" and edits[1]["exclude_tools"] == ["grep"] and edits[1]["clear_at_least"] == {"type": "input_tokens", "value": 5_000}


def test_the_compaction_comes_back_as_a_part_and_its_cost_is_counted() -> None:
    with FakeAnthropicServer([Reply(text="carrying on", input_tokens=70_000), Reply(text="next")]) as server:
        done = completed(server, request())
        compaction = done.message.compaction
        assert compaction is not None and compaction.text and done.server is not None
        iterations = server.applied[0]
        assert done.server.usage.prompt_tokens == iterations.full_tokens and done.server.usage.output_tokens == approx_tokens(compaction.text)
        reply_only = done.usage.input_tokens - done.server.usage.input_tokens
        assert reply_only == approx_tokens(server.applied[0].body), "the reply's own input is the compacted prompt"
        follow = (replace(done.message, tool_calls=()), Message.user("go on"))
        completed(server, request(follow))
        sent = server.requests[1]["messages"][0]["content"][0]
    assert server.rejections == [] and sent["content"] == compaction.text and sent["type"] == "compaction"


def test_a_model_that_takes_none_of_it_gets_none_of_it() -> None:
    plain = "claude-3-5-sonnet-latest"
    info = model_info(plain)
    assert info is not None and not info.context_management
    with FakeAnthropicServer([Reply(text="hi")]) as server:
        completed(server, replace(request(), model=plain))
    assert "context_management" not in server.requests[0] and "anthropic-beta" not in server.headers[0]


def test_usage_without_server_work_is_unchanged() -> None:
    with FakeAnthropicServer([Reply(text="hi", input_tokens=100, output_tokens=7)]) as server:
        done = completed(
            server,
            replace(
                request(),
                server_context=None,
                messages=(Message.user("a"), Message.assistant("b", (ToolCall("t1", "grep"),)), Message.tool("t1", "r"), Message.user("c")),
            ),
        )
    assert done.server is None and done.usage == Usage(input_tokens=100, output_tokens=7)


def test_the_edits_the_server_applied_come_back_as_server_work() -> None:
    history = [Message.user("start")]
    for n in range(5):
        history += [Message.assistant("", (ToolCall(f"toolu_{n}", "read_file", "{}"),)), Message.tool(f"toolu_{n}", "x" * 4000)]
    asked = ServerContext(clear_trigger=1_000, clear_at_least=1_000)
    with FakeAnthropicServer([Reply(text="hi")]) as server:
        done = completed(server, replace(request(tuple(history)), server_context=asked, tools=(GREP, ToolSpec("read_file", "Read", {"type": "object"}))))
    applied = server.applied[0].edits
    assert done.server is not None and done.server.edits == tuple((e["type"], e["cleared_input_tokens"]) for e in applied) and applied


def test_a_failed_compaction_is_a_no_op_and_is_not_kept() -> None:
    with FakeAnthropicServer([Reply(text="carrying on", input_tokens=70_000)], summarize=lambda body: "") as server:
        done = completed(server, request())
    assert server.applied[0].compaction is not None and server.applied[0].compaction["content"] is None
    assert done.message.compaction is None and done.message.text == "carrying on"
