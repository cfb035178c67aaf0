"""grep: regex search over the workspace, through ripgrep or the Python fallback.

The engine is chosen once, at construction (``GrepTool(rg_path=None)`` forces
the fallback); both feed the same ``_Collector``, so what the model sees does
not depend on whether ripgrep is installed. All results are consumed (memory
stays bounded: beyond the caps only counts are kept), so the note about what
was left out is exact.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from typing import Any, Literal, Mapping

from pseudoclaude.tools.args import check_args
from pseudoclaude.tools.base import ToolContext, ToolError, ToolOutput, ToolTraits
from pseudoclaude.tools.grep_search import (
    EngineFailed,
    FileHits,
    Mode,
    Query,
    compile_pattern,
    python_search,
    rg_search,
)
from pseudoclaude.tools.paths import display_path, resolve_path

MAX_FILES = 200
MAX_CONTENT_LINES = 300
MAX_OUTPUT_BYTES = 40_000
LINE_LIMIT_CHARS = 500
MAX_CONTEXT = 20

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string", "minLength": 1, "description": "Regular expression to search for (one line at a time)."},
        "path": {"type": "string", "description": "File or folder to search (default: the workspace)."},
        "glob": {"type": "string", "description": "Only search files matching this glob, e.g. '*.py' or 'src/**/*.ts'; prefix with '!' to exclude."},
        "output_mode": {
            "type": "string",
            "enum": ["content", "files_with_matches", "count"],
            "description": "'files_with_matches' (default): paths only; 'content': matching lines with line numbers; 'count': matches per file.",
        },
        "context": {"type": "integer", "minimum": 0, "maximum": MAX_CONTEXT, "description": "Lines of context around each match (content mode only)."},
        "case_insensitive": {"type": "boolean", "description": "Ignore case (default false)."},
    },
    "required": ["pattern"],
    "additionalProperties": False,
}


class GrepTool:
    name = "grep"
    description = (
        "Search file contents with a regular expression. Skips files ignored by .gitignore, the .git folder "
        "and binary files. output_mode 'files_with_matches' (default) lists matching files, 'content' shows "
        "matching lines as path:line:text (context lines as path-line-text), 'count' shows matches per file. "
        f"Results are capped ({MAX_FILES} files, {MAX_CONTENT_LINES} lines) with a count of what was left out."
    )
    input_schema: Mapping[str, Any] = _SCHEMA
    traits = ToolTraits(kind="read", clearable=True, claude_names=("Grep",), key_argument="pattern", path_arguments=("path",), default_path=".")

    def __init__(self, rg_path: str | None | Literal["auto"] = "auto") -> None:
        self.rg_path: str | None = shutil.which("rg") if rg_path == "auto" else rg_path

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        checked = check_args(self.name, args, self.input_schema)
        mode: Mode = checked.get("output_mode", "files_with_matches")
        if "context" in checked and mode != "content":
            raise ToolError("context only applies to output_mode='content'; set output_mode to 'content' or drop context")
        root = resolve_path(ctx, checked.get("path", "."), for_write=False)
        if not root.exists():
            raise ToolError(f"{display_path(ctx, root)} does not exist")
        query = Query(
            pattern=checked["pattern"],
            root=root,
            mode=mode,
            context=checked.get("context", 0),
            case_insensitive=checked.get("case_insensitive", False),
            glob=checked.get("glob") or None,
        )
        compile_pattern(query)
        collector = _Collector(ctx, mode, query.context)
        if self.rg_path is not None:
            try:
                async with contextlib.aclosing(rg_search(query, self.rg_path)) as found:
                    async for hits in found:
                        collector.add(hits)
            except (EngineFailed, FileNotFoundError, PermissionError):
                collector = _Collector(ctx, mode, query.context)
                await asyncio.to_thread(_collect_python, query, collector)
        else:
            await asyncio.to_thread(_collect_python, query, collector)
        return collector.output(query, display_path(ctx, root) if root != ctx.workspace.resolve() else "the workspace")


def _collect_python(query: Query, collector: _Collector) -> None:
    for hits in python_search(query):
        collector.add(hits)


class _Collector:
    """Turns a stream of ``FileHits`` into capped text plus exact totals."""

    def __init__(self, ctx: ToolContext, mode: Mode, context: int) -> None:
        self._ctx = ctx
        self._mode = mode
        self._context = context
        self._out: list[str] = []
        self._bytes = 0
        self._capped = False
        self.files = 0
        self.matches = 0
        self.hidden_files = 0
        self.hidden_matches = 0

    def add(self, hits: FileHits) -> None:
        self.files += 1
        if self._mode != "files_with_matches":
            self.matches += hits.count
        if self._mode == "content":
            self._add_lines(hits)
        elif self.files > MAX_FILES:
            self.hidden_files += 1
        else:
            shown = display_path(self._ctx, hits.path)
            self._out.append(f"{shown}:{hits.count}" if self._mode == "count" else shown)

    def _add_lines(self, hits: FileHits) -> None:
        shown = display_path(self._ctx, hits.path)
        previous: int | None = None
        shown_matches = 0
        for line in hits.lines:
            if self._capped:
                break
            text = line.text.rstrip("\r")
            if len(text) > LINE_LIMIT_CHARS:
                text = text[:LINE_LIMIT_CHARS] + " … [line cut]"
            sep = ":" if line.is_match else "-"
            entry = f"{shown}{sep}{line.number}{sep}{text}"
            starts_group = previous is None or line.number != previous + 1
            if self._context and starts_group and self._out:
                entry = "--\n" + entry
            size = len(entry.encode("utf-8")) + 1
            if len(self._out) >= MAX_CONTENT_LINES or self._bytes + size > MAX_OUTPUT_BYTES:
                self._capped = True
                break
            self._out.append(entry)
            self._bytes += size
            previous = line.number
            shown_matches += line.is_match
        self.hidden_matches += hits.count - shown_matches
        self.hidden_files += shown_matches == 0

    def output(self, query: Query, where: str) -> ToolOutput:
        display = {"files": self.files, "matches": self.matches, "mode": self._mode}
        if not self.files:
            return ToolOutput(f"No matches for {query.pattern!r} in {where}.", summary=f"grep {query.pattern}: no matches", display=display)
        plural = "s" if self.files != 1 else ""
        if self._mode == "files_with_matches":
            header = f"{self.files} file{plural} match {query.pattern!r}:"
        else:
            header = f"{self.matches} matching line{'s' if self.matches != 1 else ''} in {self.files} file{plural}:"
        body = "\n".join([header, *self._out]) + "\n"
        if self.hidden_files or self.hidden_matches:
            if self._mode == "content":
                body += f"… {self.hidden_matches} more matching lines ({self.hidden_files} more files) not shown; narrow the pattern, path or glob\n"
            else:
                body += f"… {self.hidden_files} more files not shown; narrow the pattern, path or glob\n"
        found = f"{self.files} file{plural}" if self._mode == "files_with_matches" else f"{self.matches} lines in {self.files} file{plural}"
        return ToolOutput(body, summary=f"grep {query.pattern}: {found}", display=display)

