"""The fake OpenAI Responses endpoint itself, checked with raw httpx: event shapes and strict validation.

Every streamed event is validated against the openai SDK's own event models,
so the fake cannot drift from the shapes the real service sends.
"""

from __future__ import annotations

import json
import typing
from typing import Any

import httpx
from openai.types.responses import ResponseStreamEvent

from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.script import Call, Reply, StreamError

KEY = {"authorization": "Bearer sk-test"}
TOOL = {"type": "function", "name": "read", "description": "Read", "parameters": {"type": "object", "properties": {}}, "strict": False}


def _event_models() -> dict[str, Any]:
    union = typing.get_args(ResponseStreamEvent)[0]
    return {typing.get_args(model.model_fields["type"].annotation)[0]: model for model in typing.get_args(union)}


EVENT_MODELS = _event_models()


def _body(items: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    base = {"model": "gpt-5", "input": items, "tools": [TOOL], "store": False, "stream": True}
    return {**base, "reasoning": {"effort": "low", "summary": "auto"}, "include": ["reasoning.encrypted_content"], **extra}


def _post(server: FakeOpenAIServer, body: Any) -> httpx.Response:
    with httpx.Client(timeout=5) as client:
        return client.post(f"{server.url}/responses", json=body, headers=KEY)


def _events(response: httpx.Response) -> list[dict[str, Any]]:
    out = []
    for block in response.text.split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "data" in lines:
            event = json.loads(lines["data"])
            assert lines["event"] == event["type"]
            out.append(event)
    return out


def _error(server: FakeOpenAIServer, items: list[dict[str, Any]], **extra: Any) -> str:
    response = _post(server, _body(items, **extra))
    assert response.status_code == 400, response.text
    return str(response.json()["error"]["message"])


USER = {"role": "user", "content": "hi"}
CALL = {"type": "function_call", "call_id": "call_a", "name": "read", "arguments": "{}"}
OUTPUT = {"type": "function_call_output", "call_id": "call_a", "output": "text"}


def test_every_event_parses_as_the_sdk_models_in_the_real_order() -> None:
    reply = Reply(text="Hi there", thinking="Say hi.", reasoning_tokens=12, cache_read_tokens=5, calls=(Call("read", '{"path": "a"}'),))
    with FakeOpenAIServer([reply]) as server:
        events = _events(_post(server, _body([USER])))
    for event in events:
        EVENT_MODELS[event["type"]].model_validate(event, strict=False)
    kinds = [event["type"] for event in events]
    assert kinds[:3] == ["response.created", "response.in_progress", "response.output_item.added"]
    assert kinds[-1] == "response.completed"
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert (
        kinds.index("response.reasoning_summary_text.delta") < kinds.index("response.output_text.delta") < kinds.index("response.function_call_arguments.delta")
    )
    usage = events[-1]["response"]["usage"]
    assert usage["output_tokens_details"]["reasoning_tokens"] == 12 and usage["output_tokens"] == 32
    assert usage["input_tokens_details"]["cached_tokens"] == 5
    reasoning = next(e["item"] for e in events if e["type"] == "response.output_item.done" and e["item"]["type"] == "reasoning")
    assert reasoning["encrypted_content"] in server.issued
    assert [item["type"] for item in events[-1]["response"]["output"]] == ["reasoning", "message", "function_call"]


def test_without_include_or_summary_the_reasoning_item_is_bare() -> None:
    with FakeOpenAIServer([Reply(text="ok", thinking="secret")]) as server:
        events = _events(_post(server, {"model": "o3", "input": "hi", "store": False, "stream": True}))
    done = next(e["item"] for e in events if e["type"] == "response.output_item.done")
    assert done == {"id": done["id"], "type": "reasoning", "summary": []}
    assert "response.reasoning_summary_text.delta" not in [e["type"] for e in events]


def test_a_function_call_without_its_output_is_refused() -> None:
    with FakeOpenAIServer([]) as server:
        assert _error(server, [USER, CALL]) == "No tool output found for function call call_a."


def test_an_output_without_its_call_is_refused() -> None:
    with FakeOpenAIServer([]) as server:
        assert _error(server, [USER, OUTPUT]) == "No tool call found for function call output with call_id call_a."


def test_a_reasoning_item_not_followed_by_an_output_item_is_refused() -> None:
    with FakeOpenAIServer([Reply(text="ok", thinking="t")]) as server:
        events = _events(_post(server, _body([USER])))
        issued = next(e["item"] for e in events if e["type"] == "response.output_item.done")
        item = {"type": "reasoning", "summary": issued["summary"], "encrypted_content": issued["encrypted_content"]}
        assert "without its required following item" in _error(server, [USER, item, USER])
        assert "without its required following item" in _error(server, [USER, CALL, item, OUTPUT])
        assert _post(server, _body([USER, item, CALL, OUTPUT])).status_code == 200


def test_item_ids_name_nothing_when_store_is_false() -> None:
    with FakeOpenAIServer([]) as server:
        assert "Items are not persisted when `store` is set to false" in _error(server, [USER, {**CALL, "id": "fc_1"}, OUTPUT])


def test_chat_fields_strict_schemas_and_reasoning_on_a_plain_model_are_refused() -> None:
    with FakeOpenAIServer([]) as server:
        assert _error(server, [USER], messages=[USER]) == "Unknown parameter: 'messages'."
        assert _error(server, [USER], max_tokens=10) == "Unknown parameter: 'max_tokens'."
        assert "'additionalProperties' is required" in _error(server, [USER], tools=[{**TOOL, "strict": None}])
        assert "not supported with this model" in _error(server, [USER], model="gpt-4.1")
        assert "set 'store' to false" in _error(server, [USER], store=True)


def test_the_chat_endpoint_refuses_responses_fields() -> None:
    with FakeOpenAIServer([]) as server, httpx.Client(timeout=5) as client:
        body = {"model": "gpt-4.1", "messages": [USER], "reasoning": {"effort": "low"}}
        response = client.post(f"{server.url}/chat/completions", json=body, headers=KEY)
    assert response.status_code == 400
    assert response.json()["error"]["message"] == "Unrecognized request argument supplied: reasoning"


def test_failed_error_and_incomplete_endings_parse_as_the_sdk_models() -> None:
    steps = [
        StreamError(Reply(text="partial"), after_deltas=1),
        StreamError(Reply(text="x"), error_type="rate_limit_error"),
        Reply(thinking="t", stop_reason="max_tokens"),
    ]
    with FakeOpenAIServer(steps) as server:
        endings = []
        for _ in steps:
            events = _events(_post(server, _body([USER])))
            for event in events:
                EVENT_MODELS[event["type"]].model_validate(event)
            endings.append(events[-1]["type"])
    assert endings == ["response.failed", "error", "response.incomplete"]


def test_encrypted_reasoning_is_readable_only_by_the_model_that_wrote_it() -> None:
    with FakeOpenAIServer([Reply(text="ok", thinking="t")]) as server:
        events = _events(_post(server, _body([USER])))
        issued = next(e["item"] for e in events if e["type"] == "response.output_item.done")
        item = {"type": "reasoning", "summary": [], "encrypted_content": issued["encrypted_content"]}
        assert "could not be decrypted" in _error(server, [USER, item, CALL, OUTPUT], model="o3")


def test_unknown_fields_inside_an_item_are_refused() -> None:
    with FakeOpenAIServer([]) as server:
        assert _error(server, [USER, {**CALL, "model": "gpt-5"}, OUTPUT]) == "Unknown parameter: 'input[1].model'."
        reasoning = {"type": "reasoning", "summary": [], "encrypted_content": "x", "status": "completed"}
        assert _error(server, [USER, reasoning, CALL, OUTPUT]) == "Unknown parameter: 'input[1].status'."
