"""What the pinned block reads from the workspace at compaction time (``compact.PinnedSource``).

Everything here is untrusted input read at an arbitrary moment, so it is
read defensively: a path is resolved like ``read_file`` resolves it and must
stay inside the workspace after symlinks; it is opened without blocking and
attached only when it is a regular file no larger than ``MAX_FILE_BYTES``
whose head is UTF-8 text without NUL bytes (a FIFO, a device, a directory, a
binary or a deleted file is skipped, never waited on). Lines are numbered as
``read_file`` numbers them; a file longer than its share keeps its head (two
thirds) and tail around a marker giving the ``read_file`` offset and limit of
what was left out.
"""

from __future__ import annotations

import codecs
import os
import stat
from pathlib import Path
from typing import Callable

from pseudoclaude.agent.instructions import Instructions, changed_instructions
from pseudoclaude.compact import FileText

MAX_FILE_BYTES = 4_000_000
SNIFF_BYTES = 8192
LINE_LIMIT_CHARS = 2000
HEAD_SHARE = 2 / 3


class WorkspaceSource:
    """The ``PinnedSource`` of one session: its workspace, the instructions it loaded, and its permission mode."""

    def __init__(self, workspace: Path, home: Path, instructions: Instructions, planning: Callable[[], bool] = lambda: False) -> None:
        self.workspace = Path(os.path.realpath(workspace))
        self.home = home
        self.instructions = instructions
        self._planning = planning

    def planning(self) -> bool:
        return self._planning()

    def changed_instructions(self) -> str:
        return changed_instructions(self.instructions, self.workspace, self.home)

    def current_file(self, path: str, max_chars: int) -> FileText | None:
        real = self._inside(path)
        if real is None:
            return None
        raw = _regular_file_bytes(real)
        if raw is None or _binary(raw[:SNIFF_BYTES]):
            return None
        return numbered_within(raw, max_chars)

    def _inside(self, raw: str) -> Path | None:
        """The real path of ``raw`` (relative to the workspace), or None when it leaves the workspace."""
        text = raw.strip()
        if not text or "\x00" in text:
            return None
        candidate = Path(os.path.expanduser(text) if text.startswith("~") else text)
        real = Path(os.path.realpath(candidate if candidate.is_absolute() else self.workspace / candidate))
        return real if self.workspace in real.parents else None


def _regular_file_bytes(path: Path) -> bytes | None:
    """The bytes of ``path`` when it is a regular file of at most ``MAX_FILE_BYTES``; opened without blocking."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(MAX_FILE_BYTES + 1)
        return data if len(data) <= MAX_FILE_BYTES else None
    except OSError:
        return None
    finally:
        os.close(fd)


def _binary(sample: bytes) -> bool:
    """NUL bytes or invalid UTF-8 in the head (a character cut at the sample's end is fine)."""
    if b"\x00" in sample:
        return True
    try:
        codecs.getincrementaldecoder("utf-8")().decode(sample, final=False)
    except UnicodeDecodeError:
        return True
    return False


def numbered_within(raw: bytes, max_chars: int) -> FileText:
    """``raw``'s lines numbered as ``read_file`` shows them; head and tail around a marker beyond ``max_chars``."""
    pieces = raw.split(b"\n")
    if pieces and pieces[-1] == b"":
        pieces.pop()
    lines = [f"{number:>6}\t{_line(piece)}\n" for number, piece in enumerate(pieces, start=1)]
    if sum(map(len, lines)) <= max_chars:
        return FileText("".join(lines), len(lines))
    head_end, used = 0, 0
    while head_end < len(lines) and used + len(lines[head_end]) <= max_chars * HEAD_SHARE:
        used += len(lines[head_end])
        head_end += 1
    tail_start = len(lines)
    while tail_start > head_end + 1 and used + len(lines[tail_start - 1]) <= max_chars - 120:
        tail_start -= 1
        used += len(lines[tail_start])
    first, last = head_end + 1, tail_start
    marker = f"[... lines {first}-{last} not shown: read_file with offset={first} and limit={last - first + 1} to see them ...]\n"
    return FileText("".join([*lines[:head_end], marker, *lines[tail_start:]]), len(lines), cut=True)


def _line(piece: bytes) -> str:
    text = piece.decode("utf-8", errors="replace").rstrip("\r")
    if len(text) > LINE_LIMIT_CHARS:
        text = text[:LINE_LIMIT_CHARS] + f"… [line cut: {len(text) - LINE_LIMIT_CHARS:,} more characters]"
    return text
