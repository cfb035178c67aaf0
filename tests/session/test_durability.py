"""What resuming tells about a session's damage and exposure: a byte-order mark, loose modes, a recorded loss."""

from __future__ import annotations

import codecs
import errno
import os
import stat
from pathlib import Path

from pseudoclaude.llm.messages import Message
from pseudoclaude.session import FileOps, create_session, list_sessions, load_replay, open_session


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_leading_byte_order_mark_keeps_the_meta_line(sessions_dir: Path, workspace: Path) -> None:
    with create_session(sessions_dir, workspace, model="gpt-4.1", provider="openai") as session:
        session.set_title("fix the parser")
        session.append_message(Message.user("one"))
    session.jsonl_path.write_bytes(codecs.BOM_UTF8 + session.jsonl_path.read_bytes())
    replay = load_replay(session.folder)
    assert (replay.meta.model, replay.meta.provider, replay.skipped_lines, replay.warnings) == ("gpt-4.1", "openai", 0, ())
    assert [m.text for m in replay.conversation] == ["one"]
    (info,) = list_sessions(sessions_dir, workspace)
    assert (info.model, info.title) == ("gpt-4.1", "fix the parser")


def test_a_byte_order_mark_later_in_the_file_is_not_stripped(sessions_dir: Path, workspace: Path) -> None:
    with create_session(sessions_dir, workspace, model="m", provider="p") as session:
        pass
    with open(session.jsonl_path, "ab") as handle:
        handle.write(codecs.BOM_UTF8 + b'{"type":"message","id":"x","ts":"","version":"1.2","message":{"role":"user","text":"bom"}}\n')
    assert load_replay(session.folder).skipped_lines == 1


def test_opening_a_session_makes_its_files_private_again_and_says_so(sessions_dir: Path, workspace: Path) -> None:
    with create_session(sessions_dir, workspace, model="m", provider="p") as session:
        for n in range(3):
            session.write_spill(f"call-{n}", "secret output")
    session.jsonl_path.chmod(0o644)
    session.folder.chmod(0o755)
    session.spill_dir.chmod(0o775)
    for spilled in session.spill_dir.iterdir():
        spilled.chmod(0o664)
    reopened, replay = open_session(sessions_dir, workspace, session.id)
    reopened.close()
    assert f"{session.jsonl_path} was open to others (mode 0644); made private (0600)" in replay.warnings
    assert f"{session.folder} was open to others (mode 0755); made private (0700)" in replay.warnings
    assert f"{session.spill_dir} was open to others (mode 0775); made private (0700)" in replay.warnings
    assert any(w.startswith(f"3 files in {session.spill_dir}: ") and "(mode 0664)" in w for w in replay.warnings)
    assert len(replay.warnings) == 4
    assert (_mode(session.jsonl_path), _mode(session.folder), _mode(session.spill_dir)) == (0o600, 0o700, 0o700)
    assert {_mode(p) for p in session.spill_dir.iterdir()} == {0o600}
    _, again = open_session(sessions_dir, workspace, session.id)
    assert again.warnings == ()


def test_new_sessions_are_private_under_a_permissive_umask(sessions_dir: Path, workspace: Path) -> None:
    old = os.umask(0)
    try:
        with create_session(sessions_dir, workspace, model="m", provider="p") as session:
            spilled = session.write_spill("c1", "out")
    finally:
        os.umask(old)
    assert (_mode(session.jsonl_path), _mode(spilled), _mode(session.folder), _mode(session.spill_dir)) == (0o600, 0o600, 0o700, 0o700)
    assert _mode(sessions_dir) == 0o700 and _mode(session.folder.parent) == 0o700


def test_a_failure_at_open_loses_every_entry_and_the_file_is_left_as_it_was(sessions_dir: Path, workspace: Path) -> None:
    with create_session(sessions_dir, workspace, model="m", provider="p") as session:
        session.append_message(Message.user("one"))
    before = session.jsonl_path.read_bytes()

    def refuse(_: Path) -> int:
        raise OSError(errno.EIO, "Input/output error")

    reopened, _ = open_session(sessions_dir, workspace, session.id, ops=FileOps(open=refuse))
    assert reopened.write_failure is not None and reopened.write_failure.action == "open"
    assert reopened.write_failure.reason == "Input/output error"
    reopened.append_message(Message.user("two"))
    reopened.close()
    assert reopened.lost_entries == 1
    assert session.jsonl_path.read_bytes() == before
