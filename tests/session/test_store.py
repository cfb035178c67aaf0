from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from pseudoclaude.llm.messages import Message, ToolCall, Usage
from pseudoclaude.session.reader import replay_lines
from pseudoclaude.session import (
    FORMAT_VERSION,
    SessionError,
    SessionNotFound,
    create_session,
    is_session_id,
    load_replay,
    open_session,
    session_folder,
    workspace_key,
)


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def test_new_session_starts_with_a_meta_entry(sessions_dir: Path, workspace: Path) -> None:
    with create_session(sessions_dir, workspace, model="gpt-4.1", provider="openai") as session:
        first = _lines(session.jsonl_path)[0]
    assert list(first)[:4] == ["type", "id", "ts", "version"]
    assert (first["type"], first["version"], first["model"], first["provider"]) == ("meta", FORMAT_VERSION, "gpt-4.1", "openai")
    assert first["session_id"] == session.id
    assert first["cwd"] == str(workspace)


def test_layout_is_private(sessions_dir: Path, workspace: Path) -> None:
    with create_session(sessions_dir, workspace, model="m", provider="p") as session:
        session.append_message(Message.user("secret"))
    assert session.folder == sessions_dir / workspace_key(workspace) / session.id
    for folder in (sessions_dir, session.folder.parent, session.folder, session.spill_dir):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(session.jsonl_path.stat().st_mode) == 0o600


def test_session_ids_are_valid_unique_and_sort_by_creation(sessions_dir: Path, workspace: Path) -> None:
    ids = []
    for _ in range(5):
        with create_session(sessions_dir, workspace, model="m", provider="p") as session:
            ids.append(session.id)
    assert all(is_session_id(i) for i in ids)
    assert len(set(ids)) == 5
    assert [i[:15] for i in ids] == sorted(i[:15] for i in ids)


def test_workspace_key_is_readable_and_collision_free(tmp_path: Path) -> None:
    first, second = tmp_path / "a" / "app", tmp_path / "b" / "app"
    assert workspace_key(first).startswith("app-")
    assert workspace_key(first) != workspace_key(second)
    assert workspace_key(tmp_path / "my project").startswith("my_project-")


@pytest.mark.parametrize("hostile", ["../../x", "..", "20261129-231500-abcdef/../../etc", "/etc/passwd", ""])
def test_hostile_session_id_is_refused(sessions_dir: Path, workspace: Path, hostile: str) -> None:
    with pytest.raises(SessionNotFound, match="not a valid session id"):
        open_session(sessions_dir, workspace, hostile)
    with pytest.raises(SessionNotFound):
        session_folder(sessions_dir, workspace, hostile)


def test_opening_a_missing_session_is_not_found(sessions_dir: Path, workspace: Path) -> None:
    with pytest.raises(SessionNotFound, match="no session 20260101-000000-abcdef"):
        open_session(sessions_dir, workspace, "20260101-000000-abcdef")


def test_resume_replays_and_keeps_appending(sessions_dir: Path, workspace: Path) -> None:
    with create_session(sessions_dir, workspace, model="m", provider="p") as session:
        session.append_message(Message.user("one"))
        session.append_message(Message.assistant("two"))
    resumed, replay = open_session(sessions_dir, workspace, session.id)
    with resumed:
        resumed.append_message(Message.user("three"))
    assert [m.text for m in replay.conversation] == ["one", "two"]
    assert [m.text for m in load_replay(session.folder).conversation] == ["one", "two", "three"]
    assert replay.meta.model == "m"


def test_messages_round_trip_exactly(sessions_dir: Path, workspace: Path) -> None:
    messages = [
        Message.user("héllo 世界"),
        Message.assistant("", [ToolCall("c1", "read_file", '{"path": "a.py"')]),
        Message.tool("c1", "bad json", is_error=True),
    ]
    with create_session(sessions_dir, workspace, model="m", provider="p") as session:
        for message in messages:
            session.append_message(message)
    assert list(load_replay(session.jsonl_path).conversation) == messages


def test_lone_surrogates_round_trip_and_file_stays_utf8(sessions_dir: Path, workspace: Path) -> None:
    content = b"binary \xff\xfe output".decode("utf-8", "surrogateescape")
    with create_session(sessions_dir, workspace, model="m", provider="p") as session:
        session.append_message(Message.tool("c1", content))
    session.jsonl_path.read_bytes().decode("utf-8")
    assert load_replay(session.folder).conversation[0].tool_result.content == content  # type: ignore[union-attr]


def test_files_are_only_appended_to(sessions_dir: Path, workspace: Path) -> None:
    with create_session(sessions_dir, workspace, model="m", provider="p") as session:
        session.append_message(Message.user("first"))
        before = session.jsonl_path.read_bytes()
        session.set_title("a title")
        session.append_compaction(summary="s", messages=[Message.user("s")], trigger="auto", before_tokens=9, after_tokens=1)
        session.append_error("RateLimited", "slow down")
        session.append_interrupt()
    after = session.jsonl_path.read_bytes()
    assert after.startswith(before)
    assert [e["type"] for e in _lines(session.jsonl_path)][2:] == ["title", "compaction", "error", "interrupt"]


def test_title_is_normalized_and_last_one_wins(sessions_dir: Path, workspace: Path) -> None:
    with create_session(sessions_dir, workspace, model="m", provider="p") as session:
        session.set_title("first\n  prompt")
        session.set_title("x" * 300)
    assert session.meta.title == "x" * 119 + "…"
    assert load_replay(session.folder).meta.title == "x" * 119 + "…"


def test_compaction_boundary_defines_the_conversation(sessions_dir: Path, workspace: Path) -> None:
    prefix = [Message.user("summary"), Message.assistant("ok"), Message.user("note: re-read files")]
    with create_session(sessions_dir, workspace, model="m", provider="p") as session:
        for text in ("a", "b", "c"):
            session.append_message(Message.user(text))
        session.append_usage(Usage(100, 5), context_messages=3)
        session.append_compaction(summary="summary", messages=prefix, trigger="auto", before_tokens=100, after_tokens=10)
        session.append_message(Message.assistant("d"))
    replay = load_replay(session.folder)
    assert [m.text for m in replay.conversation] == ["summary", "ok", "note: re-read files", "d"]
    assert [m.text for m in replay.transcript] == ["a", "b", "c", "d"]
    assert replay.boundaries == (3,)
    assert replay.anchor is None


def test_anchor_is_the_last_usage_after_the_boundary(sessions_dir: Path, workspace: Path) -> None:
    with create_session(sessions_dir, workspace, model="m", provider="p") as session:
        session.append_message(Message.user("a"))
        session.append_usage(Usage(10, 1, cache_read_tokens=5), context_messages=1)
        session.append_message(Message.assistant("b"))
        session.append_message(Message.user("c"))
        session.append_usage(Usage(20, 2, cache_read_tokens=30, cache_write_tokens=4), context_messages=3)
    replay = load_replay(session.folder)
    assert replay.anchor == (54, 3)
    assert replay.usage_total == Usage(30, 3, 35, 4)


def test_replacements_are_replayed_with_resolved_paths(sessions_dir: Path, workspace: Path) -> None:
    with create_session(sessions_dir, workspace, model="m", provider="p") as session:
        spilled = session.write_spill("call/1", "x" * 100)
        session.append_replacement("call/1", "[preview]", layer="offload", original_bytes=100, path=str(spilled))
        session.append_replacement("call/2", "[p2]", layer="offload", original_bytes=7, path="/elsewhere/r.txt")
    recorded = [e for e in _lines(session.jsonl_path) if e["type"] == "replacement"]
    assert recorded[0]["path"] == f"tool-results/{spilled.name}"
    replay = load_replay(session.folder)
    assert replay.replacements["call/1"].path == str(spilled)
    assert replay.replacements["call/2"].path == "/elsewhere/r.txt"
    assert replay.previews() == {"call/1": "[preview]", "call/2": "[p2]"}


def test_append_after_close_is_refused(sessions_dir: Path, workspace: Path) -> None:
    session = create_session(sessions_dir, workspace, model="m", provider="p")
    session.close()
    with pytest.raises(SessionError, match="closed"):
        session.append_message(Message.user("late"))


def test_public_surface_is_pinned() -> None:
    import pseudoclaude.session as session_package

    assert {
        "Session",
        "Replay",
        "Replacement",
        "SessionInfo",
        "create_session",
        "open_session",
        "load_replay",
        "list_sessions",
        "latest_session_id",
        "SessionError",
        "SessionInUse",
        "SessionFormatError",
        "SessionNotFound",
    } <= set(session_package.__all__)
    assert all(hasattr(session_package, name) for name in session_package.__all__)


def test_uncreatable_sessions_folder_is_a_session_error(tmp_path: Path, workspace: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    with pytest.raises(SessionError, match="cannot create a session under"):
        create_session(blocker / "sessions", workspace, model="m", provider="p")


def test_a_learned_window_is_replayed(tmp_path: Path) -> None:
    session = create_session(tmp_path / "sessions", tmp_path, model="m", provider="anthropic")
    session.append_message(Message.user("hi"))
    session.append_window(32_000)
    session.append_window(16_000)
    session.close()
    assert load_replay(session.folder).learned_window == 16_000


def test_a_cleared_result_replays_without_a_file_and_drops_the_anchor(tmp_path: Path) -> None:
    session = create_session(tmp_path / "sessions", tmp_path, model="m", provider="anthropic")
    session.append_message(Message.user("hi"))
    session.append_usage(Usage(input_tokens=100), context_messages=1)
    session.append_replacement("c1", "[Old tool result content cleared]", layer="clear", original_bytes=500, resets_anchor=True)
    session.close()
    replay = load_replay(session.folder)
    assert replay.replacements["c1"].path == "" and replay.replacements["c1"].layer == "clear" and replay.anchor is None
    assert replay.last_call_at is not None and replay.last_call_at > 1_700_000_000


def test_any_layer_replacement_replays_the_same_way_and_only_an_anchor_reset_drops_the_anchor(tmp_path: Path) -> None:
    session = create_session(tmp_path / "sessions", tmp_path, model="m", provider="anthropic")
    session.append_message(Message.user("hi"))
    session.append_usage(Usage(input_tokens=100), context_messages=1)
    session.append_replacement("c1", "[a future layer's marker]", layer="shrink", original_bytes=900)
    session.close()
    replay = load_replay(session.folder)
    assert replay.previews() == {"c1": "[a future layer's marker]"} and replay.replacements["c1"].layer == "shrink"
    assert replay.anchor == (100, 1)


def test_a_format_1_1_cleared_result_with_an_empty_path_still_drops_the_anchor(tmp_path: Path) -> None:
    lines = [
        b'{"type":"meta","id":"000000000001","ts":"2026-01-01T00:00:00.000Z","version":"1.1","session_id":"s","cwd":"/w","model":"m","provider":"p","created":"2026-01-01T00:00:00.000Z","pseudoclaude_version":"0.1"}\n',
        b'{"type":"message","id":"000000000002","ts":"2026-01-01T00:00:01.000Z","version":"1.1","message":{"role":"user","text":"hi"}}\n',
        b'{"type":"usage","id":"000000000003","ts":"2026-01-01T00:00:02.000Z","version":"1.1","usage":{"input_tokens":100},"context_messages":1}\n',
        b'{"type":"replacement","id":"000000000004","ts":"2026-01-01T00:00:03.000Z","version":"1.1","call_id":"c1","path":"","preview":"[cleared]","original_bytes":5}\n',
    ]
    replay = replay_lines(lines, folder=tmp_path)
    assert replay.replacements["c1"].layer == "clear" and replay.anchor is None
