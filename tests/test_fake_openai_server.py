"""The fake OpenAI server itself, checked with raw httpx: wire shape and strict validation."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.script import Call, CutStream, HttpError, Reply, StreamError

KEY = {"authorization": "Bearer sk-test"}


def _body(messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    stream = {"stream": True, "stream_options": {"include_usage": True}}
    return {"model": "gpt-test", "messages": messages, **stream, **extra}


def _post(server: FakeOpenAIServer, body: Any, headers: dict[str, str] = KEY) -> httpx.Response:
    with httpx.Client(timeout=5) as client:
        return client.post(f"{server.url}/chat/completions", json=body, headers=headers)


def _events(response: httpx.Response) -> list[Any]:
    out: list[Any] = []
    for block in response.text.split("\n\n"):
        if block.startswith("data: "):
            data = block[len("data: ") :]
            out.append(data if data == "[DONE]" else json.loads(data))
    return out


USER = [{"role": "user", "content": "hi"}]
CALLS = [{"id": "call_a", "type": "function", "function": {"name": "read", "arguments": "{}"}}]
ASKS = {"role": "assistant", "content": None, "tool_calls": CALLS}


def test_streamed_text_has_role_chunk_content_finish_usage_and_done() -> None:
    reply = Reply(text="Hello world", input_tokens=50, cache_read_tokens=10, output_tokens=7)
    with FakeOpenAIServer([reply]) as server:
        events = _events(_post(server, _body(USER)))
    assert events[0]["object"] == "chat.completion.chunk"
    assert events[0]["choices"][0]["delta"]["role"] == "assistant"
    text = "".join(e["choices"][0]["delta"].get("content") or "" for e in events[:-2])
    assert text == "Hello world"
    assert events[-3]["choices"][0]["finish_reason"] == "stop"
    assert events[-2]["choices"] == []
    assert events[-2]["usage"]["prompt_tokens"] == 60
    assert events[-2]["usage"]["prompt_tokens_details"]["cached_tokens"] == 10
    assert events[-2]["usage"]["completion_tokens"] == 7
    assert events[-1] == "[DONE]"


def test_tool_call_deltas_start_with_id_type_name_then_argument_fragments() -> None:
    reply = Reply(calls=(Call("read", '{"path": "src/main.py"}', chunks=3),))
    with FakeOpenAIServer([reply]) as server:
        events = _events(_post(server, _body(USER)))
    chunk_deltas = [e["choices"][0]["delta"] for e in events if e != "[DONE]" and e["choices"]]
    deltas = [d["tool_calls"][0] for d in chunk_deltas if "tool_calls" in d]
    assert deltas[0] == {"index": 0, "id": "call_1", "type": "function", "function": {"name": "read", "arguments": ""}}
    assert len(deltas) == 4
    assert "".join(d["function"]["arguments"] for d in deltas) == '{"path": "src/main.py"}'
    assert events[-3]["choices"][0]["finish_reason"] == "tool_calls"


def test_missing_key_is_401_invalid_api_key() -> None:
    with FakeOpenAIServer([Reply(text="x")]) as server:
        response = _post(server, _body(USER), headers={})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_api_key"


def test_no_key_needed_when_not_required() -> None:
    with FakeOpenAIServer([Reply(text="x")], require_key=False) as server:
        assert _post(server, _body(USER), headers={}).status_code == 200


def test_missing_model_is_rejected_with_the_real_error_shape() -> None:
    with FakeOpenAIServer([]) as server:
        response = _post(server, {"messages": USER, "stream": True})
    assert response.status_code == 400
    assert set(response.json()["error"]) == {"message", "type", "param", "code"}
    assert response.json()["error"]["type"] == "invalid_request_error"


def test_invalid_role_is_rejected() -> None:
    with FakeOpenAIServer([]) as server:
        response = _post(server, _body([{"role": "bot", "content": "x"}]))
    assert response.status_code == 400
    assert response.json()["error"]["param"] == "messages[0].role"


def test_unanswered_tool_calls_are_rejected_naming_the_ids() -> None:
    messages = [*USER, ASKS, {"role": "user", "content": "go on"}]
    with FakeOpenAIServer([]) as server:
        response = _post(server, _body(messages))
        assert server.rejections == [(400, response.json()["error"]["message"])]
    assert response.status_code == 400
    assert "did not have response messages: call_a" in response.json()["error"]["message"]


def test_tool_calls_at_the_end_of_the_history_are_rejected() -> None:
    messages = [*USER, ASKS]
    with FakeOpenAIServer([]) as server:
        assert _post(server, _body(messages)).status_code == 400


def test_orphan_tool_message_is_rejected() -> None:
    messages = [*USER, {"role": "tool", "tool_call_id": "call_zz", "content": "out"}]
    with FakeOpenAIServer([]) as server:
        response = _post(server, _body(messages))
    assert response.status_code == 400
    assert "must be a response to a preceeding message with 'tool_calls'" in response.json()["error"]["message"]


def test_answered_tool_calls_are_accepted() -> None:
    messages = [*USER, ASKS, {"role": "tool", "tool_call_id": "call_a", "content": "out"}]
    with FakeOpenAIServer([Reply(text="ok")]) as server:
        assert _post(server, _body(messages)).status_code == 200
        assert server.rejections == []


def test_non_string_arguments_are_rejected() -> None:
    calls = [{"id": "call_a", "type": "function", "function": {"name": "read", "arguments": {"path": "x"}}}]
    answer = {"role": "tool", "tool_call_id": "call_a", "content": "o"}
    messages = [*USER, {"role": "assistant", "tool_calls": calls}, answer]
    with FakeOpenAIServer([]) as server:
        response = _post(server, _body(messages))
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_type"


def test_stream_options_without_stream_is_rejected() -> None:
    with FakeOpenAIServer([]) as server:
        response = _post(server, {"model": "m", "messages": USER, "stream_options": {"include_usage": True}})
    assert response.status_code == 400
    assert response.json()["error"]["param"] == "stream_options"


def test_over_the_context_window_is_context_length_exceeded() -> None:
    with FakeOpenAIServer([Reply(text="x")], context_window=10) as server:
        response = _post(server, _body([{"role": "user", "content": "word " * 100}]))
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "context_length_exceeded"
    assert "maximum context length is 10 tokens" in response.json()["error"]["message"]


def test_invalid_requests_are_recorded_too() -> None:
    with FakeOpenAIServer([]) as server:
        _post(server, {"messages": USER})
        assert server.requests == [{"messages": USER}]


def test_http_error_step_sends_status_and_retry_after() -> None:
    with FakeOpenAIServer([HttpError(429, "rate_limit", retry_after=7)]) as server:
        response = _post(server, _body(USER))
    assert response.status_code == 429
    assert response.headers["retry-after"] == "7"
    assert response.json()["error"]["code"] == "rate_limit_exceeded"


def test_stream_error_step_sends_an_error_object_after_some_deltas() -> None:
    with FakeOpenAIServer([StreamError(Reply(text="abcdef"), after_deltas=2)]) as server:
        events = _events(_post(server, _body(USER)))
    assert len(events) == 4
    assert events[-1]["error"]["type"] == "server_error"


def test_cut_stream_breaks_the_chunked_body_inside_the_arguments() -> None:
    step = CutStream(Reply(calls=(Call("read", '{"path": "abcdef"}'),)))
    with FakeOpenAIServer([step]) as server, httpx.Client(timeout=5) as client:
        with client.stream("POST", f"{server.url}/chat/completions", json=_body(USER), headers=KEY) as response:
            received = b""
            try:
                for piece in response.iter_bytes():
                    received += piece
                broke = False
            except httpx.RemoteProtocolError:
                broke = True
    assert broke
    assert b'"arguments": "{\\"path\\": "' in received
    assert b"[DONE]" not in received


def test_non_streaming_request_gets_a_chat_completion() -> None:
    with FakeOpenAIServer([Reply(text="plain")]) as server:
        response = _post(server, {"model": "m", "messages": USER})
    assert response.json()["object"] == "chat.completion"
    assert response.json()["choices"][0]["message"]["content"] == "plain"


def test_unknown_path_is_404() -> None:
    with FakeOpenAIServer([]) as server, httpx.Client(timeout=5) as client:
        response = client.post(f"{server.url}/completions", json={}, headers=KEY)
    assert response.status_code == 404


TOOLS = [{"type": "function", "function": {"name": "read", "parameters": {"type": "object"}}}]


def test_tool_choice_none_with_tools_is_accepted() -> None:
    with FakeOpenAIServer([Reply(text="ok")]) as server:
        assert _post(server, _body(USER, tools=TOOLS, tool_choice="none")).status_code == 200
        assert server.rejections == []


def test_tool_choice_without_tools_is_rejected_as_the_service_does() -> None:
    with FakeOpenAIServer([Reply(text="never")]) as server:
        response = _post(server, _body(USER, tool_choice="none"))
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["param"] == "tool_choice" and "only allowed when 'tools' are specified" in error["message"]


def test_an_unknown_tool_choice_is_rejected() -> None:
    with FakeOpenAIServer([Reply(text="never")]) as server:
        response = _post(server, _body(USER, tools=TOOLS, tool_choice="never"))
    assert response.status_code == 400
    assert "Supported values are: 'none', 'auto', and 'required'" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    ("extra", "param", "fragment"),
    [
        ({"model": "gpt-5", "max_tokens": 100}, "max_tokens", "Use 'max_completion_tokens' instead"),
        ({"model": "o3-mini", "max_tokens": 100}, "max_tokens", "Use 'max_completion_tokens' instead"),
        ({"model": "gpt-5", "max_completion_tokens": 100, "temperature": 0.2}, "temperature", "Only the default (1) value"),
        ({"model": "gpt-5", "reasoning_effort": "max"}, "reasoning_effort", "does not support 'max'"),
        ({"model": "gpt-5", "reasoning_effort": "xhigh"}, "reasoning_effort", "does not support 'xhigh'"),
        ({"model": "gpt-4.1", "reasoning_effort": "high"}, "reasoning_effort", "'reasoning_effort' is not supported with this model"),
        ({"model": "gpt-5-chat-latest", "reasoning_effort": "low"}, "reasoning_effort", "is not supported with this model"),
    ],
    ids=["gpt-5-max-tokens", "o3-max-tokens", "temperature", "effort-max", "xhigh-on-gpt-5", "effort-on-gpt-4.1", "effort-on-gpt-5-chat"],
)
def test_reasoning_parameters_are_refused_as_openai_refuses_them(extra: dict[str, Any], param: str, fragment: str) -> None:
    with FakeOpenAIServer([Reply(text="never")]) as server:
        response = _post(server, _body(USER, **extra))
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["param"] == param and fragment in error["message"]


@pytest.mark.parametrize(
    "extra",
    [
        {"model": "gpt-5", "max_completion_tokens": 100, "reasoning_effort": "minimal"},
        {"model": "gpt-5.1", "reasoning_effort": "none", "temperature": 1},
        {"model": "gpt-5.2", "reasoning_effort": "xhigh"},
        {"model": "o3", "reasoning_effort": "high"},
        {"model": "gpt-4.1", "max_tokens": 100, "temperature": 0.2},
    ],
    ids=["gpt-5-minimal", "gpt-5.1-none", "gpt-5.2-xhigh", "o3-high", "gpt-4.1-max-tokens"],
)
def test_reasoning_parameters_openai_takes_are_accepted(extra: dict[str, Any]) -> None:
    with FakeOpenAIServer([Reply(text="ok")]) as server:
        response = _post(server, _body(USER, **extra))
    assert response.status_code == 200 and server.rejections == []
