"""Session durability through the real CLI: a full disk, a read-only session, loose permissions, a broken working folder.

A full disk is simulated without root with ``RLIMIT_FSIZE``: a ``sitecustomize``
on the CLI's ``PYTHONPATH`` lowers the limit (and ignores ``SIGXFSZ``) before
anything runs, so the session file's write that crosses it stops part-way and
the next one fails with ``EFBIG``, exactly as a disk that fills up mid-line.
Permission cases run the CLI without ``CAP_DAC_OVERRIDE`` when the tests run as
root (``setpriv``), so a ``chmod`` binds it as it binds a user.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pseudoclaude.session import load_replay
from tests.e2e.support import cli_command, cli_env, fake_server, json_lines, run_cli
from tests.fakes.script import Call, Reply
from tests.tui.terminal import Terminal, env_for, request_text

pytestmark = pytest.mark.slow

LIMIT = 8192
_SHIM = """
import os, resource, signal
_limit = os.environ.get("TEST_FILE_SIZE_LIMIT")
if _limit:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (int(_limit), int(_limit)))
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("".join(f"note line {n:05d}\n" for n in range(3000)))
    return ws


def limited(env: dict[str, str], tmp_path: Path, limit: int = LIMIT) -> dict[str, str]:
    """``env`` for a CLI whose files cannot grow past ``limit`` bytes."""
    shim = tmp_path / "shim"
    shim.mkdir(exist_ok=True)
    (shim / "sitecustomize.py").write_text(_SHIM)
    return {**env, "PYTHONPATH": os.pathsep.join(p for p in (str(shim), env.get("PYTHONPATH", "")) if p), "TEST_FILE_SIZE_LIMIT": str(limit)}


def unprivileged(command: list[str]) -> list[str]:
    """``command`` without the capabilities that let root ignore file modes."""
    if os.geteuid() != 0:
        return command
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: file modes cannot bind the CLI")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search", "--", *command]


def reads_then_answers() -> list[Any]:
    return [
        Reply(text="Let me read the notes.", calls=(Call("read_file", json.dumps({"path": "notes.txt"})),)),
        Reply(text="LOST-ANSWER: 3000 lines."),
    ]


def session_files(home: Path) -> list[Path]:
    return sorted(home.glob("sessions/*/*/session.jsonl"))


def test_a_full_disk_is_an_event_a_stderr_line_and_exit_3_and_resume_says_what_was_lost(workspace: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    with fake_server("anthropic", reads_then_answers()) as server:
        env = limited(cli_env("anthropic", server.url, home), tmp_path)
        proc = run_cli(["-p", "Count my notes", "--output-format", "events", "--permission-mode", "bypass"], workspace, env)
    assert proc.returncode == 3, proc.stderr
    assert proc.stderr.count("the session can no longer be saved") == 1, proc.stderr
    assert "file too large" in proc.stderr
    events = json_lines(proc.stdout)
    failed = [e for e in events if e["type"] == "session_write_failed"]
    (path,) = session_files(home)
    assert len(failed) == 1 and failed[0]["path"] == str(path) and "file too large" in failed[0]["error"]
    assert events[-1]["type"] == "result" and events[-1]["result"] == "LOST-ANSWER: 3000 lines."  # the work went on
    assert events[-1]["session_error"] == failed[0]["message"] and events[-1]["is_error"] is True
    data = path.read_bytes()
    assert data.endswith(b"\n") and all(json.loads(line) for line in data.splitlines())  # a valid prefix: the failed write was cut back
    assert b"LOST-ANSWER" not in data and b'"kind":"session_write_failed"' in data

    with fake_server("anthropic", [Reply(text="Resumed.")]) as server:
        proc = run_cli(["--continue", "-p", "What did you find?"], workspace, cli_env("anthropic", server.url, home))
    assert proc.returncode == 0, proc.stderr
    assert "could not be saved" in proc.stderr and "entries were lost" in proc.stderr and "incomplete entry" not in proc.stderr
    sent = request_text(server.requests[0])
    assert "Count my notes" in sent and "Let me read the notes." in sent
    assert "LOST-ANSWER" not in sent and "note line 02999" not in sent
    replay = load_replay(path)
    assert replay.skipped_lines == 0
    assert replay.conversation[-1].text == "Resumed."


@pytest.mark.parametrize("output_format", ["stream-json", "json"])
def test_a_full_disk_makes_the_claude_result_an_error_with_an_event_and_leaves_a_valid_prefix(output_format: str, workspace: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    with fake_server("anthropic", reads_then_answers()) as server:
        env = limited(cli_env("anthropic", server.url, home), tmp_path)
        proc = run_cli(["-p", "Count my notes", "--output-format", output_format, "--permission-mode", "bypass"], workspace, env)
    assert proc.returncode == 3, proc.stderr
    lines = json_lines(proc.stdout)
    result = lines[-1]
    assert result["type"] == "result" and result["result"] == "LOST-ANSWER: 3000 lines."
    assert result["is_error"] is True and result["subtype"] == "error_during_execution"
    assert "file too large" in result["session_error"] and result["error"] == result["session_error"]
    failed = [line for line in lines if line.get("subtype") == "session_write_failed"]
    if output_format == "stream-json":
        assert len(failed) == 1 and failed[0]["type"] == "system" and failed[0]["message"] == result["session_error"]
        assert failed[0]["session_id"] == result["session_id"]
    else:
        assert failed == [] and len(lines) == 1
    (path,) = session_files(home)
    data = path.read_bytes()
    assert data.endswith(b"\n") and all(json.loads(line) for line in data.splitlines())


def test_a_really_full_disk_leaves_a_valid_prefix_and_says_so_in_stream_json(workspace: Path, tmp_path: Path) -> None:
    """ENOSPC from a real 200 KB tmpfs (root only) holding the sessions, filled up part-way through a long assistant message."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=200k", "tmpfs", str(disk)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        script = [
            Reply(text="Let me think aloud. " + "padding " * 40_000, calls=(Call("read_file", json.dumps({"path": "notes.txt"})),)),
            Reply(text="LOST-ANSWER: many lines."),
        ]
        with fake_server("anthropic", script) as server:
            env = cli_env("anthropic", server.url, tmp_path / "home")
            proc = run_cli(
                ["-p", "Count my notes", "--output-format", "stream-json", "--permission-mode", "bypass", "--sessions-dir", str(disk)], workspace, env
            )
        assert proc.returncode == 3, proc.stderr
        lines = json_lines(proc.stdout)
        failed = [line for line in lines if line.get("subtype") == "session_write_failed"]
        assert len(failed) == 1 and "disk full" in failed[0]["error"]
        assert lines[-1]["is_error"] is True and lines[-1]["subtype"] == "error_during_execution" and "disk full" in lines[-1]["session_error"]
        (path,) = sorted(disk.glob("*/*/session.jsonl"))
        data = path.read_bytes()
        assert data.endswith(b"\n") and all(json.loads(line) for line in data.splitlines())
        assert b"LOST-ANSWER" not in data
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def test_text_output_keeps_stdout_the_answer_and_says_it_on_stderr(workspace: Path, tmp_path: Path) -> None:
    with fake_server("anthropic", reads_then_answers()) as server:
        env = limited(cli_env("anthropic", server.url, tmp_path / "home"), tmp_path)
        proc = run_cli(["-p", "Count my notes", "--permission-mode", "bypass"], workspace, env)
    assert proc.returncode == 3
    assert proc.stdout == "LOST-ANSWER: 3000 lines.\n"
    lines = [line for line in proc.stderr.splitlines() if "can no longer be saved" in line]
    assert len(lines) == 1 and lines[0].startswith("pseudoclaude: error: ")


def test_a_read_only_session_fails_loudly_at_once_and_is_left_untouched(workspace: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    with fake_server("anthropic", [Reply(text="First.")]) as server:
        assert run_cli(["-p", "hello"], workspace, cli_env("anthropic", server.url, home)).returncode == 0
    (path,) = session_files(home)
    before = path.read_bytes()
    path.chmod(0o400)
    path.parent.chmod(0o500)
    try:
        with fake_server("anthropic", [Reply(text="Second.")]) as server:
            command = unprivileged(cli_command("--continue", "-p", "again"))
            proc = subprocess.run(command, cwd=workspace, env=cli_env("anthropic", server.url, home), capture_output=True, text=True, timeout=120)
    finally:
        path.parent.chmod(0o700)
        path.chmod(0o600)
    assert proc.returncode == 3, proc.stderr
    assert "the session can no longer be saved" in proc.stderr and "not writable (Permission denied)" in proc.stderr
    assert proc.stdout == "Second.\n"
    assert path.read_bytes() == before


def test_the_repl_says_once_that_the_session_is_no_longer_saved(workspace: Path, tmp_path: Path) -> None:
    with fake_server("anthropic", [*reads_then_answers(), Reply(text="Still here.")]) as server:
        term = Terminal(["--permission-mode", "bypass"], workspace, limited(env_for(server.url, tmp_path / "home"), tmp_path))
        try:
            term.expect_prompt()
            term.send_line("Count my notes")
            term.expect(r"the session can no\s+longer be saved")
            term.expect(r"LOST-ANSWER")
            term.expect_prompt()
            term.send_line("And now?")
            term.expect(r"Still here\.")
            term.expect_prompt()
            term.send("\x04")
            assert term.exit_code() == 0
        finally:
            term.close()
    assert len(re.findall(r"can no\s+longer\s+be\s+saved", term.raw)) == 1


def test_new_session_files_are_private_even_under_a_permissive_umask(workspace: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    with fake_server("anthropic", reads_then_answers()) as server:
        command = ["sh", "-c", 'umask 000; exec "$@"', "sh", *cli_command("-p", "Count my notes", "--permission-mode", "bypass", "--context-window", "8000")]
        proc = subprocess.run(command, cwd=workspace, env=cli_env("anthropic", server.url, home), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    (path,) = session_files(home)
    for item in [path.parent, *path.parent.rglob("*")]:
        mode = stat.S_IMODE(item.stat().st_mode)
        assert mode & 0o077 == 0, f"{item} is {mode:04o}"


def test_loose_permissions_of_an_existing_session_are_tightened_with_a_notice(workspace: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    with fake_server("anthropic", [Reply(text="First.")]) as server:
        assert run_cli(["-p", "hello"], workspace, cli_env("anthropic", server.url, home)).returncode == 0
    (path,) = session_files(home)
    path.chmod(0o644)
    path.parent.chmod(0o755)
    with fake_server("anthropic", [Reply(text="Second.")]) as server:
        proc = run_cli(["--continue", "-p", "again"], workspace, cli_env("anthropic", server.url, home))
    assert proc.returncode == 0, proc.stderr
    assert f"{path} was open to others (mode 0644); made private (0600)" in proc.stderr
    assert f"{path.parent} was open to others (mode 0755); made private (0700)" in proc.stderr
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700


@pytest.mark.parametrize("args", [["-p", "hello"], []], ids=["print", "repl"])
def test_a_deleted_working_folder_is_one_line_and_exit_2(args: list[str], tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    script = f'cd "{gone}" && rmdir "{gone}" && exec "$@"'
    env = cli_env("anthropic", "http://127.0.0.1:9", tmp_path / "home")
    proc = subprocess.run(["sh", "-c", script, "sh", *cli_command(*args)], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [f"pseudoclaude: the working folder {gone} no longer exists (deleted or moved): cd to an existing folder and run again"]


@pytest.mark.parametrize("args", [["-p", "hello"], []], ids=["print", "repl"])
def test_an_unreadable_working_folder_is_one_line_and_exit_2(args: list[str], tmp_path: Path) -> None:
    closed = tmp_path / "closed"
    closed.mkdir()
    closed.chmod(0)
    try:
        env = cli_env("anthropic", "http://127.0.0.1:9", tmp_path / "home")
        proc = subprocess.run(unprivileged(cli_command(*args)), cwd=closed, env=env, capture_output=True, text=True, timeout=60)
    finally:
        closed.chmod(0o700)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"pseudoclaude: the working folder {closed} cannot be read (Permission denied): cd to a folder you can read and run again"
    ]


def test_a_read_only_sessions_folder_refuses_a_new_session_in_one_line(workspace: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    with fake_server("anthropic", [Reply(text="First.")]) as server:
        assert run_cli(["-p", "hello"], workspace, cli_env("anthropic", server.url, home)).returncode == 0
    (path,) = session_files(home)
    sessions = path.parent.parent
    sessions.chmod(0o500)
    try:
        with fake_server("anthropic", [Reply(text="Second.")]) as server:
            command = unprivileged(cli_command("-p", "again"))
            proc = subprocess.run(command, cwd=workspace, env=cli_env("anthropic", server.url, home), capture_output=True, text=True, timeout=120)
    finally:
        sessions.chmod(0o700)
    assert proc.returncode == 2 and server.requests == []
    assert proc.stderr.splitlines() == [f"pseudoclaude: cannot create a session under {sessions}: Permission denied"]
