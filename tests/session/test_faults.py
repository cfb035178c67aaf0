"""Crash, corruption and write-failure behaviour: each fault of the brief, one test each."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from pseudoclaude.llm.messages import Message, ToolCall, Usage
from pseudoclaude.session import (
    FileOps,
    SessionFormatError,
    create_session,
    load_replay,
    open_session,
)
from pseudoclaude.session.writer import open_append
from tests.session.lines import entry_line


def _session_with(sessions_dir: Path, workspace: Path, *texts: str) -> Path:
    with create_session(sessions_dir, workspace, model="m", provider="p") as session:
        for text in texts:
            session.append_message(Message.user(text))
    return session.jsonl_path


def _texts(path: Path) -> list[str]:
    return [m.text for m in load_replay(path).conversation]


def test_torn_last_line_is_skipped_with_a_warning(sessions_dir: Path, workspace: Path) -> None:
    path = _session_with(sessions_dir, workspace, "one", "two")
    with open(path, "ab") as handle:
        handle.write(entry_line("message", message={"role": "user", "text": "three"})[:40])
    replay = load_replay(path)
    assert [m.text for m in replay.conversation] == ["one", "two"]
    assert replay.skipped_lines == 1
    assert "the last 40 bytes are an incomplete entry" in replay.warnings[0]
    assert "never saved" in replay.warnings[0]


def test_append_after_a_torn_tail_starts_a_fresh_line(sessions_dir: Path, workspace: Path) -> None:
    path = _session_with(sessions_dir, workspace, "one")
    with open(path, "ab") as handle:
        handle.write(b'{"type":"message","id":"x","ts":"2026')
    session, _ = open_session(sessions_dir, workspace, path.parent.name)
    with session:
        session.append_message(Message.user("after crash"))
    replay = load_replay(path)
    assert [m.text for m in replay.conversation] == ["one", "after crash"]
    assert replay.skipped_lines == 1
    assert path.read_bytes().endswith(b"\n")


def test_complete_json_missing_only_its_newline_is_kept(sessions_dir: Path, workspace: Path) -> None:
    path = _session_with(sessions_dir, workspace, "one")
    with open(path, "ab") as handle:
        handle.write(entry_line("message", message={"role": "user", "text": "two"}).rstrip(b"\n"))
    session, replay = open_session(sessions_dir, workspace, path.parent.name)
    with session:
        session.append_message(Message.user("three"))
    assert [m.text for m in replay.conversation] == ["one", "two"]
    assert _texts(path) == ["one", "two", "three"]


def test_corrupt_line_in_the_middle_is_skipped_and_replay_resumes(sessions_dir: Path, workspace: Path) -> None:
    path = _session_with(sessions_dir, workspace, "one")
    with open(path, "ab") as handle:
        handle.write(b'{"type":"message", this is not json}\n')
        handle.write(b"[1, 2, 3]\n")
        handle.write(entry_line("message", message={"role": "robot", "text": "bad role"}))
        handle.write(entry_line("message", message={"role": "user", "text": "two"}))
    replay = load_replay(path)
    assert [m.text for m in replay.conversation] == ["one", "two"]
    assert replay.skipped_lines == 3
    assert any("not valid JSON" in w for w in replay.warnings)
    assert any("malformed 'message' entry" in w for w in replay.warnings)


def test_invalid_utf8_line_is_skipped(sessions_dir: Path, workspace: Path) -> None:
    path = _session_with(sessions_dir, workspace, "one")
    with open(path, "ab") as handle:
        handle.write(entry_line("message", message={"role": "user", "text": "ok"}).replace(b"ok", b"\xff\xfe"))
        handle.write(entry_line("message", message={"role": "user", "text": "two"}))
    replay = load_replay(path)
    assert [m.text for m in replay.conversation] == ["one", "two"]
    assert replay.skipped_lines == 1
    assert "invalid UTF-8" in replay.warnings[0]


def test_a_valid_line_of_several_megabytes_is_a_legit_message(sessions_dir: Path, workspace: Path) -> None:
    huge = "y" * (6 * 1024 * 1024)
    with create_session(sessions_dir, workspace, model="m", provider="p") as session:
        session.append_message(Message.tool("c1", huge))
        session.append_message(Message.user("after"))
    replay = load_replay(session.folder)
    assert replay.conversation[0].tool_result.content == huge  # type: ignore[union-attr]
    assert replay.skipped_lines == 0


def test_a_huge_invalid_line_is_skipped(sessions_dir: Path, workspace: Path) -> None:
    path = _session_with(sessions_dir, workspace, "one")
    with open(path, "ab") as handle:
        handle.write(b'{"type":"message","message":{"role":"tool","text":"' + b"z" * (5 * 1024 * 1024) + b"\n")
        handle.write(entry_line("message", message={"role": "user", "text": "two"}))
    replay = load_replay(path)
    assert [m.text for m in replay.conversation] == ["one", "two"]
    assert replay.skipped_lines == 1
    assert all(len(w) < 200 for w in replay.warnings)


def test_unknown_entry_types_of_the_same_major_are_ignored(sessions_dir: Path, workspace: Path) -> None:
    path = _session_with(sessions_dir, workspace, "one")
    with open(path, "ab") as handle:
        handle.write(entry_line("bookmark", version="1.4", label="here"))
        handle.write(entry_line("message", version="1.4", message={"role": "user", "text": "two"}, extra=1))
    replay = load_replay(path)
    assert [m.text for m in replay.conversation] == ["one", "two"]
    assert (replay.skipped_lines, replay.warnings) == (0, ())


def test_a_newer_major_version_is_refused_clearly(sessions_dir: Path, workspace: Path) -> None:
    path = _session_with(sessions_dir, workspace, "one")
    with open(path, "ab") as handle:
        handle.write(entry_line("message", version="2.0", message={"role": "user", "text": "two"}))
    with pytest.raises(SessionFormatError, match=r"session format 2\.0 at line 3 is not supported.*upgrade"):
        load_replay(path)
    with pytest.raises(SessionFormatError):
        open_session(sessions_dir, workspace, path.parent.name)
    with pytest.raises(SessionFormatError):
        open_session(sessions_dir, workspace, path.parent.name)  # the failed open released its lock


def test_interrupted_tool_call_replays_as_recorded(sessions_dir: Path, workspace: Path) -> None:
    call = ToolCall("t1", "run_command", '{"command": "sleep 100"}')
    with create_session(sessions_dir, workspace, model="m", provider="p") as session:
        session.append_message(Message.user("run it"))
        session.append_message(Message.assistant("running", [call]))
        session.append_interrupt("user")
    replay = load_replay(session.folder)
    assert replay.conversation == (Message.user("run it"), Message.assistant("running", [call]))


def test_anchor_counting_more_messages_than_the_conversation_is_dropped(sessions_dir: Path, workspace: Path) -> None:
    with create_session(sessions_dir, workspace, model="m", provider="p") as session:
        session.append_message(Message.user("a"))
        session.append_usage(Usage(10, 1), context_messages=7)
    replay = load_replay(session.folder)
    assert replay.anchor is None
    assert "anchor dropped" in replay.warnings[0]


def test_disk_full_is_recorded_not_raised(sessions_dir: Path, workspace: Path) -> None:
    full = FileOps(open=lambda path: os.open("/dev/full", os.O_WRONLY | os.O_APPEND))
    session = create_session(sessions_dir, workspace, model="m", provider="p", ops=full)
    session.append_message(Message.user("lost"))
    session.close()
    assert session.write_failure is not None and session.write_failure.reason == "disk full"
    assert session.write_failure.path == session.jsonl_path
    assert "continues in memory" in session.write_failure.message
    assert session.write_errors == [session.write_failure.message]
    assert session.lost_entries == 2


class _FillsUpMidLine:
    """Writes half of the next line, then reports ENOSPC until ``freed``."""

    def __init__(self) -> None:
        self.full = False
        self.torn = False
        self.freed = False
        self.writes = 0

    def write(self, fd: int, data: bytes) -> int:
        self.writes += 1
        if self.full and not self.freed:
            if not self.torn:
                self.torn = True
                return os.write(fd, data[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device")
        return os.write(fd, data)


def test_after_a_full_disk_nothing_more_is_appended_and_the_loss_is_marked(sessions_dir: Path, workspace: Path) -> None:
    disk = _FillsUpMidLine()
    session = create_session(sessions_dir, workspace, model="m", provider="p", ops=FileOps(write=disk.write))
    session.append_message(Message.user("kept"))
    disk.full = True
    session.append_message(Message.user("torn by full disk"))
    writes = disk.writes
    session.append_message(Message.user("not written"))
    disk.freed = True
    session.append_message(Message.user("after space freed"))
    assert disk.writes == writes  # no holes: nothing is written after the first failure
    session.close()
    replay = load_replay(session.folder)
    assert [m.text for m in replay.conversation] == ["kept"]
    assert replay.skipped_lines == 0  # the half-written line was cut back
    assert len(replay.warnings) == 1
    assert "could not be saved" in replay.warnings[0] and "disk full" in replay.warnings[0]
    assert "3 entries were lost" in replay.warnings[0]
    marker = json.loads([line for line in session.jsonl_path.read_text().splitlines() if "session_write_failed" in line][0])
    assert marker["failed_at"] <= marker["ts"] and marker["failed_at"] in replay.warnings[0]
    assert session.lost_entries == 3


def test_a_full_disk_that_stays_full_leaves_a_valid_prefix_with_no_torn_line(sessions_dir: Path, workspace: Path) -> None:
    disk = _FillsUpMidLine()
    session = create_session(sessions_dir, workspace, model="m", provider="p", ops=FileOps(write=disk.write))
    session.append_message(Message.user("kept"))
    before = session.jsonl_path.read_bytes()
    disk.full = True
    session.append_message(Message.user("torn by full disk"))
    session.close()
    assert disk.torn and session.jsonl_path.read_bytes() == before
    replay = load_replay(session.folder)
    assert [m.text for m in replay.conversation] == ["kept"]
    assert replay.warnings == () and replay.skipped_lines == 0


def test_when_the_cut_back_fails_too_the_torn_line_stays_isolated(sessions_dir: Path, workspace: Path) -> None:
    def cannot_truncate(fd: int, size: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    disk = _FillsUpMidLine()
    session = create_session(sessions_dir, workspace, model="m", provider="p", ops=FileOps(write=disk.write, truncate=cannot_truncate))
    session.append_message(Message.user("kept"))
    disk.full = True
    session.append_message(Message.user("torn by full disk"))
    session.close()
    replay = load_replay(session.folder)
    assert [m.text for m in replay.conversation] == ["kept"]
    assert replay.warnings == (f"line 3: {replay.warnings[0].split(': ', 1)[1]}",)
    assert "the last" in replay.warnings[0] and "incomplete entry" in replay.warnings[0]


def test_read_only_session_folder_is_recorded_not_raised(sessions_dir: Path, workspace: Path) -> None:
    path = _session_with(sessions_dir, workspace, "one")
    before = path.read_bytes()

    def read_only(_: Path) -> int:
        raise OSError(errno.EROFS, "Read-only file system")

    session, replay = open_session(sessions_dir, workspace, path.parent.name, ops=FileOps(open=read_only))
    session.append_message(Message.user("two"))
    session.sync()
    session.close()
    assert [m.text for m in replay.conversation] == ["one"]
    assert "not writable" in session.write_errors[0]
    assert path.read_bytes() == before


def test_fsync_failure_is_recorded(sessions_dir: Path, workspace: Path) -> None:
    def failing_fsync(_: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    session = create_session(sessions_dir, workspace, model="m", provider="p", ops=FileOps(fsync=failing_fsync))
    session.append_message(Message.user("one"))
    session.sync()
    session.close()
    assert session.write_failure is not None and session.write_failure.action == "fsync"
    assert "fsync failed" in session.write_errors[0]
    assert _texts(session.jsonl_path) == []  # an fsync error may have dropped pages: nothing is appended after it


def test_default_file_ops_open_for_append(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"old\n")
    fd = open_append(path)
    os.write(fd, b"new\n")
    os.close(fd)
    assert path.read_bytes() == b"old\nnew\n"
