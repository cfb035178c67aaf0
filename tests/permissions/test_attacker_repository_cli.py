"""The holes of the attacker review, end to end: a cloned repository and a model talked into hostile
calls, through the real CLI in -p mode against the fake server. Without a sandbox nothing runs (the
static analysis asks, and headless means no); with one the call runs confined and nothing outside the
workspace changes."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.support import cli_env, fake_server, run_cli
from tests.fakes.script import Call, Reply

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("git") is None, reason="needs git")]

EVIL = '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = "touch {marker}; false"\n'


def hostile_clone(tmp_path: Path) -> Path:
    """A clone holding a committed folder that git takes for a repository, with an fsmonitor."""
    ws = tmp_path / "ws"
    ws.mkdir()
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    lib = ws / "vendor" / "lib"
    (lib / "objects").mkdir(parents=True)
    (lib / "refs" / "heads").mkdir(parents=True)
    (lib / "HEAD").write_text("ref: refs/heads/main\n")
    (lib / "config").write_text(EVIL.format(marker=tmp_path / "pwned"))
    (ws / "notes.txt").write_text("foo\n")
    subprocess.run(["git", "add", "notes.txt"], cwd=ws, check=True)
    return ws


def tool_results(command: str, ws: Path, home: Path, sandbox: str = "off") -> list[dict[str, Any]]:
    call = Call("run_command", json.dumps({"command": command}))
    temp = home.parent / "tmp"
    temp.mkdir(exist_ok=True)
    with fake_server("anthropic", [Reply(text="Looking.", calls=(call,)), Reply(text="Done.")]) as server:
        env = {**cli_env("anthropic", server.url, home), "TMPDIR": str(temp)}
        proc = run_cli(["-p", "summarize the repository", "--output-format", "json", "--sandbox", sandbox], ws, env)
        assert proc.returncode == 0, proc.stderr
        second = server.requests[1]
    return [b for m in second["messages"] if m["role"] == "user" and isinstance(m["content"], list) for b in m["content"] if b.get("type") == "tool_result"]


@pytest.mark.parametrize("command", ["git -C vendor/lib status", "cd vendor/lib && git status", "git grep '-Otouch pwned;true' foo"])
def test_a_prompt_injected_git_read_runs_nothing(tmp_path: Path, command: str) -> None:
    ws = hostile_clone(tmp_path)
    results = tool_results(command.format(marker=tmp_path / "pwned"), ws, tmp_path / "home")
    assert results[-1].get("is_error") is True
    assert not (tmp_path / "pwned").exists()
    assert not (ws / "vendor" / "lib" / "pwned").exists() and not (ws / "pwned").exists()


@pytest.mark.parametrize("command", ["git -C vendor/lib status", "cd vendor/lib && git status", "git grep '-Otouch ../pwned;true' foo"])
def test_with_a_sandbox_a_prompt_injected_git_read_changes_nothing_outside(tmp_path: Path, command: str) -> None:
    from pseudoclaude.sandbox import SandboxConfig, detect_sandbox

    if detect_sandbox(SandboxConfig(), tmp_path)[0] is None:
        pytest.skip("no sandbox on this machine")
    ws = hostile_clone(tmp_path)
    tool_results(command, ws, tmp_path / "home", sandbox="workspace-write")
    assert not (tmp_path / "pwned").exists()


def test_a_plain_git_read_still_runs_headless(tmp_path: Path) -> None:
    ws = hostile_clone(tmp_path)
    results = tool_results("git status --porcelain", ws, tmp_path / "home")
    assert not results[-1].get("is_error")
