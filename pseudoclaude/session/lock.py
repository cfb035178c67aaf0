"""One writer per session: an advisory ``flock`` on ``<session>/session.lock``.

The lock is held for as long as a ``Session`` is open for writing, so two
processes can never interleave lines in one ``session.jsonl``. ``flock`` locks
die with their process, so a crashed run never leaves a stale lock behind;
the pid written into the lock file is only there to name the holder in the
error message. Readers (``load_replay``) never take the lock.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from pseudoclaude.session.errors import SessionInUse

LOCK_NAME = "session.lock"


class SessionLock:
    """An exclusive, non-blocking lock on one session folder."""

    def __init__(self, folder: Path, session_id: str) -> None:
        self.path = folder / LOCK_NAME
        self.session_id = session_id
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> None:
        """Take the lock or raise ``SessionInUse`` naming the holder's pid."""
        if self._fd is not None:
            return
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_pid(fd)
            os.close(fd)
            raise SessionInUse(self.session_id, holder) from None
        except OSError:
            os.close(fd)
            raise
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except OSError:
            pass
        self._fd = fd

    def release(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
