"""Hooks, instruction files and memory through the real CLI against the wire-level fake OpenAI server."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.support import cli_env, run_cli
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.script import Call, Reply

pytestmark = pytest.mark.slow

EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd")


def write_hook(folder: Path, name: str, body: str) -> str:
    path = folder / f"{name}.sh"
    path.write_text("#!/bin/bash\n" + body + "\n")
    path.chmod(0o755)
    return str(path)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / ".pseudoclaude").mkdir(parents=True)
    (ws / "notes.txt").write_text("alpha\n")
    return ws


def configure(workspace: Path, hooks: dict[str, Any]) -> None:
    """Project hooks in a folder the user trusts (``trustedWorkspaces`` in the user's settings of ``<tmp>/home``)."""
    (workspace / ".pseudoclaude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    home = workspace.parent / "home"
    home.mkdir(exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"trustedWorkspaces": [str(workspace)]}))


def bare_env(home: Path) -> dict[str, str]:
    """No provider at all (``hooks test`` needs none); PYTHONPATH kept so the code under test is the one run."""
    return {"PSEUDOCLAUDE_HOME": str(home), **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"}}


def env_for(server: FakeOpenAIServer, home: Path) -> dict[str, str]:
    return cli_env("openai", server.url, home)


def test_every_runner_event_fires_with_its_payload_in_a_headless_run(workspace: Path, tmp_path: Path) -> None:
    records = tmp_path / "records"
    records.mkdir()
    configure(workspace, {e: [{"hooks": [{"type": "command", "command": write_hook(tmp_path, e, f'cat > "{records}/{e}.json"')}]}] for e in EVENTS})
    script = [Reply(calls=(Call("read_file", json.dumps({"path": "notes.txt"})),)), Reply(text="It says alpha.")]
    with FakeOpenAIServer(script) as server:
        proc = run_cli(["-p", "What do my notes say?", "--output-format", "json"], workspace, env_for(server, tmp_path / "home"))
    assert proc.returncode == 0, proc.stderr
    session_id = json.loads(proc.stdout)["session_id"]
    payloads = {e: json.loads((records / f"{e}.json").read_text()) for e in EVENTS}
    for event, payload in payloads.items():
        assert payload["hook_event_name"] == event and payload["session_id"] == session_id
        assert payload["cwd"] == str(workspace) and Path(payload["transcript_path"]).name == "session.jsonl"
    assert payloads["UserPromptSubmit"]["prompt"] == "What do my notes say?"
    assert payloads["PreToolUse"]["tool_name"] == "Read" and payloads["PreToolUse"]["pseudoclaude_tool_name"] == "read_file"
    assert payloads["PreToolUse"]["tool_input"] == {"file_path": "notes.txt", "path": "notes.txt"}
    assert "alpha" in payloads["PostToolUse"]["tool_response"]["content"]
    assert payloads["PostToolUse"]["tool_response"]["filePath"] == "notes.txt"
    assert payloads["Stop"]["last_assistant_message"] == "It says alpha."
    assert server.rejections == []


def test_a_pre_tool_use_exit_2_reaches_the_model_as_the_reason(workspace: Path, tmp_path: Path) -> None:
    deny = write_hook(tmp_path, "deny", "echo 'read_file is disabled by policy' >&2; exit 2")
    configure(workspace, {"PreToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": deny}]}]})
    script = [Reply(calls=(Call("read_file", json.dumps({"path": "notes.txt"})),)), Reply(text="I could not read it.")]
    with FakeOpenAIServer(script) as server:
        proc = run_cli(["-p", "read my notes"], workspace, env_for(server, tmp_path / "home"))
    assert proc.returncode == 0, proc.stderr
    tool_message = server.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool" and "read_file is disabled by policy" in tool_message["content"]
    assert "alpha" not in json.dumps(server.requests[1]) and server.rejections == []


def test_instructions_and_memory_reach_the_system_prompt(workspace: Path, tmp_path: Path) -> None:
    (workspace / "AGENTS.md").write_text("Answer in French.\n@docs/more.md\n")
    (workspace / "docs").mkdir()
    (workspace / "docs" / "more.md").write_text("Never use emojis.")
    home = tmp_path / "home"
    home.mkdir()
    (home / "MEMORY.md").write_text("- The user is called Ada.\n")
    with FakeOpenAIServer([Reply(text="Bonjour.")]) as server:
        proc = run_cli(["-p", "hello"], workspace, env_for(server, home))
    assert proc.returncode == 0, proc.stderr
    system = server.requests[0]["messages"][0]
    assert system["role"] == "system"
    for expected in ("Answer in French.", "Never use emojis.", "The user is called Ada."):
        assert expected in json.dumps(system)


def test_hooks_test_runs_the_configured_hooks_with_a_sample_payload(workspace: Path, tmp_path: Path) -> None:
    deny = write_hook(tmp_path, "guard", """grep -q '"tool_name": "Bash"' && { echo 'no shell today' >&2; exit 2; }; exit 0""")
    configure(
        workspace, {"PreToolUse": [{"matcher": "run_command", "hooks": [{"type": "command", "command": deny}, {"type": "command", "command": "echo '{oops'"}]}]}
    )
    proc = run_cli(["hooks", "test", "PreToolUse"], workspace, bare_env(tmp_path / "home"))
    assert proc.returncode == 1, proc.stderr
    assert (
        '"hook_event_name": "PreToolUse"' in proc.stdout and '"tool_name": "Bash"' in proc.stdout and '"pseudoclaude_tool_name": "run_command"' in proc.stdout
    )
    assert "exit 2" in proc.stdout and "=> deny the call: no shell today" in proc.stdout
    assert "=> warning: hook `echo '{oops'` printed invalid JSON" in proc.stdout
    other = run_cli(["hooks", "test", "PreToolUse", "--tool", "read_file"], workspace, bare_env(tmp_path / "home"))
    assert other.returncode == 0 and "No PreToolUse hooks are configured for read_file." in other.stdout
    unknown = run_cli(["hooks", "test", "Bogus"], workspace, bare_env(tmp_path / "home"))
    assert unknown.returncode == 2 and "unknown hook event" in unknown.stderr
