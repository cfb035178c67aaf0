"""The entry format of ``session.jsonl``: one JSON object a line.

Every line is ``{"type", "id", "ts", "version", ...payload}`` with the four
header keys first, so a reader (or ``grep``) can tell an entry's kind from the
start of its line. Lines are compact (no spaces) and not ASCII-escaped, except
when a string holds a lone surrogate (undecodable tool output): then that one
line is written ASCII-escaped so the file stays valid UTF-8 and the string
round-trips exactly.

Versioning: ``MAJOR.MINOR``. A minor bump only adds entry types or fields;
older readers ignore what they do not know. A different major is refused with
``SessionFormatError`` rather than misread. 1.3 added ``thinking`` to assistant
messages (``llm.Thinking.to_dict``: provider, kind, text, opaque) and
``reasoning_tokens`` to usage; a 1.2 file reads as messages without thinking.
1.4 added ``checkpoint`` (a file's content before an edit, kept under
``checkpoints/``) and ``rewind`` (the conversation cut back to a message
count, files restored or not) entries: see ``session/checkpoints.py``.
1.5 added images: ``images`` on user messages and tool results (each named by
its SHA-256, the bytes kept under ``images/``, ``session/images.py``) and
``drops_images`` on a replacement whose result's images became text notes.
1.6 added session facts a resume replays: ``file_stamp`` (a file as the model
last read or wrote it, so an edit after a resume needs no fresh read),
``effort`` (the reasoning effort chosen) and ``mode`` (a permission-mode switch).
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Mapping

from pseudoclaude.session.errors import SessionFormatError

FORMAT_VERSION = "1.6"
FORMAT_MAJOR = 1

META = "meta"
TITLE = "title"
MESSAGE = "message"
USAGE = "usage"
REPLACEMENT = "replacement"
COMPACTION = "compaction"
ERROR = "error"
INTERRUPT = "interrupt"
WINDOW = "window"
CALIBRATION = "calibration"
MEMORY = "memory"
CHECKPOINT = "checkpoint"
REWIND = "rewind"
MODEL = "model"
FILE_STAMP = "file_stamp"
EFFORT = "effort"
MODE = "mode"

WRITE_FAILED = "session_write_failed"
"""The ``kind`` of the ``error`` entry a session appends, when it can, after its writes failed."""


@dataclass(frozen=True)
class SessionMeta:
    """What the ``meta`` entry (always the first line) says, plus the latest title."""

    id: str
    cwd: str
    model: str
    provider: str
    created: datetime
    pseudoclaude_version: str
    format_version: str = FORMAT_VERSION
    title: str = ""

    def payload(self) -> dict[str, Any]:
        return {
            "session_id": self.id,
            "cwd": self.cwd,
            "model": self.model,
            "provider": self.provider,
            "created": format_ts(self.created),
            "pseudoclaude_version": self.pseudoclaude_version,
        }

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any], fallback_id: str) -> SessionMeta:
        return cls(
            id=str(entry.get("session_id") or fallback_id),
            cwd=str(entry.get("cwd", "")),
            model=str(entry.get("model", "")),
            provider=str(entry.get("provider", "")),
            created=parse_ts(entry.get("created") or entry.get("ts")),
            pseudoclaude_version=str(entry.get("pseudoclaude_version", "")),
            format_version=str(entry.get("version", FORMAT_VERSION)),
        )


def now() -> datetime:
    return datetime.now(timezone.utc)


def format_ts(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_ts(value: object) -> datetime:
    """An aware datetime from an entry timestamp; the epoch when it is missing or bad."""
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            parsed = None
        if parsed is not None:
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)
    return datetime.fromtimestamp(0, timezone.utc)


def new_entry_id() -> str:
    return os.urandom(6).hex()


def encode_entry(kind: str, payload: Mapping[str, Any]) -> bytes:
    """One complete line (with its ``\\n``), serialized before anything is written."""
    entry: dict[str, Any] = {"type": kind, "id": new_entry_id(), "ts": format_ts(now()), "version": FORMAT_VERSION}
    entry.update(payload)
    text = json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        data = json.dumps(entry, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    return data + b"\n"


def check_version(version: object, line_number: int) -> None:
    """Refuse an entry from another major version; malformed versions are the caller's to skip."""
    if not isinstance(version, str):
        raise ValueError("missing format version")
    major_text = version.split(".", 1)[0]
    if not major_text.isdigit():
        raise ValueError(f"malformed format version {version!r}")
    major = int(major_text)
    if major != FORMAT_MAJOR:
        hint = "upgrade pseudoclaude to resume this session" if major > FORMAT_MAJOR else "it predates format 1"
        raise SessionFormatError(
            f"session format {version} at line {line_number} is not supported: this pseudoclaude reads format {FORMAT_MAJOR}.x only ({hint})"
        )


def replace_title(meta: SessionMeta, title: str) -> SessionMeta:
    return dataclasses.replace(meta, title=title)


def normalize_title(text: str, limit: int = 120) -> str:
    """One line, collapsed whitespace, at most ``limit`` characters."""
    collapsed = " ".join(text.split())
    return collapsed if len(collapsed) <= limit else collapsed[: limit - 1] + "…"
