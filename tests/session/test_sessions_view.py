from __future__ import annotations

from datetime import datetime, timedelta, timezone
from io import StringIO
from pathlib import Path

from rich.console import Console

from pseudoclaude.llm.messages import Message, ToolCall
from pseudoclaude.session import SessionInfo, create_session, load_replay
from pseudoclaude.tui.sessions_view import (
    human_size,
    render_session_list,
    render_transcript,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "sessions" / "examples" / "v1"
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)


def _console() -> tuple[Console, StringIO]:
    out = StringIO()
    return Console(file=out, width=80, color_system=None), out


def test_list_shows_one_row_per_session() -> None:
    console, out = _console()
    infos = [
        SessionInfo("20260301-115500-abcdef", "fix the parser", NOW, NOW - timedelta(minutes=5), 3, 2048),
        SessionInfo("20260220-090000-123456", "", NOW, NOW - timedelta(days=9), 12, 5 * 1024 * 1024),
    ]
    render_session_list(console, infos, now=NOW)
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ["ID", "Updated", "Turns", "Size", "Title"]
    assert lines[1].split() == ["20260301-115500-abcdef", "5m", "ago", "3", "2.0", "KB", "fix", "the", "parser"]
    assert lines[2].split() == ["20260220-090000-123456", "2026-02-20", "12", "5.0", "MB", "(untitled)"]


def test_empty_list_says_so() -> None:
    console, out = _console()
    render_session_list(console, [], now=NOW)
    assert out.getvalue() == "No sessions in this workspace yet.\n"


def test_transcript_shows_messages_compaction_and_offloads() -> None:
    console, out = _console()
    render_transcript(console, load_replay(EXAMPLES / "tools-spill-compaction"))
    text = out.getvalue()
    assert "> Why does the test suite fail on CI? The log is in ci.log." in text
    assert '* read_file({"path": "ci.log"})' in text
    assert "  └ [00000] PASS tests/test_module_0.py::test_case_0" in text
    assert "… +1095 lines" in text
    assert "offloaded (55.8 KB)" in text
    assert "context compacted here" in text
    assert text.index("context compacted here") < text.index("> Make the test independent")


def test_transcript_shows_error_results_and_replay_warnings(tmp_path: Path) -> None:
    with create_session(tmp_path / "s", tmp_path, model="m", provider="p") as session:
        session.append_message(Message.assistant("", [ToolCall("c1", "run_command", '{"command": "false"}')]))
        session.append_message(Message.tool("c1", "exit code 1", is_error=True))
    with open(session.jsonl_path, "ab") as handle:
        handle.write(b"garbage\n")
    console, out = _console()
    render_transcript(console, load_replay(session.folder))
    text = out.getvalue()
    assert "  └ exit code 1" in text
    assert "warning: line 4: not valid JSON; skipped" in text


def test_human_size() -> None:
    assert [human_size(n) for n in (0, 1023, 1024, 1536 * 1024)] == ["0 B", "1023 B", "1.0 KB", "1.5 MB"]
