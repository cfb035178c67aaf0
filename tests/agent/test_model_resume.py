"""A resume goes on with the session's last ``/model`` switch, provider included; an explicit ``--model`` on the resume wins."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pseudoclaude.agent import Agent
from pseudoclaude.agent.build import build_agent
from pseudoclaude.config import Flags, load_settings


def open_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, openai_key: bool, resume_id: str | None = None, **flags: object) -> Agent:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k-anthropic")
    monkeypatch.setenv("PSEUDOCLAUDE_HOME", str(tmp_path / "home"))
    if openai_key:
        monkeypatch.setenv("OPENAI_API_KEY", "k-openai")
    else:
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return build_agent(load_settings(tmp_path, Flags(**flags)), resume_id=resume_id)  # type: ignore[arg-type]


def switched_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A session started on Claude that switched to gpt-4o (openai) with ``/model``."""
    agent = open_agent(tmp_path, monkeypatch, openai_key=True)
    agent.set_model("gpt-4o", "openai")
    session_id = agent.facts.session_id
    asyncio.run(agent.aclose())
    return session_id


def closed(agent: Agent) -> tuple[str, str, tuple[str, ...]]:
    try:
        return agent.current.model, agent.current.provider, agent.facts.replay_warnings
    finally:
        asyncio.run(agent.aclose())


def test_a_resume_goes_on_with_the_recorded_switch_to_another_provider(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session_id = switched_session(tmp_path, monkeypatch)
    model, provider, _ = closed(open_agent(tmp_path, monkeypatch, openai_key=True, resume_id=session_id))
    assert (model, provider) == ("gpt-4o", "openai")


@pytest.mark.parametrize("recorded", [("gpt-4o", "openai"), ("claude-opus-4-1", "anthropic")])
def test_an_explicit_model_on_the_resume_wins_over_the_recorded_switch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, recorded: tuple[str, str]) -> None:
    agent = open_agent(tmp_path, monkeypatch, openai_key=True)
    agent.set_model(*recorded)
    session_id = agent.facts.session_id
    asyncio.run(agent.aclose())
    model, provider, _ = closed(open_agent(tmp_path, monkeypatch, openai_key=True, resume_id=session_id, model="claude-haiku-4-5"))
    assert (model, provider) == ("claude-haiku-4-5", "anthropic")


def test_without_the_recorded_providers_key_the_resume_warns_and_keeps_the_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session_id = switched_session(tmp_path, monkeypatch)
    model, provider, warnings = closed(open_agent(tmp_path, monkeypatch, openai_key=False, resume_id=session_id))
    assert provider == "anthropic" and model.startswith("claude")
    assert any("gpt-4o" in warning and "OPENAI_API_KEY" in warning for warning in warnings), warnings


def test_a_same_provider_switch_is_kept_and_the_later_switch_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = open_agent(tmp_path, monkeypatch, openai_key=False)
    agent.set_model("claude-opus-4-1", "anthropic")
    agent.set_model("claude-haiku-4-5", "anthropic")
    session_id = agent.facts.session_id
    asyncio.run(agent.aclose())
    model, provider, _ = closed(open_agent(tmp_path, monkeypatch, openai_key=False, resume_id=session_id))
    assert (model, provider) == ("claude-haiku-4-5", "anthropic")


def test_an_effort_switch_survives_a_resume_unless_the_resume_sets_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = open_agent(tmp_path, monkeypatch, openai_key=False, effort="high")
    agent.set_effort("low")
    session_id = agent.facts.session_id
    asyncio.run(agent.aclose())
    resumed = open_agent(tmp_path, monkeypatch, openai_key=False, resume_id=session_id)
    try:
        assert resumed.current.effort == "low"
        resumed.set_effort(None)
    finally:
        asyncio.run(resumed.aclose())
    off = open_agent(tmp_path, monkeypatch, openai_key=False, resume_id=session_id)
    try:
        assert off.current.effort is None, "/effort off is a choice too"
    finally:
        asyncio.run(off.aclose())
    flagged = open_agent(tmp_path, monkeypatch, openai_key=False, resume_id=session_id, effort="max")
    try:
        assert flagged.current.effort == "max"
    finally:
        asyncio.run(flagged.aclose())


def test_a_session_that_never_chose_an_effort_resumes_with_the_settings_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = open_agent(tmp_path, monkeypatch, openai_key=False)
    session_id = agent.facts.session_id
    asyncio.run(agent.aclose())
    monkeypatch.setenv("PSEUDOCLAUDE_EFFORT", "medium")
    resumed = open_agent(tmp_path, monkeypatch, openai_key=False, resume_id=session_id)
    try:
        assert resumed.current.effort == "medium"
    finally:
        asyncio.run(resumed.aclose())


def test_a_mode_switch_survives_a_resume_but_bypass_needs_its_flag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pseudoclaude.tools.permissions import PermissionMode

    agent = open_agent(tmp_path, monkeypatch, openai_key=False)
    agent.set_mode(PermissionMode.PLAN)
    session_id = agent.facts.session_id
    asyncio.run(agent.aclose())
    planning = open_agent(tmp_path, monkeypatch, openai_key=False, resume_id=session_id)
    try:
        assert planning.current.mode is PermissionMode.PLAN
        planning.set_mode(PermissionMode.BYPASS)
    finally:
        asyncio.run(planning.aclose())
    resumed = open_agent(tmp_path, monkeypatch, openai_key=False, resume_id=session_id)
    try:
        assert resumed.current.mode is PermissionMode.DEFAULT
        assert any("bypass" in warning and "--dangerously-skip-permissions" in warning for warning in resumed.facts.replay_warnings)
    finally:
        asyncio.run(resumed.aclose())
    explicit = open_agent(tmp_path, monkeypatch, openai_key=False, resume_id=session_id, permission_mode="accept-edits")
    try:
        assert explicit.current.mode is PermissionMode.ACCEPT_EDITS
    finally:
        asyncio.run(explicit.aclose())
