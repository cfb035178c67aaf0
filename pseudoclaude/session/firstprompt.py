"""The first thing the user asked in a session, for pickers (``/resume``).

Read from the start of ``session.jsonl`` line by line, stopping at the first
user message, so a long session costs no more than a short one; the title is
usually the same words, but a title can be changed and is cut at 80 characters.
"""

from __future__ import annotations

import json
from pathlib import Path

from pseudoclaude.session.reader import JSONL_NAME

_MESSAGE = b'{"type":"message"'
SCAN_BYTES = 4 * 1024 * 1024


def first_prompt(folder: Path, limit: int = 200) -> str:
    """The session's first user message, whitespace collapsed, at most ``limit`` characters ("" when none)."""
    try:
        with open(folder / JSONL_NAME, "rb") as handle:
            scanned = 0
            for line in handle:
                scanned += len(line)
                if scanned > SCAN_BYTES:
                    return ""
                if not line.startswith(_MESSAGE) or b'"role":"user"' not in line:
                    continue
                try:
                    message = json.loads(line).get("message", {})
                except ValueError:
                    continue
                text = " ".join(str(message.get("text") or "").split())
                if text:
                    return text if len(text) <= limit else text[: limit - 1] + "…"
    except OSError:
        return ""
    return ""
