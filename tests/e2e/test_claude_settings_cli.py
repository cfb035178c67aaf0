"""Claude Code's settings files through the real CLI: a team's ``.claude/settings.json`` guard hook and deny
rules hold, a user's ``~/.claude/settings.json`` hook runs, an untrusted project's hook does not, and Claude
Code's model and gateway variables are read (issue 27 item 1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.support import cli_env, run_cli
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.script import Call, Reply

pytestmark = pytest.mark.slow

GUARD = """#!/bin/bash
input=$(cat)
case "$input" in
  *'rm -rf'*) echo 'rm -rf is blocked by the team guard' >&2; exit 2 ;;
esac
exit 0
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "repo"
    (ws / ".claude").mkdir(parents=True)
    (ws / "junk").mkdir()
    (ws / "junk" / "file.txt").write_text("x\n")
    return ws


def claude_project(workspace: Path, settings: dict[str, Any], name: str = "settings.json") -> None:
    (workspace / ".claude" / name).write_text(json.dumps(settings))


def guard_settings(tmp_path: Path) -> dict[str, Any]:
    guard = tmp_path / "guard.sh"
    guard.write_text(GUARD)
    guard.chmod(0o755)
    return {
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": str(guard)}]}]},
        "permissions": {"deny": ["Bash(touch:*)"]},
    }


def env_for(server: FakeAnthropicServer, tmp_path: Path, **extra: str) -> dict[str, str]:
    env = cli_env("anthropic", server.url, tmp_path / "home")
    env["CLAUDE_CONFIG_DIR"] = str(tmp_path / "claude-home")
    return {**env, **extra}


def tool_results(server: FakeAnthropicServer) -> list[str]:
    found = []
    for message in server.requests[-1]["messages"]:
        if message["role"] == "user" and isinstance(message["content"], list):
            for block in message["content"]:
                if block.get("type") == "tool_result":
                    content = block.get("content", "")
                    found.append(content if isinstance(content, str) else "".join(part.get("text", "") for part in content))
    return found


def one_command(command: str) -> list[Reply]:
    return [Reply(text="Running.", calls=(Call("run_command", json.dumps({"command": command})),)), Reply(text="Done.")]


def test_a_checked_in_guard_hook_blocks_rm_rf_in_a_trusted_folder(workspace: Path, tmp_path: Path) -> None:
    claude_project(workspace, guard_settings(tmp_path))
    with FakeAnthropicServer(one_command("rm -rf junk")) as server:
        proc = run_cli(
            ["-p", "clean up", "--output-format", "json", "--sandbox", "off", "--trust-workspace", "--permission-mode", "bypass"],
            workspace,
            env_for(server, tmp_path),
        )
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "junk" / "file.txt").exists()
    assert any("blocked by the team guard" in result for result in tool_results(server))


@pytest.mark.parametrize("trusted", [False, True])
def test_a_checked_in_deny_rule_holds_before_and_after_trust(workspace: Path, tmp_path: Path, trusted: bool) -> None:
    claude_project(workspace, {"permissions": {"deny": ["Bash(touch:*)"]}})
    flags = ["--trust-workspace"] if trusted else []
    with FakeAnthropicServer(one_command("touch secret.txt")) as server:
        proc = run_cli(
            ["-p", "make it", "--output-format", "json", "--sandbox", "off", "--permission-mode", "bypass", *flags], workspace, env_for(server, tmp_path)
        )
    assert proc.returncode == 0, proc.stderr
    assert not (workspace / "secret.txt").exists()
    assert tool_results(server) and "touch" in tool_results(server)[-1]


def test_a_user_claude_settings_hook_runs(workspace: Path, tmp_path: Path) -> None:
    marker = tmp_path / "user-hook-ran"
    (tmp_path / "claude-home").mkdir()
    (tmp_path / "claude-home" / "settings.json").write_text(
        json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]}})
    )
    with FakeAnthropicServer([Reply(text="Hello.")]) as server:
        proc = run_cli(["-p", "hi", "--output-format", "json"], workspace, env_for(server, tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert marker.exists()


def test_claude_home_defaults_to_the_home_folders_dot_claude(workspace: Path, tmp_path: Path) -> None:
    marker = tmp_path / "home-hook-ran"
    (tmp_path / "fake-home" / ".claude").mkdir(parents=True)
    (tmp_path / "fake-home" / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]}})
    )
    with FakeAnthropicServer([Reply(text="Hello.")]) as server:
        env = env_for(server, tmp_path, HOME=str(tmp_path / "fake-home"))
        del env["CLAUDE_CONFIG_DIR"]
        proc = run_cli(["-p", "hi", "--output-format", "json"], workspace, env)
    assert proc.returncode == 0, proc.stderr
    assert marker.exists()


def test_an_untrusted_projects_claude_hook_does_not_run_and_says_so(workspace: Path, tmp_path: Path) -> None:
    marker = tmp_path / "project-hook-ran"
    claude_project(workspace, {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]}})
    with FakeAnthropicServer([Reply(text="Hello.")]) as server:
        proc = run_cli(["-p", "hi", "--output-format", "json"], workspace, env_for(server, tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()
    assert "this folder is not trusted" in proc.stderr and "hooks" in proc.stderr


def test_setting_sources_without_project_leaves_the_claude_project_file_out(workspace: Path, tmp_path: Path) -> None:
    marker = tmp_path / "project-hook-ran"
    claude_project(workspace, {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]}})
    with FakeAnthropicServer([Reply(text="Hello."), Reply(text="Hello.")]) as server:
        left_out = run_cli(["-p", "hi", "--output-format", "json", "--trust-workspace", "--setting-sources", "user"], workspace, env_for(server, tmp_path))
        assert not marker.exists()
        read = run_cli(["-p", "hi", "--output-format", "json", "--trust-workspace", "--setting-sources", "user,project"], workspace, env_for(server, tmp_path))
    assert left_out.returncode == read.returncode == 0, left_out.stderr + read.stderr
    assert "not supported" not in left_out.stderr
    assert marker.exists()


def test_anthropic_model_picks_the_model_below_pseudoclaude_model(workspace: Path, tmp_path: Path) -> None:
    with FakeAnthropicServer([Reply(text="One."), Reply(text="Two.")]) as server:
        env = env_for(server, tmp_path, ANTHROPIC_MODEL="claude-haiku-4-5")
        del env["PSEUDOCLAUDE_MODEL"]
        first = run_cli(["-p", "hi", "--output-format", "json"], workspace, env)
        second = run_cli(["-p", "hi", "--output-format", "json"], workspace, {**env, "PSEUDOCLAUDE_MODEL": "claude-sonnet-4-5"})
    assert first.returncode == second.returncode == 0, first.stderr + second.stderr
    assert [request["model"] for request in server.requests] == ["claude-haiku-4-5", "claude-sonnet-4-5"]


def test_an_auth_token_alone_configures_the_anthropic_provider(workspace: Path, tmp_path: Path) -> None:
    with FakeAnthropicServer([]) as server:
        env = env_for(server, tmp_path, ANTHROPIC_AUTH_TOKEN="gateway-token-789")
        del env["ANTHROPIC_API_KEY"]
        proc = run_cli(["doctor"], workspace, env)
    assert "no model provider" not in proc.stdout + proc.stderr
    lines = {line.split()[1]: line for line in proc.stdout.splitlines() if len(line.split()) > 1}
    assert lines["provider"].startswith("ok") and "anthropic" in lines["provider"]
    assert lines["key"].startswith("ok") and "ANTHROPIC_AUTH_TOKEN" in lines["key"]
    assert "auth token from environment ANTHROPIC_AUTH_TOKEN" in lines["settings"]
    assert "gateway-token-789" not in proc.stdout + proc.stderr


def test_doctor_names_the_file_each_setting_came_from(workspace: Path, tmp_path: Path) -> None:
    claude_project(workspace, {"model": "claude-opus-4-1", "permissions": {"deny": ["Bash(touch:*)"]}})
    with FakeAnthropicServer([]) as server:
        env = env_for(server, tmp_path)
        del env["PSEUDOCLAUDE_MODEL"]
        proc = run_cli(["doctor"], workspace, env)
    settings = next(line for line in proc.stdout.splitlines() if line.split()[1:2] == ["settings"])
    assert "model from Claude Code project settings (.claude/settings.json)" in settings
    assert "rules from Claude Code project settings (.claude/settings.json)" in settings


def test_the_users_env_setting_reaches_the_models_commands(workspace: Path, tmp_path: Path) -> None:
    (tmp_path / "claude-home").mkdir()
    (tmp_path / "claude-home" / "settings.json").write_text(json.dumps({"env": {"TEAM_FLAG": "on-from-settings"}}))
    with FakeAnthropicServer(one_command("printenv TEAM_FLAG")) as server:
        proc = run_cli(["-p", "show it", "--output-format", "json", "--sandbox", "off", "--permission-mode", "bypass"], workspace, env_for(server, tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "on-from-settings" in tool_results(server)[-1]
