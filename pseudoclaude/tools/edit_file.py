"""edit_file: exact string replacement in a file the model has read.

The replacement is literal (no regex, no whitespace folding) so the model gets
exactly what it asked for or a precise reason why not: not found (with the
nearest text, or the note that read_file's line numbers were left on; see
``edit_hints``), or found N times without ``replace_all`` (and where). The read-first rule of ``files.require_fresh``
applies. The model gets a short numbered snippet around the first change; the
renderer gets the full unified diff, and ``PostToolUse`` hooks Claude Code's
``Edit`` tool_response (``patch_shape``).

A file over ``MAX_FILE_BYTES`` is refused, naming the limit, before it is read:
an edit holds the file several times over (bytes, text, the edited text, its
encoding, the diff), 680 MB for a 100 MB one-line file. Streaming the
replacement would bound that, but not the diff, the snippet or the not-found
hint the model needs; a file that large is generated or data, and a command
(``sed -i``, a script) is the right tool for it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from pseudoclaude.tools.args import check_args
from pseudoclaude.tools.base import ToolContext, ToolError, ToolOutput, ToolTraits
from pseudoclaude.tools.edit_hints import not_found_hint, occurrences_hint
from pseudoclaude.tools.files import (
    atomic_write,
    check_regular,
    diff_counts,
    os_error,
    read_text,
    record_stamp,
    require_fresh,
    too_large,
    unified_diff,
)
from pseudoclaude.tools.patch_shape import edit_response
from pseudoclaude.tools.paths import display_path, resolve_path

MAX_FILE_BYTES = 10 * 1024 * 1024
"""Files up to this size are edited (peak about 10x the file: 107 MB at the limit, ``bench/bench_hostile_files.py``)."""
SNIPPET_CONTEXT_LINES = 3
SNIPPET_MAX_LINES = 30

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "old_string": {"type": "string"},
        "new_string": {"type": "string", "description": "Replacement (must differ)."},
        "replace_all": {"type": "boolean"},
    },
    "required": ["path", "old_string", "new_string"],
    "additionalProperties": False,
}


class EditFileTool:
    name = "edit_file"
    description = (
        "Replace exact text in a file read in this session. old_string must match exactly (whitespace included) and, "
        "unless replace_all (default false), occur once: include enough surrounding lines to make it unique. Copy it "
        "from read_file's output without the line-number prefix (spaces, number, tab). Create files with write_file."
    )
    input_schema: Mapping[str, Any] = _SCHEMA
    traits = ToolTraits(
        kind="edit",
        clearable=True,
        claude_names=("Edit", "MultiEdit"),
        key_argument="path",
        path_arguments=("path",),
        claude_arguments=(("path", "file_path"),),
    )

    def preview(self, args: Mapping[str, Any], ctx: ToolContext) -> str:
        """The diff this call would make, without writing; raises ``ToolError`` when ``run`` would refuse it.

        The permission question shows this diff, and a call that would be
        refused (not read first, text not found) is never offered at all.
        """
        planned = self._plan(args, ctx)
        return unified_diff(planned.text, planned.updated, planned.shown)

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        planned = self._plan(args, ctx)
        path, shown, text, updated = planned.path, planned.shown, planned.text, planned.updated
        try:
            atomic_write(path, updated.encode("utf-8"))
            record_stamp(ctx, path)
        except OSError as error:
            raise os_error("edit", shown, error) from None
        diff = unified_diff(text, updated, shown)
        added, removed = diff_counts(diff)
        replaced = planned.count
        what = f"{replaced} occurrences" if replaced > 1 else "1 occurrence"
        snippet = _snippet(updated, planned.first, planned.new_string)
        return ToolOutput(
            f"Edited {shown}: replaced {what}. The changed region now reads:\n{snippet}",
            summary=f"Edited {shown} (+{added} -{removed})",
            display={"path": shown, "diff": diff, "replacements": replaced, "added": added, "removed": removed},
            details=edit_response(path, args["old_string"], args["new_string"], text, updated, bool(args.get("replace_all", False))),
        )

    def _plan(self, args: Mapping[str, Any], ctx: ToolContext) -> _Planned:
        checked = check_args(self.name, args, self.input_schema)
        path = resolve_path(ctx, checked["path"], for_write=True)
        shown = display_path(ctx, path)
        old_string: str = checked["old_string"]
        new_string: str = checked["new_string"]
        replace_all: bool = checked.get("replace_all", False)
        if not old_string:
            raise ToolError("old_string must not be empty; to create a file use write_file")
        if old_string == new_string:
            raise ToolError("old_string and new_string are identical; there is nothing to change")
        if path.is_dir():
            raise ToolError(f"{shown} is a directory, not a file")
        if not path.exists():
            raise ToolError(f"{shown} does not exist; use write_file to create it")
        try:
            check_regular(path, shown)
            if (size := os.stat(path).st_size) > MAX_FILE_BYTES:
                raise too_large(shown, size, MAX_FILE_BYTES)
            require_fresh(ctx, path, shown)
            text = read_text(path, shown, MAX_FILE_BYTES)
        except OSError as error:
            raise os_error("edit", shown, error) from None
        count = text.count(old_string)
        if count == 0 and "\r\n" in text and "\n" in old_string and "\r\n" not in old_string:
            old_string = old_string.replace("\n", "\r\n")
            new_string = new_string.replace("\n", "\r\n")
            count = text.count(old_string)
        if count == 0:
            hint = not_found_hint(text, old_string) or "Read the file again and copy the text from it."
            raise ToolError(f"old_string was not found in {shown}. It must match exactly, including whitespace and indentation. {hint}")
        if count > 1 and not replace_all:
            raise ToolError(
                f"old_string occurs {count} times in {shown}. {occurrences_hint(text, old_string)} Add surrounding "
                "lines to old_string so it matches exactly one place, or set replace_all=true to replace every occurrence"
            )
        first = text.index(old_string)
        updated = text.replace(old_string, new_string) if replace_all else text.replace(old_string, new_string, 1)
        return _Planned(path, shown, text, updated, count if replace_all else 1, first, new_string)


@dataclass(frozen=True)
class _Planned:
    """An edit checked and computed, not yet written."""

    path: Path
    shown: str
    text: str
    updated: str
    count: int
    first: int
    new_string: str


def _snippet(text: str, start: int, inserted: str) -> str:
    """Numbered lines around the new text at character ``start`` (``cat -n`` style)."""
    lines = text.splitlines()
    first_line = text.count("\n", 0, start)
    last_line = first_line + inserted.count("\n")
    lo = max(0, first_line - SNIPPET_CONTEXT_LINES)
    hi = min(len(lines), last_line + SNIPPET_CONTEXT_LINES + 1, lo + SNIPPET_MAX_LINES)
    out = [f"{n + 1:>6}\t{lines[n][:500]}" for n in range(lo, hi)]
    if hi < last_line + 1:
        out.append("     …\t(snippet shortened; read_file shows the rest)")
    return "\n".join(out) + ("\n" if out else "(the file is now empty)\n")
