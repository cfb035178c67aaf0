"""Approvals follow the boundary, through the real CLI on the real bubblewrap (issue 26)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.sandbox.test_cli import model_runs

pytestmark = pytest.mark.slow


def test_headless_default_mode_runs_a_command_in_the_sandbox_without_a_question(tmp_path: Path, workspace: Path) -> None:
    text, proc = model_runs(tmp_path, workspace, "touch made-by-agent && echo made")
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "made-by-agent").exists() and "made" in text
    assert json.loads(proc.stdout)["permission_denials"] == []


def test_headless_a_command_the_sandbox_blocked_is_denied_naming_the_way_out(tmp_path: Path, workspace: Path, outside: Path) -> None:
    text, proc = model_runs(tmp_path, workspace, f"echo owned > {outside}/canary")
    assert proc.returncode == 0, proc.stderr
    assert not (outside / "canary").exists()
    last = text.strip().splitlines()[-1]
    assert last.startswith("Blocked by the sandbox:") and "--sandbox off" in last and "sandbox.excludedCommands" in last
    (denial,) = json.loads(proc.stdout)["permission_denials"]
    assert denial["tool_name"] == "Bash"


def test_an_ask_rule_still_asks_in_the_sandbox(tmp_path: Path, workspace: Path) -> None:
    settings = {"permissions": {"ask": ["Bash(touch:*)"]}}
    text, proc = model_runs(tmp_path, workspace, "touch asked", settings=settings)
    assert proc.returncode == 0, proc.stderr
    assert not (workspace / "asked").exists() and "ask rule" in text
