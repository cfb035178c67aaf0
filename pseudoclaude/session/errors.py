"""The session error tree.

    SessionError              anything wrong with a session folder
    ├── SessionInUse          another live process holds the session's lock
    ├── SessionFormatError    the file was written by a newer, incompatible format
    └── SessionNotFound       no such session (or the id is not a valid session id)

Write failures (disk full, read-only folder) are deliberately *not* raised:
the first one becomes ``Session.write_failure`` (the agent reports it as an
event, ``-p`` exits non-zero) and the run goes on in memory, so a full disk
never kills the user's run but never passes silently either. Corrupt lines are not errors either:
replay skips them and counts them.
"""

from __future__ import annotations


class SessionError(Exception):
    """Base of every session failure the CLI reports in one line."""


class SessionInUse(SessionError):
    """The session's lock is held by another process."""

    def __init__(self, session_id: str, pid: int | None) -> None:
        who = f"pid {pid}" if pid is not None else "pid unknown"
        super().__init__(f"session {session_id} is in use by another pseudoclaude process ({who})")
        self.session_id = session_id
        self.pid = pid


class SessionFormatError(SessionError):
    """The session file uses a format version this program cannot read."""


class SessionNotFound(SessionError):
    """The session does not exist in this workspace, or its id is malformed."""
