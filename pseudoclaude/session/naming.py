"""Names that reach the filesystem: workspace keys and session ids.

A workspace key is readable (the folder's last path component, sanitized) and
collision-free (plus a short sha256 of the resolved absolute path), so two
checkouts both called ``app`` never share sessions. A session id sorts by
creation time (``YYYYMMDD-HHMMSS-<6 hex>``, UTC) and is validated whenever it
comes from outside, so a hostile id such as ``../../x`` never becomes a path.
"""

from __future__ import annotations

import hashlib
import os
import re
from datetime import datetime
from pathlib import Path

from pseudoclaude.session.errors import SessionNotFound

SESSION_ID_PATTERN = re.compile(r"\d{8}-\d{6}-[0-9a-f]{6}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
"""Our time-sortable ids, or a lower-case UUID a caller chose (Claude Code's ``--session-id``)."""
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_NAME_LIMIT = 40


def sanitize_component(text: str, limit: int = _NAME_LIMIT) -> str:
    """Letters, digits, ``._-`` only, no leading dot, at most ``limit`` characters."""
    cleaned = _UNSAFE.sub("_", text).lstrip(".")[:limit]
    return cleaned or "_"


def workspace_key(workspace: Path) -> str:
    resolved = os.path.abspath(os.path.realpath(workspace))
    digest = hashlib.sha256(resolved.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    name = os.path.basename(resolved.rstrip(os.sep)) or "root"
    return f"{sanitize_component(name)}-{digest}"


def new_session_id(moment: datetime) -> str:
    return f"{moment.strftime('%Y%m%d-%H%M%S')}-{os.urandom(3).hex()}"


def is_session_id(text: str) -> bool:
    return SESSION_ID_PATTERN.fullmatch(text) is not None


def validate_session_id(text: str) -> str:
    if not isinstance(text, str) or not is_session_id(text):
        raise SessionNotFound(f"{text!r} is not a valid session id (expected YYYYMMDD-HHMMSS-xxxxxx or a lower-case UUID)")
    return text
