"""The sandbox as a user meets it: the real CLI, a scripted model that runs commands, the real bubblewrap."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.support import cli_env, fake_server, run_cli
from tests.fakes.script import Call, Reply
from tests.sandbox.support import real_sandbox

pytestmark = pytest.mark.slow


def model_runs(tmp_path: Path, workspace: Path, command: str, *flags: str, settings: dict[str, Any] | None = None) -> tuple[str, Any]:
    """The tool result the model got back after asking for ``command``, and the CLI's finished process."""
    real_sandbox(workspace)
    home = tmp_path / "home"
    if settings is not None:
        home.mkdir(exist_ok=True)
        (home / "settings.json").write_text(json.dumps(settings))
    script = [Reply(text="Running.", calls=(Call("run_command", json.dumps({"command": command})),)), Reply(text="Done.")]
    with fake_server("anthropic", script) as server:
        env = {**cli_env("anthropic", server.url, home), "TMPDIR": str(tmp_path / "tmp")}
        proc = run_cli(["-p", "go", "--output-format", "json", *flags], workspace, env)
        assert server.rejections == []
        second = server.requests[1]
    results = [b for m in second["messages"] if m["role"] == "user" and isinstance(m["content"], list) for b in m["content"] if b.get("type") == "tool_result"]
    content = results[-1]["content"]
    text = content if isinstance(content, str) else "".join(block.get("text", "") for block in content)
    return text, proc


@pytest.mark.parametrize("sandbox", [[], ["--sandbox", "workspace-write"], ["--sandbox", "read-only"]])
def test_bypass_mode_never_lets_a_command_write_outside_the_workspace(tmp_path: Path, workspace: Path, outside: Path, sandbox: list[str]) -> None:
    text, proc = model_runs(tmp_path, workspace, f"echo owned > {outside}/canary", "--dangerously-skip-permissions", *sandbox)
    assert proc.returncode == 0, proc.stderr
    assert not (outside / "canary").exists()
    assert "[exit code 1]" in text


def test_only_sandbox_off_lets_it_through(tmp_path: Path, workspace: Path, outside: Path) -> None:
    model_runs(tmp_path, workspace, f"echo owned > {outside}/canary", "--dangerously-skip-permissions", "--sandbox", "off")
    assert (outside / "canary").read_text() == "owned\n"


def test_a_read_deny_rule_masks_the_file_for_commands(tmp_path: Path, workspace: Path) -> None:
    (workspace / ".env").write_text("TOKEN=CANARY-91c2\n")
    settings = {"permissions": {"deny": ["Read(**/.env)"]}}
    text, _ = model_runs(
        tmp_path, workspace, "grep -r CANARY . ; cat .e?v; python3 -c \"print(open('.env').read())\"", "--permission-mode", "bypass", settings=settings
    )
    assert "CANARY-91c2" not in text


def test_a_project_settings_file_cannot_turn_the_sandbox_off(tmp_path: Path, workspace: Path, outside: Path) -> None:
    (workspace / ".pseudoclaude").mkdir()
    (workspace / ".pseudoclaude/settings.json").write_text(json.dumps({"sandbox": {"mode": "off", "network": "all"}}))
    _, proc = model_runs(tmp_path, workspace, f"touch {outside}/canary", "--dangerously-skip-permissions", "--trust-workspace")
    assert not (outside / "canary").exists()
    assert "may only tighten the sandbox" in proc.stderr


def test_a_bad_sandbox_setting_is_one_line_and_exit_2(tmp_path: Path, workspace: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"sandbox": {"mode": "sometimes"}}))
    proc = run_cli(["-p", "go"], workspace, cli_env("anthropic", "http://127.0.0.1:9", home))
    assert proc.returncode == 2 and "unknown sandbox mode 'sometimes'" in proc.stderr


def test_an_unknown_sandbox_flag_value_is_refused(tmp_path: Path, workspace: Path) -> None:
    proc = run_cli(["-p", "go", "--sandbox", "loose"], workspace, cli_env("anthropic", "http://127.0.0.1:9", tmp_path / "home"))
    assert proc.returncode == 2 and "--sandbox" in proc.stderr
