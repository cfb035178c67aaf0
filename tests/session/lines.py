"""Hand-written entry lines, for files a test builds byte by byte."""

from __future__ import annotations

import json
from typing import Any


def entry_line(kind: str, version: str = "1.0", **payload: Any) -> bytes:
    """A hand-written entry line, for files a test builds byte by byte."""
    entry = {"type": kind, "id": "0" * 12, "ts": "2026-01-01T00:00:00.000Z", "version": version, **payload}
    return json.dumps(entry, separators=(",", ":")).encode() + b"\n"
