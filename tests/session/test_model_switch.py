"""A session remembers a /model switch, and prices each recorded call at the model that served it."""

from __future__ import annotations

from pathlib import Path

import pytest

from pseudoclaude.llm import Usage, request_cost
from pseudoclaude.session import create_session, load_replay


def test_each_call_is_priced_at_its_own_model_and_the_switch_is_replayed(tmp_path: Path) -> None:
    workspace, sessions = tmp_path / "ws", tmp_path / "sessions"
    workspace.mkdir()
    session = create_session(sessions, workspace, model="claude-sonnet-4-5", provider="anthropic")
    usage = Usage(input_tokens=10_000, output_tokens=1_000)
    session.append_usage(usage, context_messages=0, model="claude-sonnet-4-5")
    session.append_model("claude-opus-4-1")
    session.append_usage(usage, context_messages=0, model="claude-opus-4-1")
    session.close()
    replay = load_replay(session.jsonl_path)
    sonnet, opus = request_cost("claude-sonnet-4-5", usage), request_cost("claude-opus-4-1", usage)
    assert sonnet is not None and opus is not None and opus > sonnet
    assert replay.model == "claude-opus-4-1"
    assert replay.cost_usd == pytest.approx(sonnet + opus) and replay.unpriced_calls == 0


def test_a_call_to_an_unknown_model_has_no_price_rather_than_zero(tmp_path: Path) -> None:
    workspace, sessions = tmp_path / "ws", tmp_path / "sessions"
    workspace.mkdir()
    session = create_session(sessions, workspace, model="foo-bar-9", provider="anthropic")
    session.append_usage(Usage(input_tokens=5, output_tokens=5), context_messages=0)
    session.close()
    replay = load_replay(session.jsonl_path)
    assert request_cost("foo-bar-9", Usage(input_tokens=5)) is None
    assert replay.unpriced_calls == 1 and replay.cost_usd == 0.0 and replay.model == ""
