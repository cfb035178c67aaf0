"""Every provider streams a tool call's arguments as ``ToolArgsChunk`` pieces that add up to the final ``ToolCall.arguments``.

Through the real SDKs against the wire-level fakes (Anthropic's
``input_json_delta``, OpenAI chat's ``tool_calls[].function.arguments``
deltas, Responses' ``function_call_arguments.delta``), and raw streams for
the servers that send a call in an odd order.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pseudoclaude.llm.anthropic import AnthropicProvider
from pseudoclaude.llm.messages import Message, ToolSpec
from pseudoclaude.llm.openai import OpenAIProvider
from pseudoclaude.llm.provider import Completed, Provider, Request, StreamEvent, ToolArgsChunk, ToolCallStart
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.collect import collect_stream
from tests.fakes.http import Exchange, FakeHTTPServer
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.script import Call, Reply

READ = ToolSpec("read", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}})
CALLS = (
    Call("read", json.dumps({"path": 'src/a "quoted" name.py', "lines": [1, 2, 3]}), chunks=6),
    Call("read", json.dumps({"path": "b.py"}), chunks=2),
    Call("read", "{}", chunks=1),
)
SERVERS: dict[str, Any] = {
    "anthropic": (FakeAnthropicServer, lambda url: AnthropicProvider(model="claude-fake-1", api_key="sk-ant-test-0123456789", base_url=url)),
    "chat": (FakeOpenAIServer, lambda url: OpenAIProvider(model="gpt-4.1", api_key="sk-test-0123456789", base_url=url, api="chat")),
    "responses": (FakeOpenAIServer, lambda url: OpenAIProvider(model="gpt-5", api_key="sk-test-0123456789", base_url=url, api="responses")),
}


def _request(model: str) -> Request:
    return Request(model=model, system="You are helpful.", messages=[Message.user("go")], tools=[READ])


def pieces_by_call(events: list[StreamEvent]) -> dict[int, tuple[str, str]]:
    """Each call's id and its concatenated pieces, checking every piece follows its call's start and names it."""
    started: dict[int, str] = {}
    pieces: dict[int, list[str]] = {}
    for event in events:
        if isinstance(event, ToolCallStart):
            started[event.index] = event.id
        elif isinstance(event, ToolArgsChunk):
            assert started.get(event.index) == event.id, "a piece comes after its call's start, with its id"
            assert event.fragment, "no empty pieces"
            pieces.setdefault(event.index, []).append(event.fragment)
    return {index: (call_id, "".join(pieces.get(index, []))) for index, call_id in started.items()}


@pytest.mark.parametrize("kind", sorted(SERVERS))
def test_the_pieces_of_each_call_add_up_to_its_arguments(kind: str) -> None:
    server_class, make = SERVERS[kind]
    with server_class([Reply(text="Reading.", calls=CALLS)]) as server:
        provider: Provider = make(server.url)
        events, error = collect_stream(provider, _request(provider.model))
    assert error is None
    done = events[-1]
    assert isinstance(done, Completed)
    streamed = pieces_by_call(events)
    assert [streamed[i] for i in sorted(streamed)] == [(c.id, c.arguments) for c in done.message.tool_calls]
    assert [c.arguments for c in done.message.tool_calls] == [c.arguments for c in CALLS]
    assert sum(isinstance(e, ToolArgsChunk) for e in events) > len(CALLS), "the long arguments arrive in several pieces"


def _chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    return json.dumps({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})


def test_chat_arguments_sent_before_the_id_and_name_follow_the_start() -> None:
    """A server that streams arguments before naming the call: they are held, then sent right after its start."""
    lines = [
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"pa'}}]}),
        _chunk({"tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "read", "arguments": 'th": '}}]}),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"a.py"}'}}]}),
        _chunk({"tool_calls": [{"index": 1, "function": {"name": "read", "arguments": '{"path": "b.py"}'}}]}),
        _chunk({}, "tool_calls"),
        "[DONE]",
    ]

    def handle(exchange: Exchange) -> None:
        exchange.start_stream()
        for data in lines:
            exchange.send_event(None, data)
        exchange.end_stream()

    with FakeHTTPServer(handle) as server:
        provider = OpenAIProvider(model="gpt-4.1", api_key="sk-test-0123456789", base_url=f"{server.url}/v1", api="chat")
        events, error = collect_stream(provider, _request("gpt-4.1"))
    assert error is None and isinstance(events[-1], Completed)
    calls = events[-1].message.tool_calls
    assert pieces_by_call(events) == {0: ("call_1", '{"path": "a.py"}'), 1: (calls[1].id, '{"path": "b.py"}')}
    assert [type(e).__name__ for e in events[:3]] == ["ToolCallStart", "ToolArgsChunk", "ToolArgsChunk"]
