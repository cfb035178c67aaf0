"""Anthropic extended thinking through the real SDK against the wire-level fake server.

The fake signs every thinking block it sends and rejects one that comes back
changed, out of place or missing where the real API requires it.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

import pytest

from pseudoclaude.llm.anthropic import AnthropicProvider
from pseudoclaude.llm.anthropic_wire import to_wire_request
from pseudoclaude.llm.errors import BadRequest, ProviderError
from pseudoclaude.llm.messages import Message, Thinking, ToolCall, ToolSpec
from pseudoclaude.llm.provider import Completed, Request, StreamEvent, TextChunk, ThinkingChunk
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.anthropic_validation import first_problem
from tests.fakes.collect import collect_stream
from tests.fakes.script import Call, Reply, Step

API_KEY = "sk-ant-test-0123456789"
BUDGET_MODEL = "claude-sonnet-4-5-test"
ADAPTIVE_MODEL = "claude-opus-4-7"
READ = ToolSpec("read_file", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}})


def request(messages: Sequence[Message], **kwargs: Any) -> Request:
    fields: dict[str, Any] = {"model": BUDGET_MODEL, "system": "You are a coding agent.", "tools": (READ,), "effort": "medium"}
    fields.update(kwargs)
    return Request(messages=list(messages), **fields)


def serve(steps: Sequence[Step], *requests: Request) -> tuple[FakeAnthropicServer, list[tuple[list[StreamEvent], ProviderError | None]]]:
    with FakeAnthropicServer(list(steps)) as server:
        results = [collect_stream(AnthropicProvider(model=r.model, api_key=API_KEY, base_url=server.url), r) for r in requests]
    return server, results


def completed(events: list[StreamEvent]) -> Completed:
    done = [e for e in events if isinstance(e, Completed)]
    assert len(done) == 1
    return done[0]


def body(req: Request) -> dict[str, Any]:
    return {**to_wire_request(req), "stream": True}


def test_thinking_streams_as_thinking_chunks_and_lands_on_the_message_with_its_signature() -> None:
    server, [(events, error)] = serve([Reply(text="Done.", thinking="Let me weigh the options carefully.")], request([Message.user("hi")]))
    assert error is None
    thought = "".join(e.text for e in events if isinstance(e, ThinkingChunk))
    assert thought == "Let me weigh the options carefully."
    assert "".join(e.text for e in events if isinstance(e, TextChunk)) == "Done."
    [part] = completed(events).message.thinking
    assert part.provider == "anthropic" and part.kind == "thinking" and part.text == thought and part.opaque
    assert server.requests[0]["thinking"] == {"type": "enabled", "budget_tokens": 10_000}
    assert server.requests[0]["max_tokens"] > 10_000


def test_a_two_round_tool_turn_sends_the_first_rounds_thinking_back_unchanged_and_first() -> None:
    first = request([Message.user("read a.py")])
    server, [(events, error)] = serve([Reply(thinking="I should read a.py first.", calls=(Call("read_file", '{"path": "a.py"}', id="toolu_1"),))], first)
    assert error is None
    assistant = completed(events).message
    second = request([Message.user("read a.py"), assistant, Message.tool("toolu_1", "print('a')")])
    server, [(events, error)] = serve([Reply(text="It prints a.", thinking="Now answer.")], second)
    assert error is None and server.rejections == []
    sent = server.requests[0]["messages"][1]["content"]
    assert [b["type"] for b in sent] == ["thinking", "tool_use"]
    assert sent[0]["thinking"] == "I should read a.py first." and sent[0]["signature"] == assistant.thinking[0].opaque


def test_an_edited_thinking_block_is_rejected_as_the_real_api_does() -> None:
    tampered = Thinking("anthropic", "thinking", "I changed my mind.", "bm90IGEgc2lnbmF0dXJl")
    history = [
        Message.user("read a.py"),
        Message.assistant("", [ToolCall("toolu_1", "read_file", '{"path": "a.py"}')], [tampered]),
        Message.tool("toolu_1", "x"),
    ]
    _, [(events, error)] = serve([Reply(text="ok")], request(history))
    assert isinstance(error, BadRequest) and "signature" in error.message


def test_redacted_thinking_round_trips_byte_for_byte() -> None:
    first = request([Message.user("go")])
    _, [(events, _)] = serve([Reply(redacted_thinking="secret plan", thinking="visible plan", calls=(Call("read_file", "{}", id="toolu_9"),))], first)
    assistant = completed(events).message
    assert [p.kind for p in assistant.thinking] == ["thinking", "redacted_thinking"]
    assert assistant.thinking[1].text == "" and assistant.thinking[1].opaque
    restored = Message.from_dict(json.loads(json.dumps(assistant.to_dict())))
    second = request([Message.user("go"), restored, Message.tool("toolu_9", "data")])
    server, [(_, error)] = serve([Reply(text="done")], second)
    assert error is None
    blocks = server.requests[0]["messages"][1]["content"]
    assert blocks[1] == {"type": "redacted_thinking", "data": assistant.thinking[1].opaque}


def test_budget_never_reaches_max_tokens_and_never_goes_below_the_minimum() -> None:
    for effort in ("low", "medium", "high", "max"):
        for model in ("claude-opus-4-1", "claude-sonnet-4-5", "claude-3-7-sonnet-latest"):
            sent = body(request([Message.user("x")], model=model, effort=effort, max_tokens=8192))
            budget = sent["thinking"]["budget_tokens"]
            assert 1024 <= budget < sent["max_tokens"], (model, effort, sent["max_tokens"], budget)
            assert first_problem(sent) is None
    tiny = body(request([Message.user("x")], max_thinking_tokens=10, max_tokens=100))
    assert tiny["thinking"]["budget_tokens"] >= 1024 and tiny["max_tokens"] > tiny["thinking"]["budget_tokens"]


def test_a_too_small_budget_is_never_sent_the_fake_would_refuse_it() -> None:
    bad = body(request([Message.user("x")]))
    bad["thinking"]["budget_tokens"] = bad["max_tokens"]
    assert "max_tokens" in (first_problem(bad) or "")
    bad["thinking"]["budget_tokens"] = 512
    assert "1024" in (first_problem(bad) or "")


def test_adaptive_models_get_adaptive_thinking_with_the_effort() -> None:
    server, [(events, error)] = serve([Reply(text="ok", thinking="hmm")], request([Message.user("x")], model=ADAPTIVE_MODEL, effort="max"))
    assert error is None
    sent = server.requests[0]
    assert sent["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert sent["output_config"] == {"effort": "max"}
    assert completed(events).message.thinking[0].text == "hmm"


def test_every_adaptive_only_row_gets_adaptive_thinking_the_fake_accepts_and_never_a_budget() -> None:
    from pseudoclaude.llm import PROVIDERS

    models = [model for entry in PROVIDERS for row in entry.models if row.reasoning == "adaptive_only" for model in row.full_ids()]
    assert len(models) > 5
    steps = [Reply(text="ok", thinking="hmm") for _ in models]
    server, results = serve(steps, *(request([Message.user("x")], model=model, effort="high", max_thinking_tokens=4096) for model in models))
    assert [error for _, error in results] == [None] * len(models)
    assert all(sent["thinking"]["type"] == "adaptive" and "budget_tokens" not in sent["thinking"] for sent in server.requests)


@pytest.mark.parametrize("model", ["claude-3-5-haiku-latest", "some-unknown-model", "gpt-4.1"])
def test_a_model_without_thinking_gets_no_thinking_parameters(model: str) -> None:
    sent = body(request([Message.user("x")], model=model, effort="high"))
    assert "thinking" not in sent and "output_config" not in sent and sent["max_tokens"] == 8192


def test_disabled_thinking_wins_over_effort_and_drops_stored_thinking_blocks() -> None:
    part = Thinking("anthropic", "thinking", "t", "sig")
    history = [Message.user("a"), Message.assistant("b", thinking=[part]), Message.user("c")]
    sent = body(request(history, thinking="disabled"))
    assert "thinking" not in sent
    assert [b["type"] for b in sent["messages"][1]["content"]] == ["text"]


def test_another_providers_reasoning_is_never_sent_to_anthropic() -> None:
    foreign = Thinking("openai", "reasoning", "summary", '{"id":"rs_1"}')
    history = [Message.user("a"), Message.assistant("b", thinking=[foreign]), Message.user("c")]
    sent = body(request(history))
    assert [b["type"] for b in sent["messages"][1]["content"]] == ["text"]


def test_a_tool_round_answered_without_thinking_continues_without_a_budget() -> None:
    history = [Message.user("a"), Message.assistant("", [ToolCall("toolu_1", "read_file", "{}")]), Message.tool("toolu_1", "x")]
    sent = body(request(history))
    assert "thinking" not in sent and first_problem(sent) is None
    forced = {**sent, "thinking": {"type": "enabled", "budget_tokens": 2048}, "max_tokens": 9000}
    assert "Expected `thinking`" in (first_problem(forced) or "")


def test_temperature_and_forced_tool_choice_are_refused_with_thinking() -> None:
    sent = body(request([Message.user("x")]))
    assert "temperature" in (first_problem({**sent, "temperature": 0.2}) or "")
    assert "tool_choice" in (first_problem({**sent, "tool_choice": {"type": "any"}}) or "")


def test_no_thinking_is_streamed_when_the_request_did_not_ask() -> None:
    _, [(events, error)] = serve([Reply(text="plain", thinking="hidden")], request([Message.user("x")], effort=None))
    assert error is None and completed(events).message.thinking == ()
    assert not any(isinstance(e, ThinkingChunk) for e in events)


def test_a_nearly_full_window_shrinks_the_budget_so_prompt_and_max_tokens_still_fit() -> None:
    big = Message.user("x" * 560_000)
    sent = body(request([big], model="claude-opus-4-1", effort="high"))
    assert 1024 <= sent["thinking"]["budget_tokens"] < sent["max_tokens"]
    assert 560_000 // 3 + sent["max_tokens"] <= 200_000
    assert first_problem(sent) is None
