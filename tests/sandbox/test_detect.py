"""Which sandbox a machine gives, and the one line saying why when it gives none."""

from __future__ import annotations

from pathlib import Path

import pytest

from pseudoclaude.sandbox import SandboxConfig, SandboxLimits, detect_sandbox
from pseudoclaude.sandbox.detect import probe
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


def test_the_probe_runs_bwrap_with_the_path_alone(workspace: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The probe runs before any session exists, so before the commands' environment is built: it gets PATH and
    nothing else of ours (no provider key, no variable at all that could hold a secret)."""
    seen = tmp_path / "bwrap-env"
    fake = tmp_path / "bin" / "bwrap"
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\nenv > "{seen}"\nexit 0\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:/usr/bin:/bin")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-" + "k" * 30)
    probe.cache_clear()
    try:
        assert probe(str(fake)) == ""
    finally:
        probe.cache_clear()
    names = {line.split("=", 1)[0] for line in seen.read_text().splitlines()}
    assert names - {"PWD", "SHLVL", "_"} == {"PATH"}  # (what sh itself sets)


def test_before_any_command_the_status_names_the_configured_limits(workspace: Path) -> None:
    limits = SandboxLimits(processes=77, file_bytes=96 << 20)
    detail = real_sandbox(workspace, limits=limits).status.detail
    assert "limits per command: 77 processes, memory, files of 96 MiB" in detail
