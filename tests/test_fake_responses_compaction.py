"""The fake Responses endpoint compacts as the service does: at the threshold, opaquely, and counts from the item after.

Over HTTP, events parsed by the SDK's own models (``ResponseStreamEvent``, ``ResponseCompactionItem``).
"""

from __future__ import annotations

import json
import typing
from typing import Any

import httpx
from openai.types.responses import ResponseCompactionItem, ResponseStreamEvent

from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.script import Reply

KEY = {"Authorization": "Bearer test"}
EVENTS = {typing.get_args(m.model_fields["type"].annotation)[0]: m for m in typing.get_args(typing.get_args(ResponseStreamEvent)[0])}
LONG = {"role": "user", "content": "x" * 40_000}


def _body(items: list[dict[str, Any]], threshold: int | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "gpt-6.2-sol", "input": items, "store": False, "stream": True}
    if threshold is not None:
        body["context_management"] = [{"type": "compaction", "compact_threshold": threshold}]
    return body


def _post(server: FakeOpenAIServer, body: dict[str, Any]) -> tuple[int, list[Any]]:
    with httpx.Client(timeout=5) as client:
        response = client.post(f"{server.url}/responses", json=body, headers=KEY)
    if response.status_code != 200:
        return response.status_code, [response.json()["error"]]
    events = []
    for block in response.text.split("\n\n"):
        data = next((line[6:] for line in block.splitlines() if line.startswith("data: ")), None)
        if data:
            event = json.loads(data)
            events.append(EVENTS[event["type"]].model_validate(event))
    return 200, events


def _completed(events: list[Any]) -> Any:
    return next(e for e in events if e.type == "response.completed").response


def test_the_threshold_is_honoured_and_the_compaction_item_comes_first_then_the_reply_from_the_compacted_prompt() -> None:
    with FakeOpenAIServer([Reply(text="below"), Reply(text="above")], summarize=lambda body: "the state so far") as server:
        _, below = _post(server, _body([LONG], threshold=20_000))
        _, above = _post(server, _body([LONG], threshold=9_000))
    assert [item.type for item in _completed(below).output] == ["reasoning", "message"]
    response = _completed(above)
    assert [item.type for item in response.output] == ["compaction", "reasoning", "message"]
    compaction = ResponseCompactionItem.model_validate(response.output[0].model_dump())
    assert "the state so far" not in compaction.encrypted_content, "opaque: the state is not readable"
    assert response.usage.input_tokens < _completed(below).usage.input_tokens / 10, "the reply was sampled from the compacted prompt"
    assert server.applied[1].summarized is not None and server.applied[0].summarized is None


def test_after_a_compaction_the_window_counts_only_from_the_latest_item_as_the_state_it_carries() -> None:
    with FakeOpenAIServer(
        [Reply(text="compacted"), Reply(text="on"), Reply(text="never")], context_window=12_000, summarize=lambda body: "s" * 8_000
    ) as server:
        _, events = _post(server, _body([LONG], threshold=9_000))
        item = {"type": "compaction", "encrypted_content": _completed(events).output[0].encrypted_content}
        carried, _ = _post(server, _body([LONG, LONG, item, {"role": "user", "content": "go on"}]))
        heavy = {"role": "user", "content": "y" * 44_000}
        over, error = _post(server, _body([item, heavy]))
        whole, _ = _post(server, _body([LONG, LONG, {"role": "user", "content": "go on"}]))
    assert carried == 200, "what came before the latest compaction item is not rendered"
    assert server.applied[1].tokens >= 2_000, "the item counts as the state it carries, not its ciphertext"
    assert over == 400 and error[0]["code"] == "context_length_exceeded", "the state plus what follows it must fit"
    assert whole == 400, "without the item the whole input counts"


def test_a_compaction_item_whose_content_this_server_did_not_issue_is_refused() -> None:
    with FakeOpenAIServer([Reply(text="never")]) as server:
        status, error = _post(server, _body([{"type": "compaction", "encrypted_content": "gAAAAAforged"}, {"role": "user", "content": "hi"}]))
    assert status == 400 and error[0]["code"] == "invalid_encrypted_content"
