"""glob: find files by name pattern, newest first.

Newest first because the files the user (or the model) touched last are the
likeliest to matter. Ignored files (``.gitignore``), ``.git`` and symlinks are
skipped (see ``walk``). The list is capped and says how many were left out.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Mapping

from pseudoclaude.textsafe import NAME_QUOTING_NOTE
from pseudoclaude.tools.args import check_args
from pseudoclaude.tools.base import ToolContext, ToolError, ToolOutput, ToolTraits
from pseudoclaude.tools.paths import display_path, resolve_path
from pseudoclaude.tools.walk import glob_to_regex, walk_files
from pseudoclaude.tools.threads import in_thread

MAX_RESULTS = 200
_GLOB_CHARS = re.compile(r"[*?\[{]")

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string", "minLength": 1, "description": "Glob pattern relative to path, e.g. '**/*.py' or 'src/*.{ts,tsx}'."},
        "path": {"type": "string", "description": "Folder to search in (default: the workspace)."},
    },
    "required": ["pattern"],
    "additionalProperties": False,
}


class GlobTool:
    name = "glob"
    description = (
        "Find files whose path matches a glob pattern ('*' within a folder name, '**' across folders, "
        "'{a,b}' alternatives). Results are sorted by modification time, newest first; files ignored "
        f"by .gitignore and the .git folder are skipped; at most {MAX_RESULTS} paths are listed."
    )
    input_schema: Mapping[str, Any] = _SCHEMA
    traits = ToolTraits(kind="read", clearable=True, claude_names=("Glob",), key_argument="pattern", path_arguments=("path",), default_path=".")

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        checked = check_args(self.name, args, self.input_schema)
        pattern: str = checked["pattern"].strip()
        if pattern.startswith("/"):
            raise ToolError("pattern must be relative; put the folder in 'path' and the pattern relative to it")
        if ".." in pattern.split("/"):
            raise ToolError("pattern must not contain '..'; set 'path' to the folder to search instead")
        root = resolve_path(ctx, checked.get("path", "."), for_write=False)
        if not root.is_dir():
            raise ToolError(f"{display_path(ctx, root)} is not a folder" if root.exists() else f"{display_path(ctx, root)} does not exist")
        found = await in_thread(_find, ctx, root, pattern)
        return _render(ctx, root, pattern, found)


def _find(ctx: ToolContext, root: Path, pattern: str) -> list[tuple[float, str, Path]]:
    regex = re.compile(glob_to_regex(pattern.removeprefix("./")), re.DOTALL)
    literal = _literal_prefix(pattern.removeprefix("./"))
    start = root / literal if literal else root
    if os.path.realpath(start) != str(start):
        literal, start = "", root
    if not start.is_dir():
        return []
    boundary = ctx.workspace.resolve() if root.is_relative_to(ctx.workspace.resolve()) else root
    found: list[tuple[float, str, Path]] = []
    for path, rel in walk_files(start, boundary=boundary):
        full_rel = f"{literal}/{rel}" if literal else rel
        if regex.fullmatch(full_rel):
            try:
                mtime = path.stat().st_mtime
            except OSError:
                continue
            found.append((mtime, full_rel, path))
    found.sort(key=lambda item: (-item[0], item[1]))
    return found


def _literal_prefix(pattern: str) -> str:
    """Split off the leading folders that contain no glob characters (they need not be walked)."""
    parts = pattern.split("/")
    literal: list[str] = []
    for part in parts[:-1]:
        if _GLOB_CHARS.search(part) or part in ("", "."):
            break
        literal.append(part)
    return "/".join(literal)


def _render(ctx: ToolContext, root: Path, pattern: str, found: list[tuple[float, str, Path]]) -> ToolOutput:
    where = display_path(ctx, root) if root != ctx.workspace.resolve() else "the workspace"
    if not found:
        return ToolOutput(f"No files match {pattern!r} in {where}.", summary=f"glob {pattern}: no files", display={"count": 0})
    shown = [display_path(ctx, path) for _, _, path in found[:MAX_RESULTS]]
    body = "\n".join(shown) + "\n"
    if len(found) > MAX_RESULTS:
        body += f"… {len(found) - MAX_RESULTS} more not shown; narrow the pattern or the path\n"
    if any(path.startswith('"') for path in shown):
        body += f"(note: {NAME_QUOTING_NOTE})\n"
    return ToolOutput(
        body,
        summary=f"glob {pattern}: {len(found)} file{'s' if len(found) != 1 else ''}",
        display={"count": len(found), "shown": len(shown)},
    )
