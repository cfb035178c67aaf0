"""Shared file mechanics for the editing tools: stamps, the read-first rule, atomic writes, diffs.

The read-first rule: an existing file may only be overwritten or edited when
this session holds a ``FileStamp`` for it (set by ``read_file`` or by a
previous write) and the file on disk still matches it (same size and same
content hash; a bare ``touch`` is not a change). This is what stops the model
from clobbering a file it never saw, or one the user changed meanwhile.

Writes are atomic: a temporary file in the same folder, flushed and fsynced,
then ``os.replace``; readers see the old file or the new one, never half of
one. An existing file keeps its permission bits; a new one gets the usual
``0o666 & ~umask``.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import stat
import tempfile
from pathlib import Path

from pseudoclaude.tools.base import FileStamp, ToolContext, ToolError

DIFF_LIMIT_CHARS = 200_000


def stamp_of(path: Path) -> FileStamp:
    """The stamp of ``path`` as it is now."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        info = os.fstat(f.fileno())
        while block := f.read(1 << 20):
            digest.update(block)
    return FileStamp(mtime_ns=info.st_mtime_ns, size=info.st_size, sha256=digest.hexdigest())


def require_fresh(ctx: ToolContext, path: Path, shown: str) -> None:
    """Refuse unless ``path`` was read in this session and has not changed on disk since."""
    known = ctx.file_stamps.get(path)
    if known is None:
        raise ToolError(f"{shown} exists but has not been read in this session: read it with read_file first, then retry")
    now = stamp_of(path)
    if now.size != known.size or now.sha256 != known.sha256:
        raise ToolError(f"{shown} has changed on disk since you read it: read it again with read_file, then retry")


def record_stamp(ctx: ToolContext, path: Path) -> FileStamp:
    stamp = stamp_of(path)
    ctx.file_stamps[path] = stamp
    return stamp


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically, keeping an existing file's mode."""
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def read_text(path: Path, shown: str) -> str:
    """The UTF-8 text of ``path``; a clear error for binary or undecodable files."""
    data = path.read_bytes()
    if b"\x00" in data[:8192]:
        raise ToolError(f"{shown} is a binary file; it cannot be edited as text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ToolError(f"{shown} is not valid UTF-8 (byte {error.start}); it cannot be edited as text") from None


def unified_diff(old: str, new: str, shown: str) -> str:
    """A unified diff of ``old`` -> ``new`` labelled with ``shown`` (capped for huge rewrites)."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"a/{shown}",
        tofile=f"b/{shown}",
    )
    text = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
    if len(text) > DIFF_LIMIT_CHARS:
        text = text[:DIFF_LIMIT_CHARS] + "\n… [diff truncated]\n"
    return text


def diff_counts(diff: str) -> tuple[int, int]:
    """Lines added and removed in a unified ``diff``."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def os_error(action: str, shown: str, error: OSError) -> ToolError:
    """A ``ToolError`` for an operating-system failure, phrased for the model."""
    reason = error.strerror or str(error)
    return ToolError(f"cannot {action} {shown}: {reason}")


def _umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    current = os.umask(0o022)
    os.umask(current)
    return current
