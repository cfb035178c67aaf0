"""The agent a session builds carries its sandbox: its status, the masks from deny rules, a notice when there is none."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from pseudoclaude.agent import Agent, build_agent
from pseudoclaude.config import Flags, load_settings
from tests.sandbox.support import real_sandbox


def agent_for(tmp_path: Path, settings: dict[str, Any] | None = None, **flags: Any) -> Agent:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / "settings.json").write_text(json.dumps(settings or {}))
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    return build_agent(load_settings(workspace, Flags(**flags), environ={"ANTHROPIC_API_KEY": "k", "PSEUDOCLAUDE_HOME": str(home)}))


def test_a_session_runs_its_commands_in_bubblewrap_whatever_the_permission_mode(tmp_path: Path) -> None:
    real_sandbox(tmp_path)
    agent = agent_for(tmp_path, permission_mode="bypass")
    try:
        assert agent.facts.sandbox is not None and (agent.facts.sandbox.kind, agent.facts.sandbox.mode) == ("bubblewrap", "workspace-write")
        assert agent.facts.sandbox_notice is None
    finally:
        asyncio.run(agent.aclose())


def test_sandbox_off_is_no_sandbox_and_no_notice(tmp_path: Path) -> None:
    agent = agent_for(tmp_path, sandbox="off")
    try:
        assert agent.facts.sandbox is not None and agent.facts.sandbox.kind == "none" and agent.facts.sandbox_notice is None
    finally:
        asyncio.run(agent.aclose())


def test_with_no_sandbox_available_the_notice_says_why_and_that_approvals_stay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    agent = agent_for(tmp_path)
    try:
        notice = agent.facts.sandbox_notice or ""
        assert notice.startswith("no sandbox: bubblewrap (bwrap) is not installed") and "still asks" in notice
    finally:
        asyncio.run(agent.aclose())
