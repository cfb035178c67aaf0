"""Claude Code's ``tool_response`` for its file tools, so formatter and linter hooks read the same facts.

Claude Code's ``Edit`` answers ``filePath``, ``oldString``, ``newString``,
``originalFile``, ``structuredPatch``, ``userModified``, ``replaceAll``; its
``Write`` answers ``type`` (``create``/``update``), ``filePath``, ``content``,
``structuredPatch`` (empty for a new file), ``originalFile`` (null for a new
file), ``userModified``. ``structuredPatch`` is the jsdiff ``structuredPatch``
hunk list: 1-based ``oldStart``/``newStart``, line counts, and the hunk's lines
without their line ends, each prefixed by `` ``, ``-`` or ``+`` (three lines of
context, ``\\ No newline at end of file`` after a last line without one).
The edit tools put these in ``ToolOutput.details``; the model never sees them.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

CONTEXT_LINES = 3
NO_NEWLINE = "\\ No newline at end of file"


def structured_patch(old: str, new: str) -> list[dict[str, Any]]:
    """The hunks that turn ``old`` into ``new``, in jsdiff's ``structuredPatch`` shape."""
    before, after = old.splitlines(keepends=True), new.splitlines(keepends=True)
    hunks: list[dict[str, Any]] = []
    for group in difflib.SequenceMatcher(None, before, after, autojunk=False).get_grouped_opcodes(CONTEXT_LINES):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        lines: list[str] = []
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                lines += _prefixed(" ", before[a1:a2])
                continue
            lines += _prefixed("-", before[a1:a2])
            lines += _prefixed("+", after[b1:b2])
        hunks.append({"oldStart": i1 + 1, "oldLines": i2 - i1, "newStart": j1 + 1, "newLines": j2 - j1, "lines": lines})
    return hunks


def _prefixed(sign: str, lines: list[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        out.append(sign + line.rstrip("\r\n") if line.endswith("\n") else sign + line)
        if not line.endswith("\n"):
            out.append(NO_NEWLINE)
    return out


def edit_response(path: Path, old_string: str, new_string: str, original: str, updated: str, replace_all: bool) -> dict[str, Any]:
    """Claude Code's ``Edit`` tool_response."""
    return {
        "filePath": str(path),
        "oldString": old_string,
        "newString": new_string,
        "originalFile": original,
        "structuredPatch": structured_patch(original, updated),
        "userModified": False,
        "replaceAll": replace_all,
    }


def write_response(path: Path, content: str, original: str | None) -> dict[str, Any]:
    """Claude Code's ``Write`` tool_response; ``original`` None: the file is new."""
    return {
        "type": "create" if original is None else "update",
        "filePath": str(path),
        "content": content,
        "structuredPatch": [] if original is None else structured_patch(original, content),
        "originalFile": original,
        "userModified": False,
    }
