"""The picker's rows and search, without a terminal; the exit hint."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from pseudoclaude.session import SessionInfo
from pseudoclaude.tui.picker import PickItem, matching, rows, session_items
from pseudoclaude.tui.resume_hint import resume_hint

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)


def test_every_word_of_the_query_must_match_case_ignored() -> None:
    items = [PickItem("Fix the parser", "2h ago"), PickItem("Parser docs"), PickItem("Release notes")]
    assert matching(items, "PARSER") == [0, 1]
    assert matching(items, "fix parser") == [0]
    assert matching(items, "") == [0, 1, 2]


def test_rows_mark_the_selection_neutralize_control_characters_and_scroll() -> None:
    items = [PickItem(f"session {n}\x1b[2J", "detail") for n in range(30)]
    text = "".join(fragment[1] for fragment in rows(items, list(range(30)), 20, 80, visible=5))
    assert "❯ session 20" in text and "session 17" not in text and "\x1b" not in text
    assert "(23 of 30; ↑↓ to scroll)" in text
    assert "no match" in "".join(f[1] for f in rows(items, [], 0, 80))


def test_session_rows_show_title_age_turns_id_and_the_first_prompt(tmp_path: Path) -> None:
    folder = tmp_path / "20261130-110000-abcd"
    folder.mkdir()
    (folder / "session.jsonl").write_text(
        '{"type":"meta","id":"1","ts":"2026-11-30T11:00:00.000Z","version":"1.4","session_id":"x"}\n'
        '{"type":"message","id":"2","ts":"2026-11-30T11:00:00.000Z","version":"1.4","message":{"role":"user","text":"Why does  the build\\nfail on CI?"}}\n'
    )
    info = SessionInfo("20261130-110000-abcd", "CI build", NOW - timedelta(hours=1), NOW - timedelta(hours=1), 3, 10, folder=folder)
    [item] = session_items([info], NOW)
    assert item.label == "CI build" and item.note == "Why does the build fail on CI?"
    assert "3 turns" in item.detail and "20261130-110000-abcd" in item.detail and "ago" in item.detail
    assert matching([item], "fail abcd") == [0]


def test_the_exit_line_is_the_command_that_resumes() -> None:
    assert resume_hint("20261130-110000-abcd") == "Resume this session with: pseudoclaude --resume 20261130-110000-abcd"
    assert resume_hint(None) == "Bye."
