"""Sub-agents: the task tool runs fresh runners against the same provider; only their answers reach the parent."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any, Mapping

import pytest

from tests.e2e.support import cli_command, cli_env, fake_server, run_cli
from tests.fakes.script import Call, Reply, Step

pytestmark = pytest.mark.slow


def system_text(request: Mapping[str, Any]) -> str:
    system = request.get("system", "")
    return json.dumps(system) if not isinstance(system, str) else system


def last_user_text(request: Mapping[str, Any]) -> str:
    return json.dumps(request["messages"][-1]["content"])


def script(request: Mapping[str, Any]) -> Step:
    messages = request["messages"]
    if "sub-agent of PseudoClaude" in system_text(request):
        first = json.dumps(messages[0]["content"])
        if "where is alpha" in first:
            if len(messages) == 1:
                return Reply(text="Searching.", calls=(Call("grep", json.dumps({"pattern": "alpha"})),))
            return Reply(text="alpha is on line 1 of notes.txt")
        return Reply(text="the notes have three lines")
    if len(messages) == 1:
        calls = (
            Call("task", json.dumps({"description": "find alpha", "prompt": "where is alpha?", "subagent_type": "explore"})),
            Call("task", json.dumps({"description": "count lines", "prompt": "how many lines in notes.txt?", "subagent_type": "explore"})),
        )
        return Reply(text="Delegating.", calls=calls)
    return Reply(text="Both sub-agents reported.")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    return ws


def test_two_task_calls_run_as_sub_agents_with_their_own_histories(workspace: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    with fake_server("anthropic", script) as server:
        env = {**cli_env("anthropic", server.url, home), "HOME": str(tmp_path)}
        proc = run_cli(["-p", "Tell me about my notes", "--output-format", "json"], workspace, env)
    assert proc.returncode == 0, proc.stderr
    assert server.rejections == []
    subs = [r for r in server.requests if "sub-agent of PseudoClaude" in system_text(r)]
    parents = [r for r in server.requests if r not in subs]
    assert len(parents) == 2 and len(subs) == 3
    firsts = sorted(json.dumps(r["messages"]) for r in subs if len(r["messages"]) == 1)
    assert len(firsts) == 2 and "Tell me about my notes" not in "".join(firsts)
    assert all({t["name"] for t in r["tools"]} == {"read_file", "grep", "glob", "list_dir"} for r in subs)
    final = json.dumps(parents[1]["messages"])
    assert "alpha is on line 1 of notes.txt" in final and "the notes have three lines" in final
    assert "Searching." not in final
    result = json.loads(proc.stdout)
    assert result["result"] == "Both sub-agents reported."
    assert result["session_usage"]["input_tokens"] > result["usage"]["input_tokens"]

    with fake_server("anthropic", [Reply(text="Resumed.")]) as again:
        env_again = {**cli_env("anthropic", again.url, home), "HOME": str(tmp_path)}
        resumed = run_cli(["-p", "and now?", "--continue", "--output-format", "json"], workspace, env_again)
    assert resumed.returncode == 0, resumed.stderr
    after = json.loads(resumed.stdout)
    assert after["session_usage"]["input_tokens"] == result["session_usage"]["input_tokens"] + after["usage"]["input_tokens"]

    shown = subprocess.run(cli_command("sessions", "show", result["session_id"]), cwd=workspace, env=env, capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    assert "explore: find alpha" in shown.stdout and "explore: count lines" in shown.stdout
    assert "alpha is on line 1 of notes.txt" in shown.stdout and "where is alpha?" in shown.stdout


def test_a_user_agent_from_claude_agents_gets_only_its_tools_and_the_deny_rules_hold(workspace: Path, tmp_path: Path) -> None:
    agents = workspace / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "runner.md").write_text("---\nname: runner\ndescription: runs commands\ntools: Bash, Read\n---\nYou run commands.\n")
    (workspace / ".pseudoclaude").mkdir()
    (workspace / ".pseudoclaude" / "settings.json").write_text(json.dumps({"permissions": {"deny": ["Bash(rm:*)"]}}))

    def user_script(request: Mapping[str, Any]) -> Step:
        messages = request["messages"]
        if "You run commands." in system_text(request):
            if len(messages) == 1:
                return Reply(calls=(Call("run_command", json.dumps({"command": "rm notes.txt"})),))
            return Reply(text="rm was refused: " + ("denied" if "Denied by the permission rule" in last_user_text(request) else "??"))
        if len(messages) == 1:
            return Reply(calls=(Call("task", json.dumps({"description": "delete", "prompt": "delete notes", "subagent_type": "runner"})),))
        return Reply(text="done")

    with fake_server("anthropic", user_script) as server:
        env = {**cli_env("anthropic", server.url, tmp_path / "home"), "HOME": str(tmp_path)}
        proc = run_cli(["-p", "go", "--permission-mode", "bypass"], workspace, env)
    assert proc.returncode == 0, proc.stderr
    sub = next(r for r in server.requests if "You run commands." in system_text(r))
    assert [t["name"] for t in sub["tools"]] == ["run_command", "read_file"]
    assert "rm was refused: denied" in json.dumps(server.requests[-1]["messages"])
    assert (workspace / "notes.txt").exists()
