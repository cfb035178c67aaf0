"""OpenAIProvider through the real openai SDK against the wire-level fake server."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any, Sequence

import pytest

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
from pseudoclaude.llm.openai import OpenAIProvider
from pseudoclaude.llm.provider import (
    Completed,
    Request,
    StreamEvent,
    TextChunk,
    ToolCallStart,
)
from tests.fakes.collect import collect_stream
from tests.fakes.http import Exchange, FakeHTTPServer
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.script import Call, CutStream, HttpError, Reply, Step, StreamError
from tests.fakes.ports import refusing_port

KEY = "sk-test-secret-0123456789"
READ = ToolSpec("read", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}})


def _request(messages: Sequence[Message] = (Message.user("hi"),), **extra: Any) -> Request:
    return Request(**{"model": "gpt-test", "system": "You are helpful.", "messages": list(messages), **extra})


def _collect(url: str, request: Request, api_key: str | None = KEY) -> tuple[list[StreamEvent], ProviderError | None]:
    return collect_stream(OpenAIProvider(model=request.model, api_key=api_key, base_url=url, timeout=10), request)


def _serve(steps: list[Step], request: Request | None = None, **options: Any) -> tuple[list[StreamEvent], ProviderError | None, FakeOpenAIServer]:
    with FakeOpenAIServer(steps, **options) as server:
        events, error = _collect(server.url, request or _request())
    return events, error, server


def _completed(events: list[StreamEvent]) -> Completed:
    assert isinstance(events[-1], Completed)
    return events[-1]


def test_text_streams_as_deltas_and_completes() -> None:
    events, error, _ = _serve([Reply(text="Hello, streaming world", text_chunks=4)])
    assert error is None
    assert [e.text for e in events if isinstance(e, TextChunk)] == ["Hello,", " strea", "ming w", "orld"]
    assert _completed(events).message == Message.assistant("Hello, streaming world")
    assert _completed(events).stop_reason == "end_turn"


def test_tool_call_arguments_are_reassembled_from_fragments() -> None:
    arguments = '{"path": "src/pseudoclaude/llm/openai.py", "limit": 200}'
    events, error, _ = _serve([Reply(calls=(Call("read", arguments, chunks=6),))])
    assert error is None
    assert _completed(events).message.tool_calls == (ToolCall("call_1", "read", arguments),)
    assert _completed(events).stop_reason == "tool_use"


def test_two_parallel_calls_each_start_once_in_order() -> None:
    calls = (Call("read", '{"path": "a"}', id="call_x"), Call("grep", '{"pattern": "b"}'))
    events, _, _ = _serve([Reply(text="Looking.", calls=calls)])
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    assert starts == [ToolCallStart(0, "call_x", "read"), ToolCallStart(1, "call_1", "grep")]
    completed = _completed(events).message
    assert completed.text == "Looking."
    assert [c.arguments for c in completed.tool_calls] == ['{"path": "a"}', '{"pattern": "b"}']


def test_usage_splits_cached_tokens_out_of_prompt_tokens() -> None:
    events, _, _ = _serve([Reply(text="x", input_tokens=100, cache_read_tokens=40, output_tokens=7)])
    assert _completed(events).usage == Usage(input_tokens=100, output_tokens=7, cache_read_tokens=40)


def test_identical_requests_send_byte_identical_bodies() -> None:
    request = _request(tools=[READ], system_suffix="Today is Monday.")
    with FakeOpenAIServer([Reply(text="a"), Reply(text="b")]) as server:
        _collect(server.url, request)
        _collect(server.url, request)
    assert server.raw_bodies[0] == server.raw_bodies[1]


def test_body_has_stable_system_first_then_suffix_tools_and_portable_max_tokens() -> None:
    request = _request(tools=[READ], system_suffix="Today is Monday.", max_tokens=1234)
    _, _, server = _serve([Reply(text="a")], request)
    body = server.requests[0]
    assert body["messages"][:2] == [
        {"role": "system", "content": "You are helpful."},
        {"role": "system", "content": "Today is Monday."},
    ]
    function = {"name": "read", "description": "Read a file", "parameters": dict(READ.input_schema)}
    assert body["tools"] == [{"type": "function", "function": function}]
    assert body["max_tokens"] == 1234
    assert body["stream_options"] == {"include_usage": True}


def test_each_tool_result_is_one_tool_message_and_errors_are_marked_once() -> None:
    history = [
        Message.user("look"),
        Message.assistant("", [ToolCall("call_a", "read", '{"path": "a"}'), ToolCall("call_b", "read", "{}")]),
        Message.tool("call_a", "file text"),
        Message.tool("call_b", "no such file", is_error=True),
        Message.user("and now?"),
    ]
    _, error, server = _serve([Reply(text="done")], _request(history))
    assert error is None and server.rejections == []
    wire = server.requests[0]["messages"]
    assert wire[2] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "read", "arguments": '{"path": "a"}'}},
            {"id": "call_b", "type": "function", "function": {"name": "read", "arguments": "{}"}},
        ],
    }
    assert wire[3:5] == [
        {"role": "tool", "tool_call_id": "call_a", "content": "file text"},
        {"role": "tool", "tool_call_id": "call_b", "content": "Error: no such file"},
    ]


def test_an_error_result_that_already_says_error_is_not_prefixed_again() -> None:
    asks = Message.assistant("", [ToolCall("call_a", "read")])
    history = [Message.user("go"), asks, Message.tool("call_a", "Error: denied", is_error=True)]
    _, _, server = _serve([Reply(text="ok")], _request(history))
    assert server.requests[0]["messages"][-1]["content"] == "Error: denied"


def test_429_is_rate_limited_with_retry_after() -> None:
    _, error, _ = _serve([HttpError(429, "rate_limit", retry_after=3)])
    assert isinstance(error, RateLimited) and error.retryable
    assert error.retry_after == 3.0


def test_429_insufficient_quota_is_a_non_retryable_bad_request() -> None:
    _, error, _ = _serve([HttpError(429, "insufficient_quota")])
    assert isinstance(error, BadRequest) and not error.retryable
    assert "quota" in error.message


def test_503_is_overloaded() -> None:
    _, error, _ = _serve([HttpError(503, "overloaded")])
    assert isinstance(error, Overloaded) and error.status == 503


def test_500_is_server_error() -> None:
    _, error, _ = _serve([HttpError(500, "server")])
    assert isinstance(error, ServerError) and error.status == 500


def test_error_object_inside_an_open_stream_raises_after_the_deltas() -> None:
    events, error, _ = _serve([StreamError(Reply(text="abcdef", text_chunks=3), after_deltas=2)])
    assert isinstance(error, ServerError)
    assert [e for e in events if isinstance(e, TextChunk)] == [TextChunk("ab"), TextChunk("cd")]
    assert not any(isinstance(e, Completed) for e in events)


def test_cut_inside_tool_arguments_is_stream_cut_without_completed() -> None:
    events, error, _ = _serve([CutStream(Reply(text="Let me read.", calls=(Call("read", '{"path": "abcdefgh"}'),)))])
    assert isinstance(error, StreamCut) and error.retryable
    assert ToolCallStart(0, "call_1", "read") in events
    assert not any(isinstance(e, Completed) for e in events)


def test_cut_right_after_the_tool_name_is_stream_cut() -> None:
    calls = (Call("read", '{"path": "a"}'), Call("grep", '{"q": "b"}'))
    step = CutStream(Reply(calls=calls), call_index=1, name_only=True)
    events, error, _ = _serve([step])
    assert isinstance(error, StreamCut)
    assert not any(isinstance(e, Completed) for e in events)


def test_401_is_auth_error_naming_the_variable_without_the_key() -> None:
    _, error, _ = _serve([HttpError(401, "auth", message=f"Incorrect API key provided: {KEY}.")])
    assert isinstance(error, AuthError) and not error.retryable
    assert "OPENAI_API_KEY" in error.message
    assert KEY not in str(error)


def test_403_is_auth_error_and_the_key_is_scrubbed_from_the_server_message() -> None:
    _, error, _ = _serve([HttpError(403, "auth", message=f"Key {KEY} may not use this model.")])
    assert isinstance(error, AuthError) and error.status == 403
    assert "may not use this model" in error.message and KEY not in error.message


def test_rate_limit_error_inside_the_stream_is_rate_limited() -> None:
    _, error, _ = _serve([StreamError(Reply(text="abc"), after_deltas=1, error_type="rate_limit_exceeded")])
    assert isinstance(error, RateLimited)


def test_missing_key_without_base_url_is_auth_error() -> None:
    async def run() -> ProviderError:
        provider = OpenAIProvider(model="gpt-test", api_key=None)
        with pytest.raises(AuthError) as caught:
            async for _ in provider.stream(_request()):
                pass
        return caught.value

    assert "OPENAI_API_KEY" in asyncio.run(run()).message


def test_over_the_context_window_is_prompt_too_long() -> None:
    _, error, _ = _serve([Reply(text="never")], _request([Message.user("word " * 400)]), context_window=100)
    assert isinstance(error, PromptTooLong) and not error.retryable


def test_context_length_error_step_is_prompt_too_long() -> None:
    _, error, _ = _serve([HttpError(400, "context_length")])
    assert isinstance(error, PromptTooLong)


def test_vllm_style_context_message_without_code_is_prompt_too_long() -> None:
    message = "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens."
    _, error, _ = _serve([HttpError(400, "invalid_request", message=message)])
    assert isinstance(error, PromptTooLong)


def test_compatible_server_without_key_or_usage_chunk_works() -> None:
    with FakeOpenAIServer([Reply(text="local answer")], require_key=False, usage_chunk=False) as server:
        events, error = _collect(server.url, _request(), api_key=None)
    assert error is None
    assert _completed(events).message.text == "local answer"
    assert _completed(events).usage == Usage()
    assert server.headers[0]["authorization"] == "Bearer not-needed"


def test_orphan_tool_calls_in_history_are_a_bad_request() -> None:
    history = [Message.user("go"), Message.assistant("", [ToolCall("call_a", "read")]), Message.user("next")]
    _, error, server = _serve([Reply(text="never")], _request(history))
    assert type(error) is BadRequest and error.status == 400
    assert "call_a" in error.message
    assert len(server.rejections) == 1


def test_orphan_tool_message_is_a_bad_request() -> None:
    _, error, _ = _serve([Reply(text="never")], _request([Message.user("go"), Message.tool("call_zz", "out")]))
    assert type(error) is BadRequest
    assert "preceeding message with 'tool_calls'" in error.message


def test_unreachable_server_is_connection_failed() -> None:
    with refusing_port() as port:
        _, error = _collect(f"http://127.0.0.1:{port}/v1", _request())
    assert isinstance(error, ConnectionFailed) and error.retryable


def _raw_stream_server(data_lines: list[str]) -> FakeHTTPServer:
    def handle(exchange: Exchange) -> None:
        exchange.start_stream()
        for data in data_lines:
            exchange.send_event(None, data)
        exchange.end_stream()

    return FakeHTTPServer(handle)


def _chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return json.dumps({"object": "chat.completion.chunk", "choices": [choice]})


def test_clean_end_without_done_is_stream_cut() -> None:
    with _raw_stream_server([_chunk({"content": "hi"}), _chunk({}, "stop")]) as server:
        events, error = _collect(f"{server.url}/v1", _request())
    assert isinstance(error, StreamCut)
    assert not any(isinstance(e, Completed) for e in events)


def test_done_without_finish_reason_is_stream_cut() -> None:
    with _raw_stream_server([_chunk({"content": "hi"}), "[DONE]"]) as server:
        _, error = _collect(f"{server.url}/v1", _request())
    assert isinstance(error, StreamCut)


def test_server_that_sends_whole_calls_without_ids_still_completes() -> None:
    function = {"name": "read", "arguments": '{"path": "a"}'}
    whole = {"tool_calls": [{"index": 0, "type": "function", "function": function}]}
    with _raw_stream_server([_chunk(whole), _chunk({}, "tool_calls"), "[DONE]"]) as server:
        events, error = _collect(f"{server.url}/v1", _request())
    assert error is None
    call = _completed(events).message.tool_calls[0]
    assert (call.name, call.arguments) == ("read", '{"path": "a"}') and call.id.startswith("call_")
    assert [e for e in events if isinstance(e, ToolCallStart)] == [ToolCallStart(0, call.id, "read")]


def test_length_finish_maps_to_max_tokens() -> None:
    events, _, _ = _serve([Reply(text="truncated", stop_reason="max_tokens")])
    assert _completed(events).stop_reason == "max_tokens"


def test_importing_the_adapter_does_not_import_the_sdk() -> None:
    code = "import sys, pseudoclaude.llm.openai; assert 'openai' not in sys.modules and 'httpx2' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=30)


def test_a_server_that_ignores_stream_true_and_answers_whole_json_still_works() -> None:
    reply = Reply(text="whole answer", calls=(Call("read_file", '{"path": "a.txt"}'), Call("glob", '{"pattern": "*"}')), input_tokens=50)
    events, error, _ = _serve([reply], ignores_stream=True)
    assert error is None
    done = _completed(events)
    assert done.message.text == "whole answer"
    assert [(c.name, c.arguments) for c in done.message.tool_calls] == [("read_file", '{"path": "a.txt"}'), ("glob", '{"pattern": "*"}')]
    assert done.usage.prompt_tokens == 50 and done.stop_reason == "tool_use"


def test_openai_itself_gets_max_completion_tokens_and_compatible_servers_max_tokens() -> None:
    from pseudoclaude.llm.openai_wire import to_wire_request

    request = _request(max_tokens=1234)
    assert to_wire_request(request, official=True)["max_completion_tokens"] == 1234
    assert "max_tokens" not in to_wire_request(request, official=True)
    assert to_wire_request(request)["max_tokens"] == 1234 and "max_completion_tokens" not in to_wire_request(request)


def test_tool_choice_none_is_sent_with_the_tools_and_the_fake_accepts_it() -> None:
    events, error, server = _serve([Reply(text="a summary")], _request(tools=[READ], tool_choice="none"))
    assert error is None and _completed(events).message.text == "a summary"
    assert server.requests[0]["tool_choice"] == "none" and server.rejections == []


def test_tool_choice_is_never_sent_without_tools_nor_when_auto() -> None:
    _, error, server = _serve([Reply(text="a"), Reply(text="b")], _request(tool_choice="none"))
    assert error is None and "tool_choice" not in server.requests[0]
    _, _, server = _serve([Reply(text="a")], _request(tools=[READ]))
    assert "tool_choice" not in server.requests[0]


@pytest.mark.parametrize(
    ("model", "effort", "sent", "cap"),
    [
        ("gpt-5", "high", "high", 8192 + 32_768),
        ("gpt-5", "max", "high", 8192 + 65_536),
        ("gpt-5.2", "max", "xhigh", 8192 + 65_536),
        ("o3", "low", "low", 8192 + 8_192),
        ("gpt-5-mini", None, None, 8192 + 16_384),
    ],
)
def test_a_reasoning_model_at_a_base_url_gets_reasoning_effort_and_max_completion_tokens(model: str, effort: Any, sent: str | None, cap: int) -> None:
    events, error, server = _serve([Reply(text="reasoned")], _request(model=model, effort=effort))
    assert error is None and _completed(events).message.text == "reasoned"
    body = server.requests[0]
    assert server.paths == ["/v1/chat/completions"] and server.rejections == []
    assert body.get("reasoning_effort") == sent and body["max_completion_tokens"] == cap
    assert "max_tokens" not in body and "temperature" not in body


def test_thinking_disabled_asks_a_reasoning_model_for_the_least_reasoning() -> None:
    _, error, server = _serve([Reply(text="ok")], _request(model="gpt-5", effort="high", thinking="disabled"))
    assert error is None and server.requests[0]["reasoning_effort"] == "low"


def test_a_model_without_reasoning_gets_no_effort_and_max_tokens_at_a_base_url() -> None:
    _, error, server = _serve([Reply(text="ok")], _request(model="gpt-4.1", effort="high"))
    assert error is None and server.rejections == []
    assert "reasoning_effort" not in server.requests[0] and server.requests[0]["max_tokens"] == 8192


def test_configured_headers_go_on_every_openai_request() -> None:
    with FakeOpenAIServer([Reply(text="a"), Reply(text="b")]) as server:
        provider = OpenAIProvider(model="gpt-test", api_key=KEY, base_url=server.url, timeout=10, headers=(("X-Team", "core"),))
        for _ in range(2):
            _, error = collect_stream(provider, _request())
            assert error is None
    assert [headers["x-team"] for headers in server.headers] == ["core", "core"]
    assert server.headers[0]["authorization"] == f"Bearer {KEY}"
