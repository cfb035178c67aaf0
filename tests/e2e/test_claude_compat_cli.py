"""What a Claude Code script meets through the real CLI: its hook scripts, its flags, its result fields."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.support import cli_command, cli_env, fake_server, json_lines, run_cli
from tests.fakes.script import Call, Reply

pytestmark = pytest.mark.slow

# A Claude Code guard hook as it is shared, unchanged: it knows nothing of PseudoClaude.
GUARD = """import json, sys
data = json.load(sys.stdin)
name, tool_input = data.get("tool_name", ""), data.get("tool_input", {})
if name in ("Read", "Write", "Edit") and tool_input.get("file_path", "").endswith(".env"):
    print("Blocked: .env files are off limits", file=sys.stderr)
    sys.exit(2)
if name == "Bash" and "rm -rf" in tool_input.get("command", ""):
    print("Blocked: rm -rf is not allowed", file=sys.stderr)
    sys.exit(2)
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "build").mkdir(parents=True)
    (ws / "build" / "keep.o").write_text("object")
    (ws / ".env").write_text("SECRET_TOKEN=hunter2-do-not-leak\n")
    return ws


def install_guard(tmp_path: Path, matcher: str) -> Path:
    """The guard as a user-level PreToolUse hook (``~/.pseudoclaude/settings.json``, Claude Code's format)."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    script = tmp_path / "guard.py"
    script.write_text(GUARD)
    hooks = {"PreToolUse": [{"matcher": matcher, "hooks": [{"type": "command", "command": f"{sys.executable} {script}"}]}]}
    (home / "settings.json").write_text(json.dumps({"hooks": hooks}))
    return home


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_a_claude_code_guard_hook_blocks_write_read_and_bash_unchanged(kind: str, workspace: Path, tmp_path: Path) -> None:
    home = install_guard(tmp_path, "Read|Write|Edit|Bash")
    calls = (
        Call("read_file", json.dumps({"path": ".env"})),
        Call("write_file", json.dumps({"path": ".env", "content": "SECRET_TOKEN=overwritten\n"})),
        Call("run_command", json.dumps({"command": "rm -rf build"})),
    )
    with fake_server(kind, [Reply(text="Cleaning up.", calls=calls), Reply(text="Blocked.")]) as server:
        proc = run_cli(["-p", "clean up", "--output-format", "json", "--permission-mode", "bypassPermissions"], workspace, cli_env(kind, server.url, home))
        sent = json.dumps(server.requests)
    assert proc.returncode == 0, proc.stderr
    assert "hunter2" not in sent and "Blocked: .env files are off limits" in sent and "Blocked: rm -rf is not allowed" in sent
    assert (workspace / ".env").read_text() == "SECRET_TOKEN=hunter2-do-not-leak\n" and (workspace / "build" / "keep.o").exists()
    result = json.loads(proc.stdout)
    assert [d["tool_name"] for d in result["permission_denials"]] == ["Read", "Write", "Bash"]
    assert result["permission_denials"][2]["tool_input"] == {"command": "rm -rf build"}


def test_hooks_test_accepts_a_claude_code_payload(workspace: Path, tmp_path: Path) -> None:
    home = install_guard(tmp_path, "Write|Edit")
    env = {**cli_env("anthropic", "http://127.0.0.1:9", home)}
    payload = json.dumps({"tool_name": "Write", "tool_input": {"file_path": "config/.env", "content": "x"}})
    proc = subprocess.run(cli_command("hooks", "test", "PreToolUse", "--input", payload), cwd=workspace, env=env, capture_output=True, text=True, timeout=60)
    assert "deny the call: Blocked: .env files are off limits" in proc.stdout, proc.stdout + proc.stderr
    assert '"pseudoclaude_tool_name": "write_file"' in proc.stdout
    harmless = json.dumps({"tool_name": "Edit", "tool_input": {"file_path": "src/app.py"}})
    proc = subprocess.run(cli_command("hooks", "test", "PreToolUse", "--input", harmless), cwd=workspace, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "=> go on" in proc.stdout
    bad = subprocess.run(cli_command("hooks", "test", "PreToolUse", "--input", "[1]"), cwd=workspace, env=env, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "JSON object" in bad.stderr


def test_headless_default_mode_lists_denials_in_the_result_and_on_stderr(workspace: Path, tmp_path: Path) -> None:
    call = Call("run_command", json.dumps({"command": "touch made"}))
    for output_format in ("json", "text"):
        with fake_server("anthropic", [Reply(calls=(call,)), Reply(text="Could not.")]) as server:
            proc = run_cli(
                ["-p", "make it", "--output-format", output_format, "--sandbox", "off"], workspace, cli_env("anthropic", server.url, tmp_path / "home")
            )
        assert proc.returncode == 0 and not (workspace / "made").exists()
        if output_format == "json":
            (denial,) = json.loads(proc.stdout)["permission_denials"]
            assert denial == {"tool_name": "Bash", "tool_use_id": denial["tool_use_id"], "tool_input": {"command": "touch made"}}
        else:
            assert proc.stdout == "Could not.\n" and "[denied] run_command: Permission denied" in proc.stderr


def test_claude_code_flags_are_accepted_with_its_meanings(workspace: Path, tmp_path: Path) -> None:
    write = Call("write_file", json.dumps({"path": "new.txt", "content": "new"}))
    grep = Call("grep", json.dumps({"pattern": "x", "case_insensitive": True}))
    with fake_server("anthropic", [Reply(text="Both.", calls=(write, grep)), Reply(text="Done.")]) as server:
        proc = run_cli(
            [
                "-p",
                "go",
                "--output-format",
                "stream-json",
                "--verbose",
                "--permission-mode",
                "acceptEdits",
                "--disallowedTools",
                "Grep",
                "--append-system-prompt",
                "Be brief.",
                "--include-partial-messages",
                "--mcp-config",
                '{"mcpServers": {"docs": {"command": "x"}}}',
            ],
            workspace,
            cli_env("anthropic", server.url, tmp_path / "home"),
        )
        system = json.dumps(server.requests[0]["system"])
    assert proc.returncode == 0, proc.stderr
    assert "Be brief." in system and "docs" in proc.stderr, "the MCP server that cannot start is named on stderr"
    lines = json_lines(proc.stdout)
    init = lines[0]
    assert (
        init["type"] == "system"
        and init["permissionMode"] == "acceptEdits"
        and init["mcp_servers"] in ([{"name": "docs", "status": "failed"}], [{"name": "docs", "status": "pending"}])
    )
    assert all(line["session_id"] == init["session_id"] for line in lines)
    assistant = next(line for line in lines if line["type"] == "assistant")
    assert [b["name"] for b in assistant["message"]["content"] if b["type"] == "tool_use"] == ["Write", "Grep"]
    assert assistant["message"]["content"][2]["input"] == {"pattern": "x", "-i": True}
    assert any(line["type"] == "stream_event" for line in lines)
    assert (workspace / "new.txt").read_text() == "new"
    result = lines[-1]
    assert result["type"] == "result" and [d["tool_name"] for d in result["permission_denials"]] == ["Grep"]


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--session-id", "../../etc"], "--session-id must be a UUID"),
        (["--continue", "--session-id", "123e4567-e89b-12d3-a456-426614174000"], "needs --fork-session"),
        (["--input-format", "stream-json", "--output-format", "json"], "needs --output-format stream-json"),
        (["--permission-prompt-tool", "mcp__auth__prompt"], "only 'stdio'"),
        (["--tools", "Read,Teleport"], "unknown tool 'Teleport'"),
    ],
)
def test_flags_we_cannot_honour_fail_with_a_clear_line(flags: list[str], message: str, workspace: Path, tmp_path: Path) -> None:
    proc = run_cli(["-p", "hi", *flags], workspace, cli_env("anthropic", "http://127.0.0.1:9", tmp_path / "home"))
    assert proc.returncode == 2 and message in proc.stderr


def test_a_configuration_error_still_prints_a_result_object(workspace: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    proc = run_cli(["-p", "hi", "--output-format", "json"], workspace, {**env, "PSEUDOCLAUDE_HOME": str(tmp_path / "home")})
    assert proc.returncode == 2
    result: dict[str, Any] = json.loads(proc.stdout)
    assert result["type"] == "result" and result["is_error"] and result["subtype"] == "error_during_execution"
    assert "ANTHROPIC_API_KEY" in result["errors"][0] or "provider" in result["errors"][0]


def test_stream_json_input_runs_prompts_in_one_session_without_the_sdk(workspace: Path, tmp_path: Path) -> None:
    lines = [
        {"type": "control_request", "request_id": "r1", "request": {"subtype": "initialize", "hooks": None}},
        {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "first"}]}, "session_id": "default", "parent_tool_use_id": None},
        {"type": "control_request", "request_id": "r2", "request": {"subtype": "teleport"}},
        {"type": "user", "message": {"role": "user", "content": "second"}, "session_id": "default", "parent_tool_use_id": None},
    ]
    stdin = "".join(json.dumps(line) + "\n" for line in lines)
    with fake_server("anthropic", [Reply(text="one"), Reply(text="two")]) as server:
        proc = run_cli(
            ["--output-format", "stream-json", "--input-format", "stream-json", "--verbose"],
            workspace,
            cli_env("anthropic", server.url, tmp_path / "home"),
            stdin=stdin,
        )
        assert "first" in json.dumps(server.requests[1])
    assert proc.returncode == 0, proc.stderr
    out = json_lines(proc.stdout)
    responses = {o["response"]["request_id"]: o["response"] for o in out if o["type"] == "control_response"}
    assert responses["r1"]["subtype"] == "success" and responses["r2"] == {
        "subtype": "error",
        "request_id": "r2",
        "error": "unsupported control request subtype: teleport",
    }
    results = [o for o in out if o["type"] == "result"]
    assert [r["result"] for r in results] == ["one", "two"] and results[0]["session_id"] == results[1]["session_id"]


def test_fork_session_goes_on_in_a_copy_and_leaves_the_original(workspace: Path, tmp_path: Path) -> None:
    with fake_server("anthropic", [Reply(text="Noted."), Reply(text="kumquat")]) as server:
        env = cli_env("anthropic", server.url, tmp_path / "home")
        first = json.loads(run_cli(["-p", "Remember the word kumquat.", "--output-format", "json"], workspace, env).stdout)
        original = next((tmp_path / "home").rglob(f"{first['session_id']}/session.jsonl"))
        before = original.read_bytes()
        forked = run_cli(["--resume", first["session_id"], "--fork-session", "-p", "Which word?", "--output-format", "json"], workspace, env)
        assert forked.returncode == 0, forked.stderr
        assert "kumquat" in json.dumps(server.requests[1]["messages"])
    result = json.loads(forked.stdout)
    assert result["result"] == "kumquat" and result["session_id"] != first["session_id"]
    assert original.read_bytes() == before
    copy = next((tmp_path / "home").rglob(f"{result['session_id']}/session.jsonl")).read_text()
    assert f'"forked_from":"{first["session_id"]}"' in copy and "Which word?" in copy
    alone = run_cli(["-p", "hi", "--fork-session"], workspace, env)
    assert alone.returncode == 2 and "needs --resume" in alone.stderr


def test_session_id_names_a_new_session_that_resume_finds(workspace: Path, tmp_path: Path) -> None:
    chosen = "123E4567-E89B-12D3-A456-426614174000"
    with fake_server("anthropic", [Reply(text="Noted."), Reply(text="kumquat")]) as server:
        env = cli_env("anthropic", server.url, tmp_path / "home")
        first = run_cli(["-p", "Remember kumquat.", "--output-format", "json", "--session-id", chosen], workspace, env)
        assert json.loads(first.stdout)["session_id"] == chosen.lower()
        again = run_cli(["-p", "again", "--session-id", chosen], workspace, env)
        assert again.returncode == 2 and "already exists" in again.stderr
        resumed = json.loads(run_cli(["--resume", chosen.lower(), "-p", "Which word?", "--output-format", "json"], workspace, env).stdout)
        assert resumed["session_id"] == chosen.lower() and "kumquat" in json.dumps(server.requests[1]["messages"])


@pytest.mark.parametrize("moment", ["as_the_command_starts", "while_the_command_runs"])
def test_sigint_during_a_stream_json_run_prints_the_result_and_exits_at_once(
    processes: list[subprocess.Popen[str]], moment: str, workspace: Path, tmp_path: Path
) -> None:
    """Whenever Ctrl-C lands, before the command's process group exists or after, the run ends within moments.

    It used to flake: a SIGINT that came while the command was still starting
    left the CLI waiting for ``sleep 30`` (asyncio killed only bash, then waited
    for the pipes its child held).
    """
    marker = f"pseudoclaude-h15-sigint-marker-{moment}-{uuid.uuid4().hex}"
    script = [Reply(text="Starting.", calls=(Call("run_command", json.dumps({"command": f"sleep 30; echo {marker}"})),))]
    with fake_server("anthropic", script) as server:
        proc = subprocess.Popen(
            cli_command("-p", "go", "--output-format", "stream-json", "--permission-mode", "bypassPermissions"),
            cwd=workspace,
            env=cli_env("anthropic", server.url, tmp_path / "home"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        processes.append(proc)
        assert proc.stdout is not None
        lines = [json.loads(proc.stdout.readline()) for _ in range(2)]
        assert [line["type"] for line in lines] == ["system", "assistant"]
        if moment == "while_the_command_runs":
            _wait_until(lambda: _running(marker))
        proc.send_signal(signal.SIGINT)
        signalled = time.monotonic()
        out, err = proc.communicate(timeout=40)
        seconds = time.monotonic() - signalled
    assert proc.returncode == 130, err
    assert seconds < 5, f"exited {seconds:.1f} s after SIGINT"
    result = json_lines(out)[-1]
    assert result["type"] == "result" and result["subtype"] == "error_during_execution" and result["stop_reason"] == "interrupted"
    assert result["session_id"] == lines[0]["session_id"]
    _wait_until(lambda: not _running(marker), seconds=3)
    assert not _running(marker)


def _running(marker: str) -> bool:
    return bool(subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.strip())


def _wait_until(condition: Any, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)


def test_json_schema_and_agents_flags_give_structured_output_and_an_agent_type(workspace: Path, tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    agents = {"checker": {"description": "Checks things", "prompt": "You check.", "tools": ["Read"], "model": "sonnet"}}
    script = [Reply(calls=(Call("structured_output", json.dumps({"n": 3})),)), Reply(text="Three.")]
    with fake_server("anthropic", script) as server:
        env = cli_env("anthropic", server.url, tmp_path / "home")
        args = ["-p", "count", "--output-format", "json", "--json-schema", json.dumps(schema), "--agents", json.dumps(agents)]
        done = run_cli(args, workspace, env)
        task = next(t for t in server.requests[0]["tools"] if t["name"] == "task")
    assert done.returncode == 0, done.stderr
    (result,) = json_lines(done.stdout)
    assert result["structured_output"] == {"n": 3} and result["terminal_reason"] == "completed"
    assert "checker" in task["input_schema"]["properties"]["subagent_type"]["enum"]


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--betas", "interleaved-thinking-2025-05-14"], "--betas is not supported: "),
        (["--task-budget", "5000"], "--task-budget is not supported: "),
        (["--agent", "reviewer"], "--agent is not supported: "),
        (["--assistant"], "--assistant is not supported: "),
        (["--proactive"], "--proactive is not supported: "),
        (["--json-schema", '{"type": "nonsense"}'], "--json-schema is not a valid JSON schema"),
        (["--agents", "[1]"], "--agents must be a JSON object"),
    ],
)
def test_sdk_flags_we_cannot_honour_are_refused_in_one_line(flags: list[str], says: str, workspace: Path, tmp_path: Path) -> None:
    done = run_cli(["-p", "hi", "--output-format", "json", *flags], workspace, cli_env("anthropic", "http://127.0.0.1:9", tmp_path / "home"))
    assert done.returncode == 2 and says in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    (result,) = json_lines(done.stdout)
    assert result["is_error"] and says in result["errors"][0]


def test_an_sdk_mcp_server_without_the_sdk_fails_in_one_line_and_the_run_goes_on(workspace: Path, tmp_path: Path) -> None:
    config = json.dumps({"mcpServers": {"calc": {"type": "sdk", "name": "calc"}}})
    with fake_server("anthropic", [Reply(text="Fine.")]) as server:
        done = run_cli(["-p", "hi", "--output-format", "json", "--mcp-config", config], workspace, cli_env("anthropic", server.url, tmp_path / "home"))
    assert done.returncode == 0, done.stderr
    assert "MCP server 'calc'" in done.stderr and "needs --input-format stream-json" in done.stderr
    assert json_lines(done.stdout)[-1]["result"] == "Fine."


def test_no_session_persistence_leaves_no_session_behind_and_debug_is_accepted(workspace: Path, tmp_path: Path) -> None:
    home, scratch = tmp_path / "home", tmp_path / "tmp"
    scratch.mkdir()
    env = {**cli_env("anthropic", "", home), "TMPDIR": str(scratch)}
    calls = (Call("write_file", json.dumps({"path": "made.txt", "content": "x" * 200_000})),)
    with fake_server("anthropic", [Reply(calls=calls), Reply(text="Wrote it.")]) as server:
        env["ANTHROPIC_BASE_URL"] = server.url
        args = ["-p", "write", "--output-format", "json", "--permission-mode", "acceptEdits", "--no-session-persistence", "--debug"]
        done = run_cli(args, workspace, env)
    assert done.returncode == 0, done.stderr
    assert json_lines(done.stdout)[-1]["result"] == "Wrote it." and (workspace / "made.txt").stat().st_size == 200_000
    assert "--debug writes no separate log" in done.stderr
    assert not any(path.suffix == ".jsonl" for path in home.rglob("*")), "a session was saved"
    assert [path.name for path in scratch.iterdir() if path.name.startswith("pseudoclaude-session-")] == [], "the temporary session stayed"
    listed = run_cli(["sessions", "list", "--json"], workspace, env)
    assert listed.returncode == 0 and json.loads(listed.stdout or "[]") == []
