"""read_file: numbered lines of a text file, one bounded page at a time.

A page holds at most ``limit`` lines (default 2,000) *and* at most
``PAGE_LIMIT_BYTES`` of output, so paging through a huge file (a spilled
command output, say) never produces a huge result. Whenever lines remain, the
result ends with the exact ``offset`` to continue from. The file is streamed,
never loaded whole. Reading records a ``FileStamp``, which is what later allows
``write_file``/``edit_file`` to change the file.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any, Mapping

from pseudoclaude.tools.args import check_args
from pseudoclaude.tools.base import ToolContext, ToolError, ToolOutput, ToolTraits
from pseudoclaude.tools.files import os_error, record_stamp
from pseudoclaude.tools.output import SNIFF_BYTES, guess_type, looks_binary
from pseudoclaude.tools.paths import display_path, resolve_path

DEFAULT_LIMIT = 2000
LINE_LIMIT_CHARS = 2000
PAGE_LIMIT_BYTES = 40_000

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "File to read, relative to the workspace or absolute."},
        "offset": {"type": "integer", "minimum": 1, "description": "1-based line number to start from (default 1)."},
        "limit": {"type": "integer", "minimum": 1, "description": f"Maximum number of lines to return (default {DEFAULT_LIMIT})."},
    },
    "required": ["path"],
    "additionalProperties": False,
}


class ReadFileTool:
    name = "read_file"
    description = (
        "Read a text file. Returns lines numbered like `cat -n` (line number, tab, text). "
        f"Returns up to {DEFAULT_LIMIT} lines and about {PAGE_LIMIT_BYTES // 1000} KB per call; when more remain, "
        "the result ends with the offset to continue from. Lines longer than "
        f"{LINE_LIMIT_CHARS} characters are cut. Binary files are refused. "
        "Read a file before changing it with write_file or edit_file."
    )
    input_schema: Mapping[str, Any] = _SCHEMA
    traits = ToolTraits(kind="read", clearable=True, claude_names=("Read",), key_argument="path", path_arguments=("path",), claude_arguments=(("path", "file_path"),))

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        checked = check_args(self.name, args, self.input_schema)
        path = resolve_path(ctx, checked["path"], for_write=False)
        shown = display_path(ctx, path)
        offset = checked.get("offset", 1)
        limit = checked.get("limit", DEFAULT_LIMIT)
        return await asyncio.to_thread(_read_page, ctx, path, shown, offset, limit)


def page_limit_bytes(ctx: ToolContext) -> int:
    """The page size: 40 KB, or less when the context budget keeps smaller results inline."""
    return max(2_000, min(PAGE_LIMIT_BYTES, int(ctx.budget.result_limit_bytes * 0.8)))


def _read_page(ctx: ToolContext, path: Path, shown: str, offset: int, limit: int) -> ToolOutput:
    if path.is_dir():
        raise ToolError(f"{shown} is a directory, not a file; use list_dir to see its contents")
    if not path.exists():
        raise ToolError(f"{shown} does not exist" + _near_miss(path))
    try:
        with open(path, "rb") as f:
            sample = f.read(SNIFF_BYTES + 4)
            size = os.fstat(f.fileno()).st_size
            if looks_binary(sample):
                kind = guess_type(sample, path.name)
                raise ToolError(f"{shown} is a binary file ({size:,} bytes, looks like {kind}); read_file only reads text")
            f.seek(0)
            cap = page_limit_bytes(ctx)
            page = _collect(f, offset, limit, cap)
        record_stamp(ctx, path)
    except OSError as error:
        raise os_error("read", shown, error) from None
    if page.total_lines == 0:
        return ToolOutput(f"(the file {shown} is empty)", summary=f"Read {shown} (empty)", display={"path": shown, "lines": 0})
    if offset > page.total_lines:
        raise ToolError(f"offset {offset} is past the end of {shown}, which has {page.total_lines} lines")
    last = offset + len(page.lines) - 1
    body = "".join(page.lines)
    remaining = page.total_lines - last
    if remaining > 0:
        reason = f"page capped at {cap // 1000} KB; " if page.byte_capped else ""
        body += f"… {reason}{remaining} more lines; call read_file with offset={last + 1} to continue\n"
    return ToolOutput(
        body,
        summary=f"Read {shown} lines {offset}-{last} of {page.total_lines}",
        display={"path": shown, "offset": offset, "lines": len(page.lines), "total_lines": page.total_lines},
    )


class _Page:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.total_lines = 0
        self.byte_capped = False


def _collect(f: Any, offset: int, limit: int, cap: int) -> _Page:
    page = _Page()
    used = 0
    number = 0
    for raw in f:
        number += 1
        if number < offset:
            continue
        if len(page.lines) >= limit or page.byte_capped:
            break
        line = _format_line(number, raw)
        if used + len(line.encode("utf-8")) > cap and page.lines:
            page.byte_capped = True
            break
        page.lines.append(line)
        used += len(line.encode("utf-8"))
    else:
        page.total_lines = number
        return page
    page.total_lines = number + _count_rest(f)
    return page


def _count_rest(f: Any) -> int:
    """Lines after the current position (a last line without a newline counts)."""
    count = 0
    last = b""
    while block := f.read(1 << 20):
        count += block.count(b"\n")
        last = block[-1:]
    return count + (1 if last and last != b"\n" else 0)


def _format_line(number: int, raw: bytes) -> str:
    text = raw.decode("utf-8", errors="replace").rstrip("\n").rstrip("\r")
    if len(text) > LINE_LIMIT_CHARS:
        text = text[:LINE_LIMIT_CHARS] + f"… [line cut: {len(text) - LINE_LIMIT_CHARS:,} more characters]"
    return f"{number:>6}\t{text}\n"


def _near_miss(path: Path) -> str:
    parent = path.parent
    if not parent.is_dir():
        return ""
    stem = path.stem.lower()
    try:
        similar = sorted(p.name for p in parent.iterdir() if p.stem.lower() == stem and p.name != path.name)
    except OSError:
        return ""
    return f"; did you mean {', '.join(similar[:3])}?" if similar else ""
