"""``pseudoclaude sessions export``: a real process reading a session the real writer wrote."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pseudoclaude.llm.messages import Message, ToolCall
from pseudoclaude.session import create_session
from tests.e2e.support import cli_env, run_cli
from tests.tui.terminal import Terminal

pytestmark = pytest.mark.slow


@pytest.fixture
def recorded(tmp_path: Path) -> tuple[Path, Path, str]:
    """(workspace, sessions folder, session id) of a session with a question, a tool call and an answer."""
    workspace, sessions = tmp_path / "ws", tmp_path / "home" / "sessions"
    workspace.mkdir()
    with create_session(sessions, workspace.resolve(), model="claude-sonnet-4-5", provider="anthropic") as session:
        session.append_message(Message.user("How many lines in notes.txt?"))
        session.append_message(Message.assistant("Counting.", [ToolCall("c1", "run_command", '{"command": "wc -l notes.txt"}')]))
        session.append_message(Message.tool("c1", "3 notes.txt"))
        session.append_message(Message.assistant("It has **3** lines."))
        return workspace, sessions, session.id


def test_export_prints_markdown_and_writes_json_to_a_file(recorded: tuple[Path, Path, str], tmp_path: Path) -> None:
    workspace, sessions, session_id = recorded
    env = cli_env("anthropic", "http://127.0.0.1:9", tmp_path / "home")
    shown = run_cli(["sessions", "export", session_id[:-2], "--sessions-dir", str(sessions)], workspace, env)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == "# How many lines in notes.txt?"
    assert "**Tool call:** `run_command`" in lines and '  "command": "wc -l notes.txt"' in lines and "It has **3** lines." in lines
    written = run_cli(["sessions", "export", session_id, "--format", "json", "-o", "out/chat.json", "--sessions-dir", str(sessions)], workspace, env)
    target = workspace / "out" / "chat.json"
    assert written.returncode == 0 and written.stdout.strip() == f"Exported session {session_id} to {target}"
    document = json.loads(target.read_text())
    assert [e["role"] for e in document["entries"]] == ["user", "assistant", "tool", "assistant"]


def test_export_of_an_unknown_session_or_format_is_one_line_and_exit_2(recorded: tuple[Path, Path, str], tmp_path: Path) -> None:
    workspace, sessions, session_id = recorded
    env = cli_env("anthropic", "http://127.0.0.1:9", tmp_path / "home")
    for args in (["sessions", "export", "20991231-000000-abcdef"], ["sessions", "export", session_id, "--format", "pdf"]):
        proc = run_cli([*args, "--sessions-dir", str(sessions)], workspace, env)
        assert proc.returncode == 2 and proc.stdout == "" and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_export_to_a_terminal_spells_out_a_tool_s_escape_sequences(tmp_path: Path, terminals: list[Terminal]) -> None:
    workspace, sessions = tmp_path / "ws", tmp_path / "home" / "sessions"
    workspace.mkdir()
    with create_session(sessions, workspace.resolve(), model="claude-sonnet-4-5", provider="anthropic") as session:
        session.append_message(Message.user("Show the log"))
        session.append_message(Message.assistant("", [ToolCall("c1", "run_command", '{"command": "cat log"}')]))
        session.append_message(Message.tool("c1", "before \x1b]52;c;ZXZpbA==\x07 after"))
        session_id = session.id
    term = Terminal(
        ["sessions", "export", session_id, "--sessions-dir", str(sessions)], workspace, cli_env("anthropic", "http://127.0.0.1:9", tmp_path / "home")
    )
    terminals.append(term)
    term.expect(re.escape("before ^[]52;c;ZXZpbA==^G after"))
    assert term.exit_code() == 0
    assert "\x1b]52" not in term.raw
