"""One writer per session, checked with a real second process."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any
from pathlib import Path

import pytest

from pseudoclaude.llm.messages import Message
from pseudoclaude.session import SessionInUse, create_session, load_replay, open_session

_ROOT = Path(__file__).resolve().parents[2]

_HOLDER = """
import sys
from pathlib import Path
from pseudoclaude.llm.messages import Message
from pseudoclaude.session import open_session
session, _ = open_session(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3])
session.append_message(Message.user("from the other process"))
print("locked", flush=True)
sys.stdin.read()
session.close()
"""


def _start_holder(processes: list[subprocess.Popen[Any]], sessions_dir: Path, workspace: Path, session_id: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(_ROOT)}
    child = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(sessions_dir), str(workspace), session_id],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    processes.append(child)
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "locked"
    return child


def _stop(child: subprocess.Popen[str]) -> None:
    assert child.stdin is not None
    child.stdin.close()
    child.wait(timeout=10)
    assert child.stdout is not None
    child.stdout.close()


def test_second_process_gets_session_in_use_with_the_holders_pid(sessions_dir: Path, workspace: Path, processes: list[subprocess.Popen[Any]]) -> None:
    with create_session(sessions_dir, workspace, model="m", provider="p") as session:
        pass
    child = _start_holder(processes, sessions_dir, workspace, session.id)
    try:
        with pytest.raises(SessionInUse) as caught:
            open_session(sessions_dir, workspace, session.id)
    finally:
        _stop(child)
    assert caught.value.pid == child.pid
    assert str(caught.value) == (f"session {session.id} is in use by another pseudoclaude process (pid {child.pid})")


def test_lock_is_free_once_the_holder_exits(sessions_dir: Path, workspace: Path, processes: list[subprocess.Popen[Any]]) -> None:
    with create_session(sessions_dir, workspace, model="m", provider="p") as session:
        pass
    _stop(_start_holder(processes, sessions_dir, workspace, session.id))
    resumed, replay = open_session(sessions_dir, workspace, session.id)
    with resumed:
        resumed.append_message(Message.user("mine"))
    assert [m.text for m in replay.conversation] == ["from the other process"]
    assert [m.text for m in load_replay(session.folder).conversation] == ["from the other process", "mine"]


def test_a_live_session_cannot_be_opened_twice(sessions_dir: Path, workspace: Path) -> None:
    session = create_session(sessions_dir, workspace, model="m", provider="p")
    try:
        with pytest.raises(SessionInUse, match=f"pid {os.getpid()}"):
            open_session(sessions_dir, workspace, session.id)
    finally:
        session.close()
    second, _ = open_session(sessions_dir, workspace, session.id)
    second.close()
