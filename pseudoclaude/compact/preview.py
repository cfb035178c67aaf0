"""The preview that stands in for a replaced tool result: head, tail, the path of the complete output.

Layer 1 (``offload.py``) and the shrink tier (``shrink.py``) replace a
result's body with this preview. Rules it keeps:

* **Head and tail, never head only.** A long output's end (the failures, the
  traceback, the exit status) is where it matters most; the head keeps the
  seed's caps (``PREVIEW_HEAD_LINES`` / ``PREVIEW_HEAD_BYTES``), the tail
  takes ``PREVIEW_TAIL_LINES`` / ``PREVIEW_TAIL_BYTES``, both cut on a
  character boundary, and a marker between them says how much was omitted.
* **The path names the complete output.** When the tool saved its complete
  original output (``ToolResult.full_output``), that file is named and no new
  file is written; otherwise the result's content is spilled. The header
  states the complete output's true size in bytes.
* **Byte-stable.** The preview is a pure function of the content, the path
  and the size, so the same input gives the same bytes (decisions are reused
  from the ledger; the prompt cache keeps hitting).

The first header line keeps the seed's form ``[content offloaded] original
size: N bytes``; when the replaced content is not the complete output (a tool's
own preview), a ``[replaced result] M bytes`` line says how big the replaced
content was, which ``replaced_size`` reads back to tell reused call ids apart.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from pseudoclaude.compact.budget import (
    PREVIEW_HEAD_BYTES,
    PREVIEW_HEAD_LINES,
    PREVIEW_TAIL_BYTES,
    PREVIEW_TAIL_LINES,
)
from pseudoclaude.compact.estimate import utf8_len
from pseudoclaude.compact.seam import CompactSession
from pseudoclaude.llm import ToolResult

_ORIGINAL_SIZE = re.compile(r"\[content offloaded\] original size: (\d+) bytes")
_REPLACED_SIZE = re.compile(r"\[replaced result\] (\d+) bytes")
PREVIEW_REMINDER = (
    "The full content is saved in the file above; this preview shows only its beginning and its end. "
    "If you need more, read that file with read_file (page through it with offset/limit). "
    "Do not guess the rest of the content from this preview."
)


def _char_bytes(char: str) -> int:
    code = ord(char)
    return 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4


def _prefix_within(text: str, max_bytes: int) -> str:
    """The longest prefix of ``text`` of at most ``max_bytes`` UTF-8 bytes."""
    total = 0
    for index, char in enumerate(text[: max_bytes + 1]):
        total += _char_bytes(char)
        if total > max_bytes:
            return text[:index]
    return text[: max_bytes + 1]


def _suffix_within(text: str, max_bytes: int) -> str:
    """The longest suffix of ``text`` of at most ``max_bytes`` UTF-8 bytes."""
    window = text[-(max_bytes + 1) :]
    total = 0
    for index in range(len(window) - 1, -1, -1):
        total += _char_bytes(window[index])
        if total > max_bytes:
            return window[index + 1 :]
    return window


def preview_head(content: str) -> str:
    """At most ``PREVIEW_HEAD_LINES`` lines and ``PREVIEW_HEAD_BYTES`` bytes, cut on a character boundary."""
    lines = content[: PREVIEW_HEAD_BYTES + 1].splitlines(keepends=True)[:PREVIEW_HEAD_LINES]
    return _prefix_within("".join(lines), PREVIEW_HEAD_BYTES)


def preview_tail(content: str) -> str:
    """At most the last ``PREVIEW_TAIL_LINES`` lines and ``PREVIEW_TAIL_BYTES`` bytes, cut on a character boundary."""
    lines = content[-(PREVIEW_TAIL_BYTES + 1) :].splitlines(keepends=True)[-PREVIEW_TAIL_LINES:]
    return _suffix_within("".join(lines), PREVIEW_TAIL_BYTES)


def _block(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


def build_preview(content: str, path: str, original_bytes: int | None = None) -> str:
    """The preview of ``content`` saved at ``path``; ``original_bytes`` is the complete output's size when it is not ``content``.

    Works on slices of ``content`` only, so a 100 MB single line costs no copy of itself.
    """
    size = utf8_len(content)
    head = preview_head(content)
    tail = preview_tail(content)
    if len(head) + len(tail) >= len(content):
        tail = content[len(head) :]
    end = len(content) - len(tail)
    if original_bytes is None or original_bytes == size:
        parts = [f"[content offloaded] original size: {size} bytes\n"]
    else:
        parts = [
            f"[content offloaded] original size: {original_bytes} bytes\n",
            f"[replaced result] {size} bytes: the tool's own shortened view of the output saved below\n",
        ]
    parts += [f"[saved to] {path}\n", "[head preview]\n", _block(head)]
    if end > len(head):
        omitted = size - utf8_len(head) - utf8_len(tail)
        parts.append(f"[... {omitted} bytes, {content.count(chr(10), len(head), end)} line breaks omitted ...]\n")
    if tail:
        parts += ["[tail preview]\n", _block(tail)]
    parts.append("\n" + PREVIEW_REMINDER)
    return "".join(parts)


def replaced_size(preview: str) -> int | None:
    """The size in bytes of the content ``preview`` replaced, read from its header (None: not a preview)."""
    header = preview.split("\n", 3)[:3]
    for line in header[1:]:
        match = _REPLACED_SIZE.match(line)
        if match is not None:
            return int(match.group(1))
    match = _ORIGINAL_SIZE.match(preview)
    return int(match.group(1)) if match is not None else None


@dataclass(frozen=True)
class Saved:
    """Where the complete output of a result is, and how many bytes it holds."""

    path: str
    original_bytes: int
    written: bool


def save_complete(session: CompactSession | None, result: ToolResult, call_id: str) -> Saved | None:
    """The tool's own complete output when it exists, else a new spill of the content (None: no session to spill into).

    Raises ``OSError`` when the spill fails; the caller keeps the content.
    """
    if result.full_output is not None:
        try:
            return Saved(os.path.abspath(result.full_output), os.path.getsize(result.full_output), False)
        except OSError:
            pass  # the tool's file is gone: the content is the best complete copy left
    if session is None:
        return None
    path = os.path.abspath(session.write_spill(call_id, result.content))
    return Saved(path, utf8_len(result.content), True)


def preview_for(result: ToolResult, saved: Saved) -> str:
    return build_preview(result.content, saved.path, saved.original_bytes)
