"""list_dir: one folder's entries, sorted, folders marked with ``/``, capped.

Symlinks are shown as ``name -> target`` and never followed: listing a link
must not reveal what lies outside the workspace. A name (or link target) with
control characters is shown as a JSON string literal (``textsafe.quote_name``),
so a crafted name cannot fake entries or reach the terminal, and the model can
pass it back as it is.

A folder of 100,000 entries costs no more than one of ``MAX_ENTRIES``: the
names stream through a bounded heap (the first ones by name), the rest are
only counted, and only the shown entries are stat'ed.

An entry a ``Read(...)`` deny rule forbids (``ToolContext.read_guard``) is
listed by name, marked ``read denied`` with the rule, and not stat'ed: a name
is not the secret (it is what ``ls`` shows inside the OS sandbox too, where the
mask hides only the content), and seeing it keeps the model from recreating
a file it believes missing. ``glob``, whose list is what to read next, leaves
such files out instead.
"""

from __future__ import annotations

import heapq
import os
from pathlib import Path
from typing import Any, Iterator, Mapping

from pseudoclaude.textsafe import NAME_QUOTING_NOTE, quote_name
from pseudoclaude.tools.args import check_args
from pseudoclaude.tools.base import ToolContext, ToolError, ToolOutput, ToolTraits
from pseudoclaude.tools.files import file_kind, os_error
from pseudoclaude.tools.paths import display_path, resolve_path
from pseudoclaude.tools.read_guard import GuardedRoot
from pseudoclaude.tools.threads import in_thread

MAX_ENTRIES = 500

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "Default: the workspace."},
    },
    "required": [],
    "additionalProperties": False,
}


class ListDirTool:
    name = "list_dir"
    description = (
        "List a folder by name: folders end with '/', files show their size, symlinks their target; at most "
        f"{MAX_ENTRIES} entries. Use glob to search recursively."
    )
    input_schema: Mapping[str, Any] = _SCHEMA
    traits = ToolTraits(
        kind="read", clearable=True, claude_names=("LS",), key_argument="path", path_arguments=("path",), default_path=".", explores="directory"
    )

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        checked = check_args(self.name, args, self.input_schema)
        raw = checked.get("path", ".")
        folder = resolve_path(ctx, raw, for_write=False)
        shown = display_path(ctx, folder) if folder != ctx.workspace.resolve() else str(folder)
        if not folder.exists():
            raise ToolError(f"{shown} does not exist")
        if not folder.is_dir():
            raise ToolError(f"{shown} is a file, not a folder; use read_file to read it")
        try:
            lines, total = await in_thread(_entries, folder, GuardedRoot.of(ctx, raw, folder))
        except OSError as error:
            raise os_error("list", shown, error) from None
        if not lines:
            return ToolOutput(f"{shown}/ is empty.", summary=f"Listed {shown}: empty", display={"path": shown, "entries": 0})
        body = f"{shown}/\n" + "\n".join(lines) + "\n"
        if total > len(lines):
            body += f"… {total - len(lines)} more entries not shown; use glob to narrow down\n"
        if any(line.startswith('  "') for line in lines):
            body += f"(note: {NAME_QUOTING_NOTE})\n"
        return ToolOutput(body, summary=f"Listed {shown}: {total} entries", display={"path": shown, "entries": total})


def _entries(folder: Path, guard: GuardedRoot) -> tuple[list[str], int]:
    """The first ``MAX_ENTRIES`` entries by name, formatted, and how many the folder holds."""
    lines: list[str] = []
    total = 0

    def counted(it: Iterator[os.DirEntry[str]]) -> Iterator[os.DirEntry[str]]:
        nonlocal total
        for entry in it:
            total += 1
            yield entry

    with os.scandir(folder) as it:
        entries = heapq.nsmallest(MAX_ENTRIES, counted(it), key=lambda e: e.name)
    for entry in entries:
        name = quote_name(entry.name)
        rule = guard.denied(entry.path)
        try:
            if rule is not None:
                link = f" -> {quote_name(os.readlink(entry.path))}" if entry.is_symlink() else ""
                lines.append(f"  {name}{link}  (read denied by `{rule}`)")
            elif entry.is_symlink():
                lines.append(f"  {name} -> {quote_name(os.readlink(entry.path))}")
            elif entry.is_dir(follow_symlinks=False):
                lines.append(f"  {name}/")
            else:
                lines.append(f"  {name}  ({_kind_or_size(entry)})")
        except OSError:
            lines.append(f"  {name}  (unreadable)")
    return lines, total


def _kind_or_size(entry: os.DirEntry[str]) -> str:
    info = entry.stat(follow_symlinks=False)
    kind = file_kind(info.st_mode)
    return _size(info.st_size) if kind is None else kind


def _size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{size} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"
