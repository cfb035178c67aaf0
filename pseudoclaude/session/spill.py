"""Spill files: full tool results moved out of the conversation by Layer 1.

Names are collision-free: a sanitized prefix of the call id (readable) plus a
short sha256 of the *raw* id, so ids that sanitize alike (``a/b`` and ``a_b``)
still get different files. An existing file is reused only when its content is
identical; a different content gets a new numbered name, never an overwrite,
because a preview already sent to the model may point at the old file.
Files are 0600: tool output can hold secrets.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from pseudoclaude.session.naming import sanitize_component

_FILE_MODE = 0o600
_MAX_VARIANTS = 100


def safe_spill_name(call_id: str) -> str:
    """The file name (``<prefix>-<hash>.txt``) for one call id."""
    digest = hashlib.sha256(call_id.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{sanitize_component(call_id, 48)}-{digest}.txt"


def write_spill(spill_dir: Path, call_id: str, content: str) -> Path:
    """Write ``content`` for ``call_id`` under ``spill_dir`` and return its path.

    Raises ``OSError`` when the file cannot be written; the caller keeps the
    original content in that case.
    """
    data = content.encode("utf-8", "surrogateescape")
    base = safe_spill_name(call_id)
    for variant in range(_MAX_VARIANTS):
        name = base if variant == 0 else f"{base[:-4]}.{variant}.txt"
        path = spill_dir / name
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, _FILE_MODE)
        except FileExistsError:
            if _same_content(path, data):
                return path
            continue
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        except OSError:
            os.close(fd)
            path.unlink(missing_ok=True)
            raise
        os.close(fd)
        return path
    raise OSError(f"too many different spill files for call id {call_id!r}")


def _same_content(path: Path, data: bytes) -> bool:
    try:
        if path.stat().st_size != len(data):
            return False
        return path.read_bytes() == data
    except OSError:
        return False
