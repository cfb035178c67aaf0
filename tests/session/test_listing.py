from __future__ import annotations

import os
from pathlib import Path

import pytest

from pseudoclaude.llm.messages import Message, ToolCall
from pseudoclaude.session import (
    SessionNotFound,
    create_session,
    latest_session_id,
    list_sessions,
    resolve_session_id,
)


def _make(sessions_dir: Path, workspace: Path, title: str, prompts: int, mtime: float) -> str:
    with create_session(sessions_dir, workspace, model="claude-x", provider="anthropic") as session:
        session.set_title(title)
        for n in range(prompts):
            session.append_message(Message.user(f'prompt {n} with "message":{{"role":"user"}} inside'))
            session.append_message(Message.assistant("", [ToolCall(f"c{n}", "glob", "{}")]))
            session.append_message(Message.tool(f"c{n}", "a.py"))
    os.utime(session.jsonl_path, (mtime, mtime))
    return session.id


def test_list_reports_title_turns_size_and_model(sessions_dir: Path, workspace: Path) -> None:
    session_id = _make(sessions_dir, workspace, "fix the parser", 3, 1_700_000_000)
    [info] = list_sessions(sessions_dir, workspace)
    assert (info.id, info.title, info.turns, info.model) == (session_id, "fix the parser", 3, "claude-x")
    assert info.size_bytes == (info.folder / "session.jsonl").stat().st_size  # type: ignore[operator]
    assert info.updated.timestamp() == 1_700_000_000
    assert info.created.strftime("%Y%m%d-%H%M%S") == session_id[:15]


def test_compaction_prefixes_are_not_counted_as_turns(sessions_dir: Path, workspace: Path) -> None:
    with create_session(sessions_dir, workspace, model="m", provider="p") as session:
        session.append_message(Message.user("real prompt"))
        session.append_compaction(
            summary="s",
            messages=[Message.user("summary"), Message.assistant("ok")],
            trigger="auto",
            before_tokens=2,
            after_tokens=1,
        )
    assert list_sessions(sessions_dir, workspace)[0].turns == 1


def test_sessions_are_listed_most_recent_first_and_latest_is_the_last_used(sessions_dir: Path, workspace: Path) -> None:
    older = _make(sessions_dir, workspace, "created first, used last", 1, 1_700_000_000)
    newer = _make(sessions_dir, workspace, "created last, used first", 1, 1_600_000_000)
    assert [i.id for i in list_sessions(sessions_dir, workspace)] == [older, newer]
    assert latest_session_id(sessions_dir, workspace) == older


def test_other_workspaces_are_not_listed(sessions_dir: Path, workspace: Path, tmp_path: Path) -> None:
    _make(sessions_dir, workspace, "here", 1, 1_700_000_000)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert list_sessions(sessions_dir, elsewhere) == []
    assert latest_session_id(sessions_dir, elsewhere) is None


def test_stray_folders_are_ignored(sessions_dir: Path, workspace: Path) -> None:
    session_id = _make(sessions_dir, workspace, "real", 1, 1_700_000_000)
    parent = list_sessions(sessions_dir, workspace)[0].folder.parent  # type: ignore[union-attr]
    (parent / "not-a-session").mkdir()
    (parent / "20260101-000000-abcdef").mkdir()
    assert [i.id for i in list_sessions(sessions_dir, workspace)] == [session_id]


def test_resolve_accepts_a_unique_prefix_only(sessions_dir: Path, workspace: Path) -> None:
    first = _make(sessions_dir, workspace, "a", 1, 1_700_000_000)
    second = _make(sessions_dir, workspace, "b", 1, 1_700_000_001)
    assert resolve_session_id(sessions_dir, workspace, first) == first
    assert resolve_session_id(sessions_dir, workspace, second[:-1]) == second
    with pytest.raises(SessionNotFound, match="matches 2 sessions"):
        resolve_session_id(sessions_dir, workspace, first[:9])
    with pytest.raises(SessionNotFound, match="no session"):
        resolve_session_id(sessions_dir, workspace, "1999")
