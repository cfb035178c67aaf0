"""write_file: create a file or replace one the model has read, atomically.

Overwriting obeys the read-first rule of ``files.require_fresh``; creating a
new file does not need a read. The result carries a unified diff for renderers
and only a short summary for the model (it knows what it wrote); ``PostToolUse``
hooks get Claude Code's ``Write`` tool_response (``patch_shape``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from pseudoclaude.tools.args import check_args
from pseudoclaude.tools.base import ToolContext, ToolError, ToolOutput, ToolTraits
from pseudoclaude.tools.files import (
    atomic_write,
    check_regular,
    diff_counts,
    open_regular,
    os_error,
    record_stamp,
    require_fresh,
    unified_diff,
)
from pseudoclaude.tools.patch_shape import write_response
from pseudoclaude.tools.paths import display_path, resolve_path

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "content": {"type": "string", "description": "The complete new content."},
    },
    "required": ["path", "content"],
    "additionalProperties": False,
}


class WriteFileTool:
    name = "write_file"
    description = (
        "Write a whole file, creating parent folders. Overwriting an existing file requires having read it in this "
        "session, unchanged since. Prefer edit_file for changing part of a file."
    )
    input_schema: Mapping[str, Any] = _SCHEMA
    traits = ToolTraits(
        kind="edit", clearable=True, claude_names=("Write",), key_argument="path", path_arguments=("path",), claude_arguments=(("path", "file_path"),)
    )

    def preview(self, args: Mapping[str, Any], ctx: ToolContext) -> str:
        """The diff this call would make, without writing; raises ``ToolError`` when ``run`` would refuse it."""
        path, shown, content, old, _ = self._plan(args, ctx)
        return unified_diff(old, content, shown)

    def _plan(self, args: Mapping[str, Any], ctx: ToolContext) -> tuple[Path, str, str, str, bool]:
        """Path, shown name, new content, old content, whether it existed: checked, nothing written."""
        checked = check_args(self.name, args, self.input_schema)
        path = resolve_path(ctx, checked["path"], for_write=True)
        shown = display_path(ctx, path)
        content: str = checked["content"]
        if path.is_dir():
            raise ToolError(f"{shown} is a directory; give the path of a file inside it")
        existed = path.exists()
        old = ""
        try:
            if existed:
                check_regular(path, shown)
                require_fresh(ctx, path, shown)
                with open_regular(path, shown) as f:
                    old = f.read().decode("utf-8", errors="replace")
        except OSError as error:
            raise os_error("write", shown, error) from None
        return path, shown, content, old, existed

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        path, shown, content, old, existed = self._plan(args, ctx)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, content.encode("utf-8"))
            record_stamp(ctx, path)
        except OSError as error:
            raise os_error("write", shown, error) from None
        diff = unified_diff(old, content, shown)
        added, removed = diff_counts(diff)
        line_count = len(content.splitlines())
        if existed:
            message = f"Updated {shown} (+{added} -{removed} lines; now {line_count} lines)."
            summary = f"Updated {shown} (+{added} -{removed})"
        else:
            message = f"Created {shown} ({line_count} lines, {len(content.encode('utf-8')):,} bytes)."
            summary = f"Created {shown} ({line_count} lines)"
        return ToolOutput(
            message,
            summary=summary,
            display={"path": shown, "diff": diff, "created": not existed, "added": added, "removed": removed},
            details=write_response(path, content, old if existed else None),
        )
