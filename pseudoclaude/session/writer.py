"""Append-only writing of ``session.jsonl``: crash-safe, never rewriting.

Invariants:
- Each entry is serialized completely first, then written with one
  ``os.write`` of the whole line on an ``O_APPEND`` descriptor, so a crash
  tears at most the last line and never touches earlier ones.
- A write that stops part-way (disk full) is cut back: the file is truncated to
  its size before that line, so a failed append leaves no torn line behind.
  Only when that truncation fails too, or the file does not end with ``\\n``
  when opened (killed mid-write), is the next line prefixed with ``\\n``: it
  starts on a fresh line and the torn fragment stays an isolated, skippable line.
- ``sync()`` fsyncs; appends alone only reach the page cache (the runner syncs
  once per turn, which is what the benchmark measures).
- Write failures never raise out of ``append``: they are returned as a
  ``WriteFailure`` so the session can go on in memory and tell the user once.
  After the first one the ``Session`` stops appending, so the file stays a
  valid prefix of the conversation (a torn line only after a kill, or when
  even the truncation failed).

- With a ``redactor``, each line is redacted before it is written (the user's
  key as ``***``, also inside a JSON string), whichever entry carries it.

``FileOps`` is the fault-injection seam (open / write / truncate / fsync); the
defaults are the real system calls.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from pseudoclaude.redaction import Redactor

FILE_MODE = 0o600


def open_append(path: Path) -> int:
    return os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, FILE_MODE)


@dataclass(frozen=True)
class FileOps:
    """The system calls the writer uses; tests substitute failing ones."""

    open: Callable[[Path], int] = open_append
    write: Callable[[int, bytes], int] = os.write
    fsync: Callable[[int], None] = os.fsync
    truncate: Callable[[int, int], None] = os.ftruncate


@dataclass(frozen=True)
class WriteFailure:
    """One failed system call on a session file: what, where, and the OS's reason in words."""

    action: str
    path: Path
    reason: str

    @property
    def message(self) -> str:
        return f"session {self.action} failed for {self.path}: {self.reason}; the session continues in memory only"


def write_private_file(path: Path, content: bytes) -> None:
    """Write ``content`` to ``path`` (0600) whole or not at all: a temporary file beside it, fsynced, then renamed."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(content)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, path)


def describe_os_error(action: str, path: Path, error: OSError) -> WriteFailure:
    reason = error.strerror or str(error)
    if error.errno == errno.ENOSPC:
        reason = "disk full"
    elif error.errno == errno.EFBIG:
        reason = "file too large"
    elif error.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        reason = f"not writable ({reason})"
    return WriteFailure(action, path, reason)


class JsonlWriter:
    """The one writer of one ``session.jsonl``."""

    def __init__(self, path: Path, ops: FileOps | None = None, redactor: Redactor | None = None) -> None:
        self.path = path
        self._redactor = redactor or Redactor()
        self._ops = ops or FileOps()
        self._fd: int | None = None
        self._needs_newline = False
        self._dirty = False
        self._size = 0

    def open(self) -> WriteFailure | None:
        """Open the file for appending; an error message when that fails."""
        if self._fd is not None:
            return None
        try:
            self._needs_newline = not _ends_with_newline(self.path)
            self._fd = self._ops.open(self.path)
            self._size = os.fstat(self._fd).st_size
        except OSError as error:
            return describe_os_error("open", self.path, error)
        return None

    def append(self, line: bytes) -> WriteFailure | None:
        """Write one complete serialized line; an error message when that fails."""
        if self._fd is None:
            failure = self.open()
            if failure is not None:
                return failure
        assert self._fd is not None
        line = self._redactor.json_line(line)
        data = b"\n" + line if self._needs_newline else line
        offset = 0
        try:
            while offset < len(data):
                written = self._ops.write(self._fd, data if offset == 0 else data[offset:])
                if written <= 0:
                    raise OSError(errno.EIO, "write made no progress")
                offset += written
        except OSError as error:
            if offset > 0 and not self._cut_back():
                self._needs_newline = True
            return describe_os_error("write", self.path, error)
        self._size += len(data)
        self._needs_newline = False
        self._dirty = True
        return None

    def _cut_back(self) -> bool:
        """Truncate the part of a line a failed write left: True when the file ends where it did before."""
        assert self._fd is not None
        try:
            self._ops.truncate(self._fd, self._size)
        except OSError:
            return False
        return True

    def sync(self) -> WriteFailure | None:
        if self._fd is None or not self._dirty:
            return None
        try:
            self._ops.fsync(self._fd)
        except OSError as error:
            return describe_os_error("fsync", self.path, error)
        self._dirty = False
        return None

    def close(self) -> WriteFailure | None:
        if self._fd is None:
            return None
        failure = self.sync()
        fd, self._fd = self._fd, None
        try:
            os.close(fd)
        except OSError:
            pass
        return failure


def _ends_with_newline(path: Path) -> bool:
    """True for a missing or empty file, or one whose last byte is ``\\n``."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            if handle.tell() == 0:
                return True
            handle.seek(-1, os.SEEK_END)
            return handle.read(1) == b"\n"
    except OSError:
        return True
