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

Only regular files are read or replaced: a FIFO nobody writes would block the
read forever, a device (``/dev/zero``) never ends, a socket cannot be opened.
``check_regular`` refuses them by ``stat`` before anything is opened, and
``open_regular`` opens with ``O_NONBLOCK`` and checks again on the open
descriptor, so a file swapped for a FIFO in between cannot block either.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import stat
import tempfile
from pathlib import Path
from typing import Any, BinaryIO

from pseudoclaude.textsafe import quote_name
from pseudoclaude.tools.base import FileStamp, ToolContext, ToolError

DIFF_LIMIT_CHARS = 200_000
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


def file_kind(mode: int) -> str | None:
    """What a non-regular file is ("a FIFO (named pipe)", "a character device", ...); None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def not_regular(shown: str, kind: str) -> ToolError:
    return ToolError(f"{shown} is {kind}, not a regular file; only regular files can be read or changed")


def check_regular(path: Path, shown: str) -> None:
    """Refuse ``path`` unless it is a regular file (symlinks followed); a missing file passes (the caller decides)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as error:
        raise os_error("open", shown, error) from None
    kind = file_kind(mode)
    if kind is not None:
        raise not_regular(shown, kind)


def open_regular(path: Path, shown: str) -> BinaryIO:
    """``path`` opened for reading without ever blocking on it; ``ToolError`` unless it is a regular file."""
    check_regular(path, shown)
    f = open_if_regular(path)
    if f is None:
        kind = file_kind(os.stat(path).st_mode) or "not a regular file"
        raise not_regular(shown, kind)
    return f


def open_if_regular(path: Path | str) -> BinaryIO | None:
    """``path`` opened for reading when it is a regular file, else None (never blocks: ``O_NONBLOCK``, then ``fstat``)."""
    fd = os.open(path, _OPEN_FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            return None
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


STAMP_WHOLE_BYTES = 64 * 1024 * 1024
"""Files up to this size are hashed whole for their stamp. A larger one is hashed by its first and last
``STAMP_WHOLE_BYTES // 2`` and its mtime, so reading or overwriting a 10 GB file does not hash 10 GB (20 s)
twice; for such a file a bare ``touch`` counts as a change (a re-read is asked for, never a clobber allowed)."""


def stamp_of(path: Path, shown: str | None = None) -> FileStamp:
    """The stamp of ``path`` as it is now (``shown`` names it in an error)."""
    digest = hashlib.sha256()
    with open_regular(path, shown if shown is not None else quote_name(str(path))) as f:
        info = os.fstat(f.fileno())
        if info.st_size > STAMP_WHOLE_BYTES:
            digest.update(f"{info.st_size}:{info.st_mtime_ns}:".encode())
            _hash_blocks(f, digest, STAMP_WHOLE_BYTES // 2)
            f.seek(info.st_size - STAMP_WHOLE_BYTES // 2)
        _hash_blocks(f, digest, None)
    return FileStamp(mtime_ns=info.st_mtime_ns, size=info.st_size, sha256=digest.hexdigest())


def _hash_blocks(f: BinaryIO, digest: Any, limit: int | None) -> None:
    """Feed ``f`` from its position to ``digest``: ``limit`` bytes, or to the end."""
    left = limit
    while left is None or left > 0:
        block = f.read(1 << 20 if left is None else min(1 << 20, left))
        if not block:
            return
        digest.update(block)
        if left is not None:
            left -= len(block)


def require_fresh(ctx: ToolContext, path: Path, shown: str) -> None:
    """Refuse unless ``path`` was read in this session and has not changed on disk since."""
    known = ctx.file_stamps.get(path)
    if known is None:
        raise ToolError(f"{shown} exists but has not been read in this session: read it with read_file first, then retry")
    now = stamp_of(path, shown)
    if now.size != known.size or now.sha256 != known.sha256:
        raise ToolError(f"{shown} has changed on disk since you read it: read it again with read_file, then retry")


def record_stamp(ctx: ToolContext, path: Path, shown: str | None = None) -> FileStamp:
    stamp = stamp_of(path, shown)
    if ctx.stamp_sink is not None and ctx.file_stamps.get(path) != stamp:
        ctx.stamp_sink(path, stamp)
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


def read_text(path: Path, shown: str, limit: int) -> str:
    """The UTF-8 text of ``path``; a clear error for binary or undecodable files, what is not a regular file,
    and a file over ``limit`` bytes (checked on the open file, and read no further: it may grow meanwhile)."""
    with open_regular(path, shown) as f:
        size = os.fstat(f.fileno()).st_size
        data = f.read(limit + 1) if size <= limit else b""
    if size > limit or len(data) > limit:
        raise too_large(shown, max(size, len(data)), limit)
    if b"\x00" in data[:8192]:
        raise ToolError(f"{shown} is a binary file; it cannot be edited as text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ToolError(f"{shown} is not valid UTF-8 (byte {error.start}); it cannot be edited as text") from None


def too_large(shown: str, size: int, limit: int) -> ToolError:
    """The refusal of a file over what an edit holds in memory, naming the limit and the way round it."""
    return ToolError(
        f"{shown} is {size / (1 << 20):,.1f} MiB, over the {limit >> 20} MiB that edit_file changes in memory; "
        "change it with a command instead (sed -i, a script), or split it"
    )


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
