"""Session facts a resume replays beside the conversation: what was read, the effort, the permission mode.

Within one process the edit tools refuse to change a file the model has not
read (``tools/files.py``, the read-first rule), the ``/effort`` and the mode a
user chose hold until changed. These are facts about the session, not about
the process, so each is one appended entry (format 1.6) and a resume gets them
back; a session recorded before 1.6 simply has none and resumes as it always did.

A ``file_stamp`` entry records a file as the model last read or wrote it
(``tools.FileStamp``: mtime, size, SHA-256). A resumed stamp is only a claim
about the past: the edit tools still compare it with the disk, so a file
changed since must be read again, exactly as within one process. A stamp
recorded after a rewind's cut is undone with it (the model no longer saw that
read): ``position`` is the number of messages recorded when the stamp was taken.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping


@dataclass(frozen=True)
class ReadStamp:
    """A file as the model last saw it (``path`` absolute), recorded after ``position`` transcript messages."""

    path: str
    mtime_ns: int
    size: int
    sha256: str
    position: int = 0

    def payload(self) -> dict[str, Any]:
        return {"path": self.path, "mtime_ns": self.mtime_ns, "size": self.size, "sha256": self.sha256}


def stamp_from_entry(entry: Mapping[str, Any], position: int) -> ReadStamp:
    """A ``file_stamp`` entry; ``ValueError`` / ``KeyError`` when malformed (the reader skips it)."""
    path, sha256 = entry["path"], entry["sha256"]
    mtime_ns, size = entry["mtime_ns"], entry["size"]
    if not isinstance(path, str) or not path or not isinstance(sha256, str) or len(sha256) != 64:
        raise ValueError("a file stamp needs a path and a SHA-256")
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in (mtime_ns, size)):
        raise ValueError("a file stamp's mtime and size are counts")
    return ReadStamp(path, mtime_ns, size, sha256, position)


def effort_from_entry(entry: Mapping[str, Any]) -> str | None:
    """The effort an ``effort`` entry chose (None: off, the provider's default)."""
    effort = entry["effort"]
    if effort is not None and not isinstance(effort, str):
        raise ValueError("effort is a name or null")
    return effort or None


def mode_from_entry(entry: Mapping[str, Any]) -> str:
    mode = entry["mode"]
    if not isinstance(mode, str) or not mode:
        raise ValueError("mode is a name")
    return mode
