"""Which sandbox a machine gives, and the one line saying why when it gives none."""

from __future__ import annotations

from pathlib import Path

import pytest

from pseudoclaude.sandbox import SandboxConfig, detect_sandbox
from tests.sandbox.support import real_sandbox


def test_bubblewrap_is_used_where_it_runs(workspace: Path) -> None:
    status = real_sandbox(workspace).status
    assert (status.kind, status.mode, status.network, status.available) == ("bubblewrap", "workspace-write", "off", True)
    assert "no network" in status.detail


def test_off_is_no_sandbox_by_the_users_choice(workspace: Path) -> None:
    sandbox, status = detect_sandbox(SandboxConfig(mode="off"), workspace)
    assert sandbox is None and status.kind == "none" and "off" in status.detail


def test_without_bwrap_on_the_path_there_is_none_and_the_reason_says_so(workspace: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    sandbox, status = detect_sandbox(SandboxConfig(), workspace)
    assert sandbox is None and not status.available and "bubblewrap (bwrap) is not installed" in status.detail
