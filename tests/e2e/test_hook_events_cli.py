"""Claude Code's later hook events and payloads through the real CLI, against the wire-level fake OpenAI server.

Each hook is a real script that appends its stdin to ``<name>.jsonl`` and
answers what a Claude Code hook would; the assertions read what it saw.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.support import cli_env, run_cli
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.script import Call, Reply

pytestmark = pytest.mark.slow


def hook(folder: Path, name: str, then: str = "exit 0") -> dict[str, Any]:
    """A command hook recording each payload to ``<folder>/<name>.jsonl``, then running ``then`` (the payload in ``$input``)."""
    path = folder / f"{name}.sh"
    path.write_text(f'#!/bin/bash\ninput=$(cat)\nprintf "%s\\n" "$input" >> "{folder}/{name}.jsonl"\n{then}\n')
    path.chmod(0o755)
    return {"type": "command", "command": str(path)}


def seen(folder: Path, name: str) -> list[dict[str, Any]]:
    path = folder / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("alpha\n")
    return ws


def user_hooks(tmp_path: Path, hooks: dict[str, Any]) -> Path:
    """Hooks in the user's own settings (trusted without a workspace question); returns the home folder."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"hooks": hooks}))
    return home


def test_the_edit_tools_tool_response_carries_claude_codes_fields_and_a_failure_fires_post_tool_use_failure(workspace: Path, tmp_path: Path) -> None:
    context = """echo '{"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": "lint: read the file first"}}'"""
    home = user_hooks(
        tmp_path,
        {
            "PostToolUse": [{"matcher": "Edit|Write", "hooks": [hook(tmp_path, "post")]}],
            "PostToolUseFailure": [{"hooks": [hook(tmp_path, "failure", context)]}],
        },
    )
    calls = [
        Call("read_file", json.dumps({"path": "notes.txt"})),
        Call("edit_file", json.dumps({"path": "notes.txt", "old_string": "omega", "new_string": "x"})),
        Call("edit_file", json.dumps({"path": "notes.txt", "old_string": "alpha", "new_string": "beta"})),
        Call("write_file", json.dumps({"path": "new.txt", "content": "one\ntwo"})),
    ]
    script = [Reply(calls=(c,)) for c in calls] + [Reply(text="Edited.")]
    with FakeOpenAIServer(script) as server:
        proc = run_cli(["-p", "edit my notes", "--permission-mode", "accept-edits"], workspace, cli_env("openai", server.url, home))
    assert proc.returncode == 0, proc.stderr
    edit, write = (p["tool_response"] for p in seen(tmp_path, "post"))
    assert edit["filePath"] == str(workspace / "notes.txt") and edit["oldString"] == "alpha" and edit["newString"] == "beta"
    assert edit["originalFile"] == "alpha\n" and edit["replaceAll"] is False and edit["userModified"] is False
    assert edit["structuredPatch"] == [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": ["-alpha", "+beta"]}]
    assert edit["content"].startswith("Edited notes.txt: replaced 1 occurrence")
    assert write == {**write, "type": "create", "filePath": str(workspace / "new.txt"), "content": "one\ntwo", "structuredPatch": [], "originalFile": None}
    (failure,) = seen(tmp_path, "failure")
    assert failure["tool_name"] == "Edit" and failure["tool_input"]["old_string"] == "omega" and failure["is_interrupt"] is False
    assert "old_string was not found in notes.txt" in failure["error"] and failure["tool_use_id"]
    failed_result = server.requests[2]["messages"][-1]
    assert failed_result["role"] == "tool" and "PostToolUseFailure hook context: lint: read the file first" in failed_result["content"]
    edited_result = server.requests[3]["messages"][-1]["content"]
    assert edited_result.startswith("Edited notes.txt: replaced 1 occurrence") and "structuredPatch" not in edited_result
    assert (workspace / "notes.txt").read_text() == "beta\n" and server.rejections == []


def test_permission_request_decides_for_the_user_in_a_headless_run(workspace: Path, tmp_path: Path) -> None:
    rewritten = {"command": "echo from-the-hook > shell.txt"}
    allow = (
        f"""echo '{json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedInput": rewritten}}})}'"""
    )
    deny = """echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "no writes on Fridays"}}}'"""
    home = user_hooks(
        tmp_path,
        {
            "PermissionRequest": [
                {"matcher": "Bash", "hooks": [hook(tmp_path, "bash", allow)]},
                {"matcher": "Write", "hooks": [hook(tmp_path, "write", deny)]},
            ],
        },
    )
    calls = (Call("run_command", json.dumps({"command": "echo from-the-model > shell.txt"})),)
    write = (Call("write_file", json.dumps({"path": "out.txt", "content": "x"})),)
    script = [Reply(calls=calls), Reply(calls=write), Reply(text="Done.")]
    with FakeOpenAIServer(script) as server:
        # Without the sandbox a shell write is a question (inside it the sandbox answers, and no hook is asked).
        proc = run_cli(["-p", "go", "--output-format", "json", "--sandbox", "off"], workspace, cli_env("openai", server.url, home))
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "shell.txt").read_text() == "from-the-hook\n" and not (workspace / "out.txt").exists()
    (asked,) = seen(tmp_path, "bash")
    assert asked["hook_event_name"] == "PermissionRequest" and asked["tool_name"] == "Bash"
    assert asked["tool_input"]["command"] == "echo from-the-model > shell.txt" and isinstance(asked["permission_suggestions"], list)
    (refused,) = seen(tmp_path, "write")
    assert refused["tool_input"]["file_path"] == "out.txt"
    assert "denied by a PermissionRequest hook: no writes on Fridays" in server.requests[2]["messages"][-1]["content"]
    assert [d["tool_name"] for d in json.loads(proc.stdout)["permission_denials"]] == ["Write"]


def test_subagent_start_adds_context_and_subagent_stop_sends_the_sub_agent_back_once(workspace: Path, tmp_path: Path) -> None:
    start = """echo '{"hookSpecificOutput": {"hookEventName": "SubagentStart", "additionalContext": "Cite line numbers."}}'"""
    again = """printf '%s' "$input" | grep -q '"stop_hook_active": *false' && { echo 'check the notes twice' >&2; exit 2; }; exit 0"""
    home = user_hooks(
        tmp_path,
        {
            "SubagentStart": [{"matcher": "general-purpose", "hooks": [hook(tmp_path, "start", start)]}],
            "SubagentStop": [{"hooks": [hook(tmp_path, "stop", again)]}],
            "Stop": [{"hooks": [hook(tmp_path, "main-stop")]}],
            "PreToolUse": [{"hooks": [hook(tmp_path, "pre")]}],
        },
    )
    task = Call("task", json.dumps({"description": "read notes", "prompt": "What do the notes say?", "subagent_type": "general-purpose"}))
    read = Call("read_file", json.dumps({"path": "notes.txt"}))
    script = [
        Reply(calls=(task,)),
        Reply(calls=(read,)),
        Reply(text="They say alpha."),
        Reply(text="Checked twice: alpha, line 1."),
        Reply(text="The notes say alpha."),
    ]
    with FakeOpenAIServer(script) as server:
        proc = run_cli(["-p", "Ask a sub-agent"], workspace, cli_env("openai", server.url, home))
    assert proc.returncode == 0, proc.stderr
    (started,) = seen(tmp_path, "start")
    assert started["hook_event_name"] == "SubagentStart" and started["agent_type"] == "general-purpose" and started["agent_id"]
    assert "Cite line numbers." in json.dumps(server.requests[1]["messages"])
    parent_call, sub_call = seen(tmp_path, "pre")
    assert parent_call["tool_name"] == "Task" and "agent_id" not in parent_call
    assert sub_call["tool_name"] == "Read" and sub_call["agent_id"] == started["agent_id"] and sub_call["agent_type"] == "general-purpose"
    first, second = seen(tmp_path, "stop")
    assert first["hook_event_name"] == "SubagentStop" and first["stop_hook_active"] is False and second["stop_hook_active"] is True
    assert first["agent_id"] == started["agent_id"] and first["agent_type"] == "general-purpose"
    assert first["last_assistant_message"] == "They say alpha." and Path(first["agent_transcript_path"]).is_file()
    assert "check the notes twice" in json.dumps(server.requests[3]["messages"][-1])
    assert "Checked twice: alpha, line 1." in json.dumps(server.requests[4]["messages"][-1])
    assert len(seen(tmp_path, "main-stop")) == 1 and server.rejections == []


def test_a_prompt_hook_asks_the_sessions_model_and_its_verdict_continues_the_run(workspace: Path, tmp_path: Path) -> None:
    home = user_hooks(tmp_path, {"Stop": [{"hooks": [{"type": "prompt", "prompt": "Is this answer in French? $ARGUMENTS"}]}]})
    script = [
        Reply(text="Done.", input_tokens=1000),
        Reply(text='{"ok": false, "reason": "Answer in French."}', input_tokens=7),
        Reply(text="Fini.", input_tokens=1000),
        Reply(text='```json\n{"ok": true}\n```', input_tokens=7),
    ]
    with FakeOpenAIServer(script) as server:
        proc = run_cli(["-p", "finish", "--output-format", "json"], workspace, cli_env("openai", server.url, home))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["result"] == "Fini."
    # The first question counts in the session's totals (reported with the next answer); the last comes after every report.
    assert result["usage"]["input_tokens"] == 2000 and result["session_usage"]["input_tokens"] == 2007
    question = server.requests[1]
    assert "tools" not in question or not question["tools"]
    asked = question["messages"][-1]["content"]
    assert asked.startswith("Is this answer in French? {") and '"hook_event_name": "Stop"' in asked and '"last_assistant_message": "Done."' in asked
    assert "Answer in French." in json.dumps(server.requests[2]["messages"][-1])
    assert '"last_assistant_message": "Fini."' in server.requests[3]["messages"][-1]["content"] and server.rejections == []


def test_events_claude_code_has_and_we_never_fire_load_with_one_notice(workspace: Path, tmp_path: Path) -> None:
    home = user_hooks(tmp_path, {"WorktreeCreate": [{"hooks": [hook(tmp_path, "wt")]}], "Stop": [{"hooks": [hook(tmp_path, "stop")]}]})
    (workspace / ".pseudoclaude").mkdir()
    (workspace / ".pseudoclaude" / "settings.json").write_text(json.dumps({"hooks": {"WorktreeCreate": [{"hooks": [hook(tmp_path, "wt2")]}]}}))
    (home / "settings.json").write_text(json.dumps({**json.loads((home / "settings.json").read_text()), "trustedWorkspaces": [str(workspace)]}))
    with FakeOpenAIServer([Reply(text="Hi.")]) as server:
        proc = run_cli(["-p", "hi"], workspace, cli_env("openai", server.url, home))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("WorktreeCreate hooks never fire in PseudoClaude") == 1
    assert len(seen(tmp_path, "stop")) == 1 and seen(tmp_path, "wt") == []


def test_permission_request_answers_before_the_user_is_asked_and_notification_fires_while_they_are(workspace: Path, tmp_path: Path) -> None:
    """The Agent SDK's ``can_use_tool`` stands for the user: the CLI asks it only where no PermissionRequest hook decided."""
    import asyncio
    import sys

    sdk = pytest.importorskip("claude_agent_sdk")
    allow_ok = """printf '%s' "$input" | grep -q '"file_path": "ok.txt"' && echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}'; exit 0"""
    user_hooks(
        tmp_path,
        {
            "PermissionRequest": [{"matcher": "Write", "hooks": [hook(tmp_path, "permission", allow_ok)]}],
            "Notification": [{"matcher": "permission_prompt", "hooks": [hook(tmp_path, "notification")]}],
        },
    )
    wrapper = tmp_path / "pseudoclaude"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m pseudoclaude "$@"\n')
    wrapper.chmod(0o755)
    asked: list[str] = []

    async def decide(name: str, tool_input: dict[str, Any], context: Any) -> Any:
        asked.append(tool_input["file_path"])
        return sdk.PermissionResultDeny(message="not that one")

    async def prompts() -> Any:
        yield {"type": "user", "message": {"role": "user", "content": "Write two files"}, "parent_tool_use_id": None, "session_id": "default"}

    calls = (Call("write_file", json.dumps({"path": "ok.txt", "content": "yes"})), Call("write_file", json.dumps({"path": "no.txt", "content": "no"})))
    with FakeOpenAIServer([Reply(calls=calls), Reply(text="One written.")]) as server:
        env = {**cli_env("openai", server.url, tmp_path / "home"), "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
        opts = sdk.ClaudeAgentOptions(cli_path=str(wrapper), cwd=str(workspace), env=env, can_use_tool=decide)

        async def go() -> list[Any]:
            return [m async for m in sdk.query(prompt=prompts(), options=opts)]

        messages = asyncio.run(asyncio.wait_for(go(), 60))
    assert asked == ["no.txt"]
    assert (workspace / "ok.txt").read_text() == "yes" and not (workspace / "no.txt").exists()
    assert [p["tool_input"]["file_path"] for p in seen(tmp_path, "permission")] == ["ok.txt", "no.txt"]
    (notified,) = seen(tmp_path, "notification")
    assert notified["notification_type"] == "permission_prompt" and notified["message"] == "PseudoClaude needs your permission to use Write"
    assert [d["tool_input"]["file_path"] for d in messages[-1].permission_denials] == ["no.txt"]
