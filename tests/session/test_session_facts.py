"""The facts a resume replays beside the conversation (format 1.6): file stamps, the effort, the permission mode."""

from __future__ import annotations

from pathlib import Path

from pseudoclaude.llm import Message
from pseudoclaude.session import ReadStamp, Session, create_session, load_replay

SHA_A, SHA_B = "a" * 64, "b" * 64


def new_session(tmp_path: Path) -> Session:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return create_session(tmp_path / "sessions", workspace, model="claude-sonnet-4-5", provider="anthropic")


def test_the_latest_stamp_of_each_file_is_replayed(tmp_path: Path) -> None:
    session = new_session(tmp_path)
    session.append_file_stamp(ReadStamp("/ws/a.py", 1, 10, SHA_A))
    session.append_file_stamp(ReadStamp("/ws/b.py", 2, 20, SHA_A))
    session.append_file_stamp(ReadStamp("/ws/a.py", 3, 11, SHA_B))
    session.close()
    replay = load_replay(session.jsonl_path)
    assert [(s.path, s.mtime_ns, s.size, s.sha256) for s in replay.read_stamps] == [("/ws/b.py", 2, 20, SHA_A), ("/ws/a.py", 3, 11, SHA_B)]


def test_a_rewind_undoes_the_stamps_recorded_after_its_cut(tmp_path: Path) -> None:
    session = new_session(tmp_path)
    session.append_message(Message.user("read a"))
    session.append_file_stamp(ReadStamp("/ws/a.py", 1, 10, SHA_A))  # its result is the next message, kept
    session.append_message(Message.assistant("a says alpha"))
    session.append_message(Message.user("read b"))
    session.append_file_stamp(ReadStamp("/ws/b.py", 2, 20, SHA_B))
    session.append_message(Message.assistant("b says beta"))
    session.append_rewind(2, files=False)  # back to before "read b"
    session.close()
    assert [s.path for s in load_replay(session.jsonl_path).read_stamps] == ["/ws/a.py"]


def test_effort_and_mode_replay_their_last_choice(tmp_path: Path) -> None:
    session = new_session(tmp_path)
    session.append_effort("high")
    session.append_mode("plan")
    session.append_effort(None)
    session.append_mode("accept-edits")
    session.close()
    replay = load_replay(session.jsonl_path)
    assert (replay.effort_recorded, replay.effort, replay.mode) == (True, None, "accept-edits")


def test_a_session_without_facts_replays_none_and_a_malformed_stamp_is_skipped(tmp_path: Path) -> None:
    session = new_session(tmp_path)
    session.close()
    with open(session.jsonl_path, "a") as out:
        out.write('{"type":"file_stamp","id":"1","ts":"2026-12-01T00:00:00.000Z","version":"1.6","path":"/ws/a.py","size":-1}\n')
    replay = load_replay(session.jsonl_path)
    assert (replay.read_stamps, replay.effort_recorded, replay.effort, replay.mode) == ((), False, None, "")
    assert replay.skipped_lines == 1
