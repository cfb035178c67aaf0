"""AnthropicProvider through the real SDK against the wire-level fake server."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from typing import Any, Sequence

import pytest

from pseudoclaude.llm.anthropic import AnthropicProvider
from pseudoclaude.llm.errors import (
    AuthError,
    BadRequest,
    ConnectionFailed,
    Overloaded,
    PromptTooLong,
    ProviderError,
    RateLimited,
    ServerError,
    StreamCut,
)
from pseudoclaude.llm.messages import Message, ToolCall, ToolSpec, Usage
from pseudoclaude.llm.provider import (
    Completed,
    Request,
    StreamEvent,
    UsageSoFar,
    TextChunk,
    ToolCallStart,
)
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.collect import collect_stream
from tests.fakes.http import Exchange, FakeHTTPServer
from tests.fakes.script import Call, CutStream, HttpError, Reply, Step, StreamError
from tests.fakes.ports import refusing_port

API_KEY = "sk-ant-test-secret-0123456789"
MODEL = "claude-fake-1"
READ = ToolSpec("read_file", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}})
GREP = ToolSpec("grep", "Search", {"type": "object", "properties": {"pattern": {"type": "string"}}})


def make_request(messages: Sequence[Message] = (Message.user("hello"),), **kwargs: Any) -> Request:
    defaults: dict[str, Any] = {"system": "You are a coding agent.", "tools": (READ, GREP)}
    defaults.update(kwargs)
    return Request(model=MODEL, messages=list(messages), **defaults)


def run(base_url: str, request: Request, api_key: str = API_KEY, timeout: float = 10.0) -> tuple[list[StreamEvent], ProviderError | None]:
    """Everything the provider yielded but the early usage report, and the error it raised (if any)."""
    events, error = collect_stream(AnthropicProvider(model=MODEL, api_key=api_key, base_url=base_url, timeout=timeout), request)
    return [e for e in events if not isinstance(e, UsageSoFar)], error


def test_the_input_usage_is_reported_as_soon_as_the_message_starts() -> None:
    with FakeAnthropicServer([Reply(text="hello there", text_chunks=2)]) as server:
        events, error = collect_stream(AnthropicProvider(model=MODEL, api_key=API_KEY, base_url=server.url), make_request())
    assert error is None and isinstance(events[0], UsageSoFar) and events[0].usage.input_tokens > 0
    assert isinstance(events[1], TextChunk)


def serve(steps: Sequence[Step], request: Request | None = None, **kwargs: Any) -> tuple[FakeAnthropicServer, list[StreamEvent], ProviderError | None]:
    with FakeAnthropicServer(list(steps), **kwargs) as server:
        events, error = run(server.url, request or make_request())
    return server, events, error


def completed(events: list[StreamEvent]) -> Completed:
    done = [e for e in events if isinstance(e, Completed)]
    assert len(done) == 1 and events[-1] is done[0]
    return done[0]


def tool_history() -> list[Message]:
    return [
        Message.user("look at two files"),
        Message.assistant(
            "Reading both.",
            [
                ToolCall("toolu_a", "read_file", '{"path": "a.py"}'),
                ToolCall("toolu_b", "read_file", '{"path": "b.py"}'),
            ],
        ),
        Message.tool("toolu_a", "print('a')"),
        Message.tool("toolu_b", "no such file", is_error=True),
        Message.user("and now?"),
    ]


# --- streaming ---------------------------------------------------------------


def test_text_streams_as_deltas_then_one_completed_message() -> None:
    _, events, error = serve([Reply(text="Hello from the fake model", text_chunks=4)])
    assert error is None
    deltas = [e.text for e in events if isinstance(e, TextChunk)]
    assert len(deltas) == 4 and "".join(deltas) == "Hello from the fake model"
    done = completed(events)
    assert done.message == Message.assistant("Hello from the fake model")
    assert done.stop_reason == "end_turn"


def test_tool_call_arguments_arrive_in_several_deltas_and_assemble_raw() -> None:
    arguments = '{"path": "src/pseudoclaude/llm/anthropic.py", "limit": 200}'
    _, events, error = serve([Reply(calls=(Call("read_file", arguments, id="toolu_x1", chunks=5),))])
    assert error is None
    assert events[0] == ToolCallStart(index=0, id="toolu_x1", name="read_file")
    done = completed(events)
    assert done.message.tool_calls == (ToolCall("toolu_x1", "read_file", arguments),)
    assert done.stop_reason == "tool_use"


def test_parallel_tool_calls_come_back_in_order() -> None:
    calls = (Call("read_file", '{"path": "a"}'), Call("grep", '{"pattern": "x"}'), Call("read_file", '{"path": "b"}'))
    _, events, _ = serve([Reply(text="Three at once.", calls=calls)])
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    assert [(s.index, s.name) for s in starts] == [(0, "read_file"), (1, "grep"), (2, "read_file")]
    tool_calls = completed(events).message.tool_calls
    assert [c.arguments for c in tool_calls] == ['{"path": "a"}', '{"pattern": "x"}', '{"path": "b"}']
    assert [c.id for c in tool_calls] == [s.id for s in starts] and len({c.id for c in tool_calls}) == 3


def test_tool_call_without_argument_deltas_completes_as_empty_object() -> None:
    _, events, _ = serve([Reply(calls=(Call("grep", "", id="toolu_e"),))])
    assert completed(events).message.tool_calls == (ToolCall("toolu_e", "grep", "{}"),)


def test_usage_carries_cache_read_and_write_tokens() -> None:
    reply = Reply(text="ok", input_tokens=120, output_tokens=33, cache_read_tokens=4000, cache_write_tokens=250)
    request = make_request(system="You are a coding agent. " * 1000)  # over the cache minimum, so a repeat reads it back
    with FakeAnthropicServer([reply, reply]) as server:
        run(server.url, request)
        events, _ = run(server.url, request)
    expected = Usage(input_tokens=120, output_tokens=33, cache_read_tokens=4000, cache_write_tokens=250)
    assert completed(events).usage == expected


# --- the request body -----------------------------------------------------------


def test_request_marks_last_tool_stable_system_and_last_block_for_caching() -> None:
    server, _, _ = serve([Reply(text="ok")], make_request(tool_history(), system_suffix="Today is Monday."))
    body = server.requests[0]
    ephemeral = {"type": "ephemeral"}
    assert body["system"] == [
        {"type": "text", "text": "You are a coding agent.", "cache_control": ephemeral},
        {"type": "text", "text": "Today is Monday."},
    ]
    assert [t.get("cache_control") for t in body["tools"]] == [None, ephemeral]
    assert body["messages"][-1]["content"][-1]["cache_control"] == ephemeral
    assert json.dumps(body).count('"cache_control"') == 3


def test_identical_input_produces_byte_identical_bodies() -> None:
    request = make_request(tool_history(), system_suffix="Today is Monday.")
    with FakeAnthropicServer([Reply(text="one"), Reply(text="two")]) as server:
        run(server.url, request)
        run(server.url, make_request(tool_history(), system_suffix="Today is Monday."))
    assert len(server.raw_bodies) == 2
    assert server.raw_bodies[0] == server.raw_bodies[1]


def test_empty_system_suffix_sends_only_the_stable_block() -> None:
    server, _, _ = serve([Reply(text="ok")])
    assert [b["text"] for b in server.requests[0]["system"]] == ["You are a coding agent."]


def test_consecutive_tool_results_and_following_text_form_one_user_turn() -> None:
    server, _, error = serve([Reply(text="ok")], make_request(tool_history()))
    assert error is None and server.rejections == []
    messages = server.requests[0]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    last = messages[2]["content"]
    assert [b["type"] for b in last] == ["tool_result", "tool_result", "text"]
    assert last[0] == {"type": "tool_result", "tool_use_id": "toolu_a", "content": "print('a')"}
    assert last[1] == {"type": "tool_result", "tool_use_id": "toolu_b", "content": "no such file", "is_error": True}
    assert last[2]["text"] == "and now?"


def test_assistant_tool_use_carries_parsed_input() -> None:
    server, _, _ = serve([Reply(text="ok")], make_request(tool_history()))
    assistant = server.requests[0]["messages"][1]["content"]
    assert assistant[0] == {"type": "text", "text": "Reading both."}
    assert assistant[1] == {"type": "tool_use", "id": "toolu_a", "name": "read_file", "input": {"path": "a.py"}}


def test_malformed_stored_arguments_are_sent_as_empty_object() -> None:
    history = [
        Message.user("go"),
        Message.assistant("", [ToolCall("toolu_m", "grep", '{"pattern": "unterminated')]),
        Message.tool("toolu_m", "invalid JSON arguments", is_error=True),
    ]
    server, _, error = serve([Reply(text="ok")], make_request(history))
    assert error is None
    assert server.requests[0]["messages"][1]["content"] == [{"type": "tool_use", "id": "toolu_m", "name": "grep", "input": {}}]


def test_empty_assistant_text_is_not_sent_as_a_block() -> None:
    history = [
        Message.user("go"),
        Message.assistant("", [ToolCall("toolu_q", "grep", "{}")]),
        Message.tool("toolu_q", "x"),
    ]
    server, _, error = serve([Reply(text="ok")], make_request(history))
    assert error is None
    assert [b["type"] for b in server.requests[0]["messages"][1]["content"]] == ["tool_use"]


def test_consecutive_user_messages_are_merged_into_one_turn() -> None:
    history = [Message.user("first"), Message.user("second")]
    server, _, error = serve([Reply(text="ok")], make_request(history))
    assert error is None
    assert [[b["text"] for b in m["content"]] for m in server.requests[0]["messages"]] == [["first", "second"]]


# --- faults -------------------------------------------------------------------------


def test_429_becomes_rate_limited_with_retry_after() -> None:
    _, events, error = serve([HttpError(429, "rate_limit", retry_after=7)])
    assert isinstance(error, RateLimited) and error.retry_after == 7.0 and error.status == 429
    assert events == []


def test_529_becomes_overloaded() -> None:
    _, _, error = serve([HttpError(529, "overloaded")])
    assert isinstance(error, Overloaded) and error.retryable


def test_500_becomes_server_error() -> None:
    _, _, error = serve([HttpError(500, "server")])
    assert type(error) is ServerError and error.status == 500


def test_error_event_mid_stream_raises_after_the_deltas_already_yielded() -> None:
    _, events, error = serve([StreamError(Reply(text="partial answer here", text_chunks=4), after_deltas=2)])
    assert isinstance(error, Overloaded)
    assert [type(e) for e in events] == [TextChunk, TextChunk]


def test_api_error_event_mid_stream_becomes_server_error() -> None:
    _, _, error = serve([StreamError(Reply(text="partial answer"), after_deltas=1, error_type="api_error")])
    assert type(error) is ServerError


def test_cut_inside_tool_json_raises_stream_cut_without_completed() -> None:
    reply = Reply(text="Let me look.", calls=(Call("read_file", '{"path": "a/very/long/path.py"}', chunks=4),))
    _, events, error = serve([CutStream(reply)])
    assert isinstance(error, StreamCut)
    assert not any(isinstance(e, Completed) for e in events)
    assert ToolCallStart(index=0, id="toolu_1", name="read_file") in events


def test_cut_right_after_tool_name_raises_stream_cut() -> None:
    reply = Reply(calls=(Call("grep", '{"pattern": "x"}'), Call("read_file", '{"path": "b"}')))
    _, events, error = serve([CutStream(reply, call_index=1, name_only=True)])
    assert isinstance(error, StreamCut)
    assert [e.name for e in events if isinstance(e, ToolCallStart)] == ["grep", "read_file"]
    assert not any(isinstance(e, Completed) for e in events)


def test_stream_that_ends_before_message_stop_is_a_stream_cut() -> None:
    def handler(ex: Exchange) -> None:
        ex.start_stream()
        start = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": MODEL,
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 1},
        }
        ex.send_event("message_start", {"type": "message_start", "message": start})
        block = {"type": "text", "text": ""}
        ex.send_event("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block})
        delta = {"type": "text_delta", "text": "Hi"}
        ex.send_event("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta})
        ex.end_stream()

    with FakeHTTPServer(handler) as server:
        events, error = run(server.url, make_request())
    assert isinstance(error, StreamCut)
    assert events == [TextChunk("Hi")]


def stalling_server(release: threading.Event, *, after_start: bool) -> FakeHTTPServer:
    def handler(ex: Exchange) -> None:
        if after_start:
            ex.start_stream()
            ex.send_event(
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": "msg_1",
                        "type": "message",
                        "role": "assistant",
                        "content": [],
                        "model": MODEL,
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": {"input_tokens": 3, "output_tokens": 1},
                    },
                },
            )
        release.wait(5)

    return FakeHTTPServer(handler)


def test_server_that_never_answers_times_out_as_connection_failed() -> None:
    release = threading.Event()
    with stalling_server(release, after_start=False) as server:
        _, error = run(server.url, make_request(), timeout=0.3)
        release.set()
    assert isinstance(error, ConnectionFailed)


def test_stream_that_stalls_after_starting_is_a_stream_cut() -> None:
    release = threading.Event()
    with stalling_server(release, after_start=True) as server:
        events, error = run(server.url, make_request(), timeout=0.3)
        release.set()
    assert isinstance(error, StreamCut) and events == []


def test_consumer_may_stop_early_and_reuse_the_provider() -> None:
    async def go(url: str) -> list[StreamEvent]:
        provider = AnthropicProvider(model=MODEL, api_key=API_KEY, base_url=url)
        try:
            stream = provider.stream(make_request())
            first = await stream.__anext__()
            while isinstance(first, UsageSoFar):
                first = await stream.__anext__()
            await stream.aclose()  # type: ignore[attr-defined]
            rest = [e async for e in provider.stream(make_request()) if not isinstance(e, UsageSoFar)]
        finally:
            await provider.aclose()
        return [first, *rest]

    with FakeAnthropicServer([Reply(text="abandoned answer"), Reply(text="second")]) as server:
        events = asyncio.run(go(server.url))
    assert events[0] == TextChunk("abando") and completed(events[1:]).message.text == "second"


def test_401_becomes_auth_error_naming_the_variable_not_the_key() -> None:
    _, _, error = serve([HttpError(401, "auth")])
    assert isinstance(error, AuthError) and not error.retryable
    assert "ANTHROPIC_API_KEY" in error.message and API_KEY not in error.message


def test_missing_key_is_an_auth_error_before_any_request() -> None:
    with FakeAnthropicServer([Reply(text="never")]) as server:
        _, error = run(server.url, make_request(), api_key="")
    assert isinstance(error, AuthError) and "ANTHROPIC_API_KEY" in error.message
    assert server.requests == []


TOKEN = "gw-token-0123456789"


def gateway_run(server: FakeAnthropicServer, **options: Any) -> tuple[list[StreamEvent], ProviderError | None]:
    provider = AnthropicProvider(model=MODEL, base_url=server.url, timeout=10, **{"api_key": None, **options})
    return collect_stream(provider, make_request())


def test_an_auth_token_is_the_only_credential_sent_with_the_custom_headers() -> None:
    headers = (("X-Team", "core"), ("anthropic-beta", "gateway-1"))
    with FakeAnthropicServer([Reply(text="via the gateway")], credentials=frozenset({TOKEN}), required_headers={"X-Team": "core"}) as server:
        events, error = gateway_run(server, api_key=API_KEY, auth_token=TOKEN, headers=headers)
    assert error is None and completed(events).message.text == "via the gateway"
    sent = server.headers[0]
    assert sent["authorization"] == f"Bearer {TOKEN}" and "x-api-key" not in sent
    assert API_KEY not in json.dumps(sent)
    assert (sent["x-team"], sent["anthropic-beta"]) == ("core", "gateway-1") and sent["anthropic-version"]


def test_a_token_alone_needs_no_api_key() -> None:
    with FakeAnthropicServer([Reply(text="ok")], credentials=frozenset({TOKEN})) as server:
        events, error = gateway_run(server, auth_token=TOKEN)
    assert error is None and server.rejections == []


def test_a_refused_token_is_an_auth_error_naming_its_variable_and_not_the_token() -> None:
    with FakeAnthropicServer([Reply(text="never")], credentials=frozenset({"another"})) as server:
        _, error = gateway_run(server, auth_token=TOKEN)
    assert isinstance(error, AuthError) and "ANTHROPIC_AUTH_TOKEN" in error.message and "token" in error.message
    assert TOKEN not in error.message


def test_a_missing_required_header_is_an_auth_error() -> None:
    with FakeAnthropicServer([Reply(text="never")], required_headers={"X-Team": "core"}) as server:
        _, error = gateway_run(server, auth_token=TOKEN, headers=(("X-Team", "other"),))
    assert isinstance(error, AuthError) and error.status == 403


def test_api_key_echoed_by_a_server_never_reaches_the_error_message() -> None:
    def handler(ex: Exchange) -> None:
        echoed = f"bad request from {ex.headers.get('authorization')}"
        ex.send_json(400, {"type": "error", "error": {"type": "invalid_request_error", "message": echoed}})

    with FakeHTTPServer(handler) as server:
        _, error = run(server.url, make_request())
    assert isinstance(error, BadRequest) and API_KEY not in str(error) and "***" in error.message


def test_request_over_the_context_window_becomes_prompt_too_long() -> None:
    server, _, error = serve([Reply(text="never")], context_window=50)
    assert isinstance(error, PromptTooLong) and error.status == 400
    assert "prompt is too long" in error.message and "> 50 maximum" in error.message
    assert server.rejections and server.rejections[0][0] == 400


def test_scripted_context_length_error_becomes_prompt_too_long() -> None:
    _, _, error = serve([HttpError(400, "context_length")])
    assert isinstance(error, PromptTooLong)


def test_413_becomes_prompt_too_long() -> None:
    _, _, error = serve([HttpError(413, "invalid_request", message="Request exceeds the maximum allowed size")])
    assert isinstance(error, PromptTooLong) and error.status == 413


def test_unreachable_server_becomes_connection_failed() -> None:
    with refusing_port() as port:
        _, error = run(f"http://127.0.0.1:{port}", make_request())
    assert isinstance(error, ConnectionFailed) and error.retryable


@pytest.mark.parametrize(
    "history, fragment",
    [
        (
            [Message.user("go"), Message.assistant("", [ToolCall("toolu_o", "grep", "{}")]), Message.user("next")],
            "tool_use ids were found without tool_result blocks immediately after: toolu_o",
        ),
        ([Message.user("go"), Message.assistant("hi"), Message.tool("toolu_ghost", "x")], "unexpected tool_use_id found in tool_result blocks: toolu_ghost"),
        ([Message.assistant("I speak first"), Message.user("go")], 'first message must use the "user" role'),
    ],
    ids=["orphan-tool-use", "orphan-tool-result", "assistant-first"],
)
def test_invalid_history_is_rejected_as_bad_request(history: list[Message], fragment: str) -> None:
    server, events, error = serve([Reply(text="never")], make_request(history))
    assert type(error) is BadRequest and error.status == 400
    assert fragment in error.message
    assert events == [] and len(server.rejections) == 1


def test_importing_the_adapter_does_not_import_the_sdk() -> None:
    code = "import sys, pseudoclaude.llm.anthropic; print('anthropic' in sys.modules, 'httpx2' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "False"]


def test_tool_choice_none_is_sent_with_the_tools_and_the_fake_accepts_it() -> None:
    server, events, error = serve([Reply(text="a summary")], make_request(tool_choice="none"))
    assert error is None and completed(events).message.text == "a summary"
    (body,) = server.requests
    assert body["tool_choice"] == {"type": "none"} and [t["name"] for t in body["tools"]] == ["read_file", "grep"]


def test_tool_choice_auto_is_the_default_and_not_sent() -> None:
    server, _, _ = serve([Reply(text="a")], make_request())
    assert "tool_choice" not in server.requests[0]
    server, _, error = serve([Reply(text="a")], make_request(tools=(), tool_choice="none"))
    assert error is None and "tool_choice" not in server.requests[0] and "tools" not in server.requests[0]
