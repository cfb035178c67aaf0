"""A broken settings file is refused before anything is written: one line naming the file, exit 2, no session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pseudoclaude.session import is_session_id
from tests.e2e.support import cli_env, fake_server, run_cli

pytestmark = pytest.mark.slow


def test_a_malformed_permission_rule_gives_one_line_exit_2_and_no_session(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    settings = ws / ".pseudoclaude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"permissions": {"deny": ["read_file", "run_command(git status"]}}))
    with fake_server("anthropic", []) as server:
        proc = run_cli(["-p", "hello"], ws, cli_env("anthropic", server.url, home))
        assert server.requests == []
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2, proc.stderr
    assert len(lines) == 1 and lines[0].startswith("pseudoclaude: ") and str(settings) in lines[0], proc.stderr
    assert "run_command(git status" in lines[0]
    left = [path for path in (home / "sessions").rglob("*") if path.is_dir() and is_session_id(path.name)]
    assert left == [], "a session folder was left behind"
