"""The fake Anthropic server itself, checked with raw httpx requests (no SDK in between)."""

from __future__ import annotations

import copy
import json
from typing import Any

import httpx
import pytest

from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.script import (
    Call,
    CutStream,
    HttpError,
    Reply,
    StreamError,
    approx_tokens,
)

HEADERS = {"x-api-key": "sk-test", "anthropic-version": "2023-06-01", "content-type": "application/json"}


def body(messages: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "model": "claude-fake-1",
        "max_tokens": 1024,
        "stream": True,
        "messages": messages if messages is not None else [{"role": "user", "content": "hello"}],
    }
    out.update(extra)
    return out


def post(server: FakeAnthropicServer, payload: Any, headers: dict[str, str] | None = None) -> httpx.Response:
    content = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return httpx.post(f"{server.url}/v1/messages", content=content, headers=headers or HEADERS, timeout=5)


def sse(response: httpx.Response) -> list[tuple[str, dict[str, Any]]]:
    events = []
    for block in response.text.split("\n\n"):
        if not block.strip():
            continue
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        events.append((lines["event"], json.loads(lines["data"])))
    return events


def tool_use(block_id: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "tool_use", "id": block_id, "name": "grep", "input": {}}]}


def cached_texts(count: int) -> list[dict[str, Any]]:
    return [{"type": "text", "text": str(i), "cache_control": {"type": "ephemeral"}} for i in range(count)]


def tool_turns(result_id: str = "toolu_1") -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "go"},
        tool_use("toolu_1"),
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": result_id, "content": "x"}]},
    ]


def test_reply_streams_the_real_event_sequence() -> None:
    reply = Reply(text="Hi there", text_chunks=2, calls=(Call("grep", '{"pattern": "abc"}', chunks=3),))
    with FakeAnthropicServer([reply]) as server:
        response = post(server, body())
    assert response.status_code == 200 and response.headers["content-type"] == "text/event-stream"
    names = [name for name, _ in sse(response)]
    assert names == [
        "message_start",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]


def test_tool_use_block_gets_a_generated_id_and_json_deltas() -> None:
    with FakeAnthropicServer([Reply(calls=(Call("grep", '{"pattern": "abc"}'),))]) as server:
        events = sse(post(server, body()))
    start = next(d for n, d in events if n == "content_block_start")
    assert start["content_block"] == {"type": "tool_use", "id": "toolu_1", "name": "grep", "input": {}}
    pieces = [d["delta"]["partial_json"] for n, d in events if n == "content_block_delta"]
    assert len(pieces) == 3 and "".join(pieces) == '{"pattern": "abc"}'
    assert events[-2][1]["delta"]["stop_reason"] == "tool_use"


def test_every_message_has_its_own_id_as_the_real_api_gives() -> None:
    """Claude Code merges the blocks of assistant messages that share an id: a fixed one turned its tool rounds into
    one message with two thinking blocks, which the validation then refused."""
    with FakeAnthropicServer([Reply(text="a"), Reply(text="b")]) as server:
        ids = [sse(post(server, body()))[0][1]["message"]["id"] for _ in range(2)]
    assert len(set(ids)) == 2 and all(i.startswith("msg_") for i in ids)


def test_usage_defaults_to_approx_tokens_of_the_body() -> None:
    payload = body()
    with FakeAnthropicServer([Reply(text="ok", cache_read_tokens=9, output_tokens=4)]) as server:
        events = sse(post(server, payload))
    usage = events[0][1]["message"]["usage"]
    assert usage["input_tokens"] == approx_tokens(payload) and usage["cache_read_input_tokens"] == 0
    assert events[-2][1]["usage"]["output_tokens"] == 4


def cached_prompt(tool_choice: dict[str, Any] | None = None, extra: str = "") -> dict[str, Any]:
    """A prompt over the 1,024-token minimum with markers on the system prompt and on the last message block."""
    system = [{"type": "text", "text": "s" * 8000, "cache_control": {"type": "ephemeral"}}]
    blocks = [{"type": "text", "text": "m" * 16000 + extra, "cache_control": {"type": "ephemeral"}}]
    out = body([{"role": "user", "content": blocks}], system=system, tools=[{"name": "t", "input_schema": {"type": "object"}}])
    return out if tool_choice is None else dict(out, tool_choice=tool_choice)


def reads(server: FakeAnthropicServer, payload: dict[str, Any]) -> int:
    return int(sse(post(server, payload))[0][1]["message"]["usage"]["cache_read_input_tokens"])


def test_scripted_cache_reads_are_capped_to_the_prefix_an_earlier_request_wrote() -> None:
    with FakeAnthropicServer([Reply(text="ok", cache_read_tokens=10**6)] * 3) as server:
        first, again = reads(server, cached_prompt()), reads(server, cached_prompt())
        other_choice = reads(server, cached_prompt({"type": "none"}))
    assert first == 0 and again > 3000 and 0 < other_choice < again / 2


def test_with_report_cache_the_server_reports_the_simulated_reads_and_bills_the_rest() -> None:
    with FakeAnthropicServer([Reply(text="ok")] * 3, report_cache=True) as server:
        reads(server, cached_prompt())
        usage = sse(post(server, cached_prompt()))[0][1]["message"]["usage"]
        changed = reads(server, cached_prompt({"type": "none"}))
    assert usage["cache_read_input_tokens"] > 3000 and usage["input_tokens"] < 100
    assert 0 < changed < usage["cache_read_input_tokens"] / 2 and server.cache_reads[-1] == changed


def test_missing_api_key_is_401() -> None:
    headers = {k: v for k, v in HEADERS.items() if k != "x-api-key"}
    with FakeAnthropicServer([Reply(text="never")]) as server:
        response = post(server, body(), headers)
    assert response.status_code == 401
    assert response.json()["error"]["type"] == "authentication_error"


@pytest.mark.parametrize(
    ("auth", "message"),
    [({}, "x-api-key header is required"), ({"authorization": "Basic dXNlcjpwYXNz"}, "x-api-key header is required")],
    ids=["none", "not-bearer"],
)
def test_a_request_without_a_usable_credential_is_401_and_consumes_no_step(auth: dict[str, str], message: str) -> None:
    headers = {**{k: v for k, v in HEADERS.items() if k != "x-api-key"}, **auth}
    with FakeAnthropicServer([Reply(text="kept")]) as server:
        refused = post(server, body(), headers)
        served = post(server, body())
    assert refused.status_code == 401 and refused.json()["error"] == {"type": "authentication_error", "message": message}
    assert served.status_code == 200 and "message_stop" in served.text
    assert server.rejections == [(401, message)]


def test_playing_a_gateway_it_takes_only_its_credentials_and_requires_its_headers() -> None:
    bare = {k: v for k, v in HEADERS.items() if k != "x-api-key"}
    with FakeAnthropicServer([Reply(text="ok")], credentials=frozenset({"gw-token"}), required_headers={"X-Team": "core"}) as server:
        wrong_key = post(server, body())
        no_header = post(server, body(), {**bare, "authorization": "Bearer gw-token"})
        served = post(server, body(), {**bare, "authorization": "Bearer gw-token", "x-team": "core"})
    assert (wrong_key.status_code, wrong_key.json()["error"]["message"]) == (401, "invalid x-api-key")
    assert (no_header.status_code, no_header.json()["error"]["type"]) == (403, "permission_error")
    assert served.status_code == 200
    assert server.headers[-1]["authorization"] == "Bearer gw-token" and server.headers[-1]["x-team"] == "core"


def test_missing_anthropic_version_is_400() -> None:
    headers = {k: v for k, v in HEADERS.items() if k != "anthropic-version"}
    with FakeAnthropicServer([Reply(text="never")]) as server:
        response = post(server, body(), headers)
    assert response.status_code == 400 and "anthropic-version" in response.json()["error"]["message"]


READ_TOOL = {"name": "read", "input_schema": {"type": "object"}}

INVALID = {
    "missing-max-tokens": ({k: v for k, v in body().items() if k != "max_tokens"}, "max_tokens: Field required"),
    "missing-model": ({k: v for k, v in body().items() if k != "model"}, "model: Field required"),
    "assistant-first": (body([{"role": "assistant", "content": "hi"}, {"role": "user", "content": "go"}]), 'first message must use the "user" role'),
    "consecutive-user": (body([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]), 'found multiple "user" roles in a row'),
    "empty-text": (body([{"role": "user", "content": [{"type": "text", "text": ""}]}]), "text content blocks must be non-empty"),
    "orphan-tool-use": (
        body(tool_turns()[:2] + [{"role": "user", "content": "next"}]),
        "messages.1: tool_use ids were found without tool_result blocks immediately after: toolu_1",
    ),
    "orphan-tool-result": (
        body(
            [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": "hi"},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "x"}]},
            ]
        ),
        "messages.2.content.0: unexpected tool_use_id found in tool_result blocks: toolu_9",
    ),
    "wrong-tool-result": (body(tool_turns("toolu_9")), "tool_result blocks immediately after: toolu_1"),
    "tool-result-not-first": (
        body(
            tool_turns()[:2]
            + [{"role": "user", "content": [{"type": "text", "text": "first"}, {"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"}]}]
        ),
        "tool_result blocks must come first",
    ),
    "bad-tool-use-id": (
        body([{"role": "user", "content": "go"}, {"role": "assistant", "content": [{"type": "tool_use", "id": "bad id!", "name": "g", "input": {}}]}]),
        "String should match pattern '^[a-zA-Z0-9_-]+$'",
    ),
    "duplicate-tool-use-id": (body(tool_turns() + [tool_use("toolu_1")]), "`tool_use` ids must be unique"),
    "bad-tool-name": (body(tools=[{"name": "read file", "input_schema": {"type": "object"}}]), "tools.0.custom.name"),
    "tool-choice-unknown-type": (body(tools=[READ_TOOL], tool_choice={"type": "never"}), "tool_choice: Input tag 'never'"),
    "tool-choice-not-an-object": (body(tools=[READ_TOOL], tool_choice="none"), "tool_choice: Input should be a valid dictionary"),
    "tool-choice-unknown-tool": (body(tools=[READ_TOOL], tool_choice={"type": "tool", "name": "grep"}), "Tool 'grep' not found"),
    "tool-choice-any-without-tools": (body(tool_choice={"type": "any"}), "may only be specified while providing tools"),
    "too-many-cache-breakpoints": (body([{"role": "user", "content": cached_texts(5)}]), "A maximum of 4 blocks with cache_control may be provided. Found 5."),
}


@pytest.mark.parametrize("payload, fragment", list(INVALID.values()), ids=list(INVALID))
def test_invalid_request_is_rejected_with_the_real_error_shape(payload: dict[str, Any], fragment: str) -> None:
    with FakeAnthropicServer([Reply(text="never")]) as server:
        response = post(server, payload)
    assert response.status_code == 400
    error = response.json()
    assert error["type"] == "error" and error["error"]["type"] == "invalid_request_error"
    assert fragment in error["error"]["message"]
    assert server.rejections == [(400, error["error"]["message"])]
    assert server.requests == [payload]


def test_valid_tool_round_trip_is_accepted() -> None:
    with FakeAnthropicServer([Reply(text="ok")]) as server:
        response = post(server, body(tool_turns()))
    assert response.status_code == 200 and server.rejections == []


def test_tool_choice_none_with_tools_is_accepted() -> None:
    with FakeAnthropicServer([Reply(text="ok")]) as server:
        response = post(server, body(tool_turns(), tools=[READ_TOOL], tool_choice={"type": "none"}))
    assert response.status_code == 200 and server.rejections == []


def test_rejected_request_consumes_no_script_step() -> None:
    with FakeAnthropicServer([Reply(text="first step")]) as server:
        post(server, body([{"role": "assistant", "content": "hi"}]))
        events = sse(post(server, body()))
    texts = [d["delta"]["text"] for n, d in events if n == "content_block_delta"]
    assert "".join(texts) == "first step"


def test_request_over_context_window_gets_prompt_too_long() -> None:
    payload = body()
    with FakeAnthropicServer([Reply(text="never")], context_window=10) as server:
        response = post(server, payload)
    assert response.status_code == 400
    assert response.json()["error"]["message"] == f"prompt is too long: {approx_tokens(payload)} tokens > 10 maximum"


def test_rate_limit_error_carries_retry_after_header() -> None:
    with FakeAnthropicServer([HttpError(429, "rate_limit", retry_after=12)]) as server:
        response = post(server, body())
    assert response.status_code == 429 and response.headers["retry-after"] == "12"
    assert response.json()["error"]["type"] == "rate_limit_error"


def test_overloaded_error_is_529() -> None:
    with FakeAnthropicServer([HttpError(529, "overloaded")]) as server:
        response = post(server, body())
    assert response.status_code == 529 and response.json()["error"]["type"] == "overloaded_error"


def test_stream_error_sends_deltas_then_an_error_event() -> None:
    with FakeAnthropicServer([StreamError(Reply(text="abcdefgh", text_chunks=4), after_deltas=2)]) as server:
        response = post(server, body())
    events = sse(response)
    assert response.status_code == 200
    assert [n for n, _ in events].count("content_block_delta") == 2
    name, data = events[-1]
    assert name == "error" and data["type"] == "error"
    assert data["error"] == {"type": "overloaded_error", "message": "Overloaded"}


def test_cut_stream_drops_the_connection_mid_tool_json() -> None:
    reply = Reply(calls=(Call("grep", '{"pattern": "abcdef"}', chunks=4),))
    received = b""
    with FakeAnthropicServer([CutStream(reply)]) as server:
        with pytest.raises(httpx.RemoteProtocolError):
            with httpx.stream("POST", f"{server.url}/v1/messages", json=body(), headers=HEADERS, timeout=5) as response:
                for chunk in response.iter_bytes():
                    received += chunk
    text = received.decode()
    assert '"tool_use"' in text and "input_json_delta" in text and "message_stop" not in text


def test_name_only_cut_drops_the_connection_before_any_argument_bytes() -> None:
    reply = Reply(calls=(Call("grep", '{"pattern": "abcdef"}'),))
    received = b""
    with FakeAnthropicServer([CutStream(reply, name_only=True)]) as server:
        with pytest.raises(httpx.RemoteProtocolError):
            with httpx.stream("POST", f"{server.url}/v1/messages", json=body(), headers=HEADERS, timeout=5) as response:
                for chunk in response.iter_bytes():
                    received += chunk
    text = received.decode()
    assert '"tool_use"' in text and "input_json_delta" not in text


def test_requests_are_recorded_in_order() -> None:
    first, second = body(), body(max_tokens=7)
    with FakeAnthropicServer([Reply(text="a"), Reply(text="b")]) as server:
        post(server, first)
        post(server, copy.deepcopy(second))
    assert server.requests == [first, second]
