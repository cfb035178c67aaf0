"""grep: regex search over the workspace, through ripgrep or the Python fallback.

The engine is chosen once, at construction: ``ripgrep.find_rg()`` (the rg of
the pinned ``ripgrep`` wheel, else the PATH's); ``GrepTool(rg_path=None)``
forces the fallback; both feed the same ``grep_results.Results``, which orders
what it shows by path, so what the model sees does not depend on whether
ripgrep is installed nor on the order its threads finish. All results are
consumed up to ``grep_results.KEEP_CHARS`` (then the search stops, and says it
stopped counting), so the note about what was left out is exact, and it names
the file that holds the complete list. The size cap is the session's inline
output budget (``ToolContext.budget``), like a command's output.

No file a ``Read(...)`` deny rule forbids is searched or named, whatever the
path (``ToolContext.read_guard``; a file named as the path is refused with
the rule). Hostile content costs bounded time and memory: a file named as the
path over ``MAX_FILE_BYTES`` is refused before any engine touches it (ripgrep
would scan all of a 10 GB sparse file: 60 s and 8 GB of mapped memory), larger
files met in the walk are skipped, and an ignore file that is not a regular
file is passed over, the result saying so (see ``grep_search``).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, Literal, Mapping

from pseudoclaude.tools.args import check_args
from pseudoclaude.tools.base import ToolContext, ToolError, ToolOutput, ToolTraits
from pseudoclaude.tools.files import check_regular
from pseudoclaude.tools.grep_results import MAX_CONTENT_LINES, MAX_FILES, Results
from pseudoclaude.tools.grep_rg import rg_collect
from pseudoclaude.tools.grep_search import MAX_FILE_BYTES, EngineFailed, Mode, Query, compile_pattern, python_search
from pseudoclaude.tools.read_guard import GuardedRoot, denial_message
from pseudoclaude.tools.paths import display_path, resolve_path
from pseudoclaude.tools.ripgrep import find_rg
from pseudoclaude.tools.threads import in_thread

MAX_CONTEXT = 20

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string", "minLength": 1},
        "path": {"type": "string", "description": "File or folder (default: the workspace)."},
        "glob": {"type": "string", "description": "Only files matching this glob, e.g. '*.py'; '!' prefix excludes."},
        "output_mode": {
            "type": "string",
            "enum": ["content", "files_with_matches", "count"],
            "description": "'files_with_matches' (default): paths; 'content': path:line:text (context lines path-line-text); 'count': matches per file.",
        },
        "context": {"type": "integer", "minimum": 0, "maximum": MAX_CONTEXT, "description": "Lines around each match (content mode)."},
        "case_insensitive": {"type": "boolean"},
    },
    "required": ["pattern"],
    "additionalProperties": False,
}


class GrepTool:
    name = "grep"
    description = (
        "Search file contents with a regular expression, one line at a time. Skips .gitignore and .pseudoclaudeignore "
        f"matches, .git, binary files, FIFOs, devices and files over {MAX_FILE_BYTES // (1024 * 1024)} MiB. Capped at {MAX_FILES} files, {MAX_CONTENT_LINES} lines and a size budget, with a "
        "count of what was left out and the complete list saved to a file."
    )
    input_schema: Mapping[str, Any] = _SCHEMA
    traits = ToolTraits(
        kind="read",
        clearable=True,
        claude_names=("Grep",),
        key_argument="pattern",
        path_arguments=("path",),
        default_path=".",
        claude_arguments=(("case_insensitive", "-i"), ("context", "-C")),
        explores="pattern",
    )

    def __init__(self, rg_path: str | None | Literal["auto"] = "auto") -> None:
        self.rg_path: str | None = find_rg() if rg_path == "auto" else rg_path

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        checked = check_args(self.name, args, self.input_schema)
        mode: Mode = checked.get("output_mode", "files_with_matches")
        if "context" in checked and mode != "content":
            raise ToolError("context only applies to output_mode='content'; set output_mode to 'content' or drop context")
        raw = checked.get("path", ".")
        root = resolve_path(ctx, raw, for_write=False)
        guard = GuardedRoot.of(ctx, raw, root)
        if not root.exists():
            raise ToolError(f"{display_path(ctx, root)} does not exist")
        if not root.is_dir():
            _check_file(root, display_path(ctx, root), guard)
        query = Query(
            pattern=checked["pattern"],
            root=root,
            mode=mode,
            context=checked.get("context", 0),
            case_insensitive=checked.get("case_insensitive", False),
            glob=checked.get("glob") or None,
            ignore_base=ctx.workspace.resolve(),
            guard=guard,
        )
        compile_pattern(query)
        results = Results(ctx, mode, query.context)
        if self.rg_path is not None:
            try:
                await rg_collect(query, self.rg_path, results)
            except (EngineFailed, FileNotFoundError, PermissionError):
                results = Results(ctx, mode, query.context)
                await _search_in_thread(query, results)
        else:
            await _search_in_thread(query, results)
        return results.output(query, display_path(ctx, root) if root != ctx.workspace.resolve() else "the workspace")


def _check_file(path: Path, shown: str, guard: GuardedRoot) -> None:
    """A file named as grep's path: readable under the rules, a regular file, and not over ``MAX_FILE_BYTES``."""
    rule = guard.denied(path)
    if rule is not None:
        raise ToolError(denial_message(shown, rule))
    check_regular(path, shown)
    size = os.stat(path).st_size
    if size > MAX_FILE_BYTES:
        raise ToolError(
            f"not searched: {shown} is {size / (1 << 30):.1f} GiB, over the {MAX_FILE_BYTES >> 20} MiB grep searches in one file "
            "(a file that large is data, and its longest line would be held in memory); search a part of it with "
            f"run_command, e.g. `head -c 50M {shown} | rg PATTERN`"
        )


async def _search_in_thread(query: Query, results: Results) -> None:
    """The Python engine on a daemon thread (``threads.in_thread``), told to stop when the search is cancelled."""
    stop = threading.Event()
    try:
        await in_thread(_collect_python, query, results, stop)
    finally:
        stop.set()


def _collect_python(query: Query, results: Results, stop: threading.Event) -> None:
    for hits in python_search(query, notice=results.notice):
        if stop.is_set():
            return
        results.add(hits)
        if results.full:
            return
