"""The real CLI, headless: escape sequences from commands and from the model never reach stdout raw; a FIFO is refused.

Issue 13, failures 6 and 8: a command printing OSC 52 wrote the user's
clipboard, the model's ``ESC ] 0`` retitled the window, and ``read_file`` on
a FIFO blocked the process for good.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from tests.e2e.support import cli_env, fake_server, json_lines, run_cli
from tests.fakes.script import Call, Reply

pytestmark = pytest.mark.slow

OSC52 = "\x1b]52;c;cm0gLXJmIH4=\x07"
TITLE = "\x1b]0;pwned\x07"
_RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def hostile_script() -> list[Reply]:
    command = r"printf 'clip \033]52;c;cm0gLXJmIH4=\007 done\n'"
    return [
        Reply(text=f"Running {TITLE}it.", calls=(Call("run_command", json.dumps({"command": command})),)),
        Reply(text=f"The output was {OSC52} and \x9b2J, title {TITLE}."),
    ]


@pytest.mark.parametrize("output_format", ["text", "json", "stream-json"])
def test_no_raw_escape_reaches_stdout_or_stderr(output_format: str, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    with fake_server("anthropic", hostile_script()) as server:
        env = cli_env("anthropic", server.url, tmp_path / "home")
        proc = run_cli(["-p", "go", "--output-format", output_format, "--permission-mode", "bypass"], ws, env)
    assert proc.returncode == 0, proc.stderr
    assert not _RAW.search(proc.stdout) and not _RAW.search(proc.stderr), repr(proc.stdout)
    if output_format == "text":
        assert proc.stdout == "The output was ^[]52;c;cm0gLXJmIH4=^G and M-^[2J, title ^[]0;pwned^G.\n"
    else:
        result = json_lines(proc.stdout)[-1]
        assert result["result"] == f"The output was {OSC52} and \x9b2J, title {TITLE}."
    tool_result = json.dumps(server.requests[1]["messages"])
    assert "clip \\u001b]52;c;cm0gLXJmIH4=\\u0007 done" in tool_result, "the model still gets the command's output as it was"


def test_reading_a_fifo_is_refused_and_the_run_ends(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    os.mkfifo(ws / "pipe")
    script = [Reply(calls=(Call("read_file", json.dumps({"path": "pipe"})),)), Reply(text="It is a pipe.")]
    started = time.monotonic()
    with fake_server("anthropic", script) as server:
        proc = run_cli(["-p", "read pipe", "--output-format", "events"], ws, cli_env("anthropic", server.url, tmp_path / "home"), timeout=60)
    assert time.monotonic() - started < 30
    assert proc.returncode == 0, proc.stderr
    finished = [e for e in json_lines(proc.stdout) if e["type"] == "tool_call_finished"]
    assert finished[0]["is_error"] and "FIFO" in finished[0]["summary"]
    assert "pipe is a FIFO (named pipe), not a regular file" in json.dumps(server.requests[1]["messages"])
    session = next((tmp_path / "home").rglob("session.jsonl")).read_text()
    assert session.endswith("\n") and all(json.loads(line) for line in session.splitlines())


def test_sessions_show_spells_out_the_escapes_of_a_recorded_session(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    with fake_server("anthropic", hostile_script()) as server:
        env = cli_env("anthropic", server.url, tmp_path / "home")
        assert run_cli(["-p", "go", "--permission-mode", "bypass"], ws, env).returncode == 0
    session_id = next((tmp_path / "home").rglob("session.jsonl")).parent.name
    shown = run_cli(["sessions", "show", session_id], ws, env)
    assert shown.returncode == 0, shown.stderr
    assert not _RAW.search(shown.stdout) and "^[]52;c;cm0gLXJmIH4=" in shown.stdout
