"""The fake Anthropic server's context management, checked with raw requests and with the SDK's own stream accumulator.

The shapes come from the SDK's beta types: an edit that type-checks as the SDK's ``BetaContextManagementConfigParam``
is taken, a wrong one is a 400; the compaction block streams as the SDK's ``BetaMessageStream`` folds it.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from anthropic import Anthropic

from tests.fakes.anthropic_context_rules import COMPACT_BETA, EDITING_BETA, CLEARED, compaction_signature
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.script import Call, Reply

MODEL = "claude-sonnet-4-6"
BOTH = f"{EDITING_BETA},{COMPACT_BETA}"
HEADERS = {"x-api-key": "sk-test", "anthropic-version": "2023-06-01", "content-type": "application/json", "anthropic-beta": BOTH}
COMPACT_EDIT = {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50_000}, "instructions": "nine sections"}


def body(edits: list[dict[str, Any]], messages: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "model": MODEL,
        "max_tokens": 1024,
        "stream": True,
        "context_management": {"edits": edits},
        "messages": messages if messages is not None else [{"role": "user", "content": "hello"}],
        **extra,
    }


def post(server: FakeAnthropicServer, payload: dict[str, Any], headers: dict[str, str] = HEADERS) -> httpx.Response:
    return httpx.post(f"{server.url}/v1/messages", content=json.dumps(payload).encode(), headers=headers, timeout=5)


@pytest.mark.parametrize(
    ("edits", "headers", "said"),
    [
        ([COMPACT_EDIT], {**HEADERS, "anthropic-beta": EDITING_BETA}, "requires the anthropic-beta header compact-2026-01-12"),
        (
            [{"type": "clear_tool_uses_20250919", "keep": {"type": "tool_uses", "value": 3}}],
            {**HEADERS, "anthropic-beta": COMPACT_BETA},
            "context-management-2025-06-27",
        ),
        ([{**COMPACT_EDIT, "trigger": {"type": "input_tokens", "value": 1000}}], HEADERS, "at least 50000"),
        ([{"type": "clear_tool_uses_20250919", "keep": 3}], HEADERS, "keep"),
        ([{**COMPACT_EDIT, "pause": True}], HEADERS, "Extra inputs"),
        ([{"type": "clear_tool_uses_20250919"}, {"type": "clear_thinking_20251015", "keep": "all"}], HEADERS, "must be the first edit"),
        ([{"type": "compact_20990101"}], HEADERS, "does not match"),
    ],
)
def test_a_malformed_edit_or_a_missing_beta_header_is_refused(edits: list[dict[str, Any]], headers: dict[str, str], said: str) -> None:
    with FakeAnthropicServer([Reply(text="never")]) as server:
        response = post(server, body(edits), headers)
    assert response.status_code == 400 and said in response.json()["error"]["message"]
    assert server.cursor.position == 0, "a rejected request consumes no step"


def test_a_model_without_the_strategy_is_refused() -> None:
    with FakeAnthropicServer([Reply(text="never")]) as server:
        response = post(server, {**body([COMPACT_EDIT]), "model": "claude-3-5-sonnet-latest"})
    assert response.status_code == 400 and "not supported by model" in response.json()["error"]["message"]


def test_the_compaction_streams_as_the_sdk_accumulates_it_and_the_usage_counts_it() -> None:
    script = [Reply(text="Carrying on.", calls=(Call("grep", "{}"),), input_tokens=60_000)]
    with FakeAnthropicServer(script) as server:
        with (
            Anthropic(api_key="sk-test", base_url=server.url, max_retries=0) as client,
            client.beta.messages.stream(
                model=MODEL,
                max_tokens=1024,
                messages=[{"role": "user", "content": "fix the parser"}],
                betas=[EDITING_BETA, COMPACT_BETA],
                context_management={"edits": [COMPACT_EDIT]},
                tools=[{"name": "grep", "input_schema": {"type": "object"}}],
            ) as stream,
        ):
            message = stream.get_final_message()
    block = message.content[0]
    assert block.type == "compaction" and block.content and block.signature == compaction_signature(block.content)
    assert [b.type for b in message.content[1:]] == ["text", "tool_use"]
    assert message.context_management is not None and message.context_management.applied_edits == []
    kinds = [item.type for item in message.usage.iterations or ()]
    assert kinds == ["compaction", "message"]


def test_a_compaction_block_must_open_the_conversation_once_and_unedited() -> None:
    content = "Summary: the parser."
    block = {"type": "compaction", "content": content, "signature": compaction_signature(content)}
    opened = [{"role": "assistant", "content": [block, {"type": "text", "text": "ok"}]}, {"role": "user", "content": "go on"}]
    late = [{"role": "user", "content": "hi"}, *opened]
    edited = [{"role": "assistant", "content": [{**block, "content": "Summary: something else."}]}, {"role": "user", "content": "go on"}]
    with FakeAnthropicServer([Reply(text="fine")]) as server:
        assert post(server, body([COMPACT_EDIT], opened)).status_code == 200
        misplaced, mismatch = post(server, body([COMPACT_EDIT], late)), post(server, body([COMPACT_EDIT], edited))
        without_beta = post(server, {k: v for k, v in body([], opened).items() if k != "context_management"}, {**HEADERS, "anthropic-beta": ""})
    assert "compaction_block_misplaced" in misplaced.json()["error"]["message"]
    assert "compaction_content_mismatch" in mismatch.json()["error"]["message"]
    assert without_beta.status_code == 400 and COMPACT_BETA in without_beta.json()["error"]["message"]


def test_clearing_replaces_the_oldest_results_only_when_enough_goes() -> None:
    def turns(size: int) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [{"role": "user", "content": "start"}]
        for n in range(5):
            out.append({"role": "assistant", "content": [{"type": "tool_use", "id": f"toolu_{n}", "name": "grep", "input": {}}]})
            out.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": "x" * size}]})
        return out

    edit = {"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": 1000}, "keep": {"type": "tool_uses", "value": 3}}
    with FakeAnthropicServer([Reply(text="a"), Reply(text="b")]) as server:
        post(server, body([{**edit, "clear_at_least": {"type": "input_tokens", "value": 100_000}}], turns(4000)))
        post(server, body([{**edit, "clear_at_least": {"type": "input_tokens", "value": 1000}}], turns(4000)))
    held, cleared = server.applied
    assert held.edits == [] and CLEARED not in json.dumps(held.body)
    assert cleared.edits[0]["cleared_tool_uses"] == 2 and json.dumps(cleared.body).count(CLEARED) == 2
