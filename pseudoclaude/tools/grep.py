"""grep: regex search over the workspace, through ripgrep or the Python fallback.

The engine is chosen once, at construction: ``ripgrep.find_rg()`` (the rg of
the pinned ``ripgrep`` wheel, else the PATH's); ``GrepTool(rg_path=None)``
forces the fallback; both feed the same ``_Collector``, so what the model sees does
not depend on whether ripgrep is installed. All results are consumed (memory
stays bounded: beyond the caps only counts are kept, and the entries go to a
spill file), so the note about what was left out is exact, and it names the
file that holds the complete list. The size cap is the session's inline
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

import contextlib
import os
import threading
from pathlib import Path
from typing import Any, BinaryIO, Literal, Mapping

from pseudoclaude.textsafe import NAME_QUOTING_NOTE
from pseudoclaude.tools.args import check_args
from pseudoclaude.tools.base import ToolContext, ToolError, ToolOutput, ToolTraits
from pseudoclaude.tools.files import check_regular
from pseudoclaude.tools.grep_search import (
    MAX_FILE_BYTES,
    EngineFailed,
    FileHits,
    Mode,
    Query,
    compile_pattern,
    python_search,
    rg_search,
)
from pseudoclaude.tools.read_guard import GuardedRoot, denial_message
from pseudoclaude.tools.output import SPILL_LIMIT_BYTES
from pseudoclaude.tools.paths import display_path, resolve_path
from pseudoclaude.tools.ripgrep import find_rg
from pseudoclaude.tools.shell import open_spill_file
from pseudoclaude.tools.threads import in_thread

MAX_FILES = 200
MAX_CONTENT_LINES = 300
_FRAME_BYTES = 400
LINE_LIMIT_CHARS = 500
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
        kind="read", clearable=True, claude_names=("Grep",), key_argument="pattern", path_arguments=("path",), default_path=".",
        claude_arguments=(("case_insensitive", "-i"), ("context", "-C")),
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
        collector = _Collector(ctx, mode, query.context)
        try:
            if self.rg_path is not None:
                try:
                    async with contextlib.aclosing(rg_search(query, self.rg_path)) as found:
                        async for hits in found:
                            collector.add(hits)
                except (EngineFailed, FileNotFoundError, PermissionError):
                    collector.discard()
                    collector = _Collector(ctx, mode, query.context)
                    await _search_in_thread(query, collector)
            else:
                await _search_in_thread(query, collector)
        except BaseException:
            collector.discard()
            raise
        return collector.output(query, display_path(ctx, root) if root != ctx.workspace.resolve() else "the workspace")


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


async def _search_in_thread(query: Query, collector: _Collector) -> None:
    """The Python engine on a daemon thread (``threads.in_thread``), told to stop when the search is cancelled."""
    stop = threading.Event()
    try:
        await in_thread(_collect_python, query, collector, stop)
    finally:
        stop.set()


def _collect_python(query: Query, collector: _Collector, stop: threading.Event) -> None:
    for hits in python_search(query, notice=collector.notice):
        if stop.is_set():
            return
        collector.add(hits)


class _Collector:
    """Turns a stream of ``FileHits`` into capped text plus exact totals, and the complete list in a spill file.

    What is shown is capped by ``MAX_FILES``/``MAX_CONTENT_LINES`` and by the
    inline budget (``ctx.budget.inline_bytes``). The moment an entry does not
    fit, the entries so far and every later one go to a file in the session's
    spill folder, so the result can name where the complete list is.
    """

    def __init__(self, ctx: ToolContext, mode: Mode, context: int) -> None:
        self._ctx = ctx
        self._mode = mode
        self._context = context
        self._limit = max(1_000, ctx.budget.inline_bytes - _FRAME_BYTES)
        self._out: list[str] = []
        self._bytes = 0
        self._capped = False
        self._spill: BinaryIO | None = None
        self._spilled = 0
        self.spill_path: Path | None = None
        self.spill_error: str | None = None
        self.spill_full = False
        self._discarded = False
        self.files = 0
        self.matches = 0
        self.hidden_files = 0
        self.hidden_matches = 0
        self.quoted_names = False
        self.notes: list[str] = []

    def notice(self, path: Path, why: str) -> None:
        """An ignore file the walk could not use (``walk.Notice``): the result says so."""
        self.notes.append(f"{display_path(self._ctx, path)}: {why}")

    def add(self, hits: FileHits) -> None:
        self.files += 1
        if self._mode != "files_with_matches":
            self.matches += hits.count
        if self._mode == "content":
            self._add_lines(hits)
            return
        shown = self._name(hits)
        entry = f"{shown}:{hits.count}" if self._mode == "count" else shown
        if not self._show(entry, self.files > MAX_FILES):
            self.hidden_files += 1

    def _name(self, hits: FileHits) -> str:
        shown = display_path(self._ctx, hits.path)
        self.quoted_names = self.quoted_names or shown.startswith('"')
        return shown

    def _add_lines(self, hits: FileHits) -> None:
        shown = self._name(hits)
        previous: int | None = None
        shown_matches = 0
        for line in hits.lines:
            text = line.text.rstrip("\r")
            if len(text) > LINE_LIMIT_CHARS:
                text = text[:LINE_LIMIT_CHARS] + " … [line cut]"
            sep = ":" if line.is_match else "-"
            entry = f"{shown}{sep}{line.number}{sep}{text}"
            starts_group = previous is None or line.number != previous + 1
            if self._context and starts_group and (self._out or self._spilled):
                entry = "--\n" + entry
            previous = line.number
            if self._show(entry, len(self._out) >= MAX_CONTENT_LINES):
                shown_matches += line.is_match
        self.hidden_matches += hits.count - shown_matches
        self.hidden_files += shown_matches == 0

    def _show(self, entry: str, over_count: bool) -> bool:
        """Show ``entry`` if it still fits; every entry also goes to the spill file once one did not."""
        size = len(entry.encode("utf-8")) + 1
        fits = not self._capped and not over_count and self._bytes + size <= self._limit
        if fits:
            self._out.append(entry)
            self._bytes += size
        elif not self._capped:
            self._capped = True
            self._start_spill()
        self._write(entry)
        return fits

    def _start_spill(self) -> None:
        if self._discarded:
            return
        if self._ctx.spill_dir is None:
            self.spill_error = "the complete list was not saved (this session keeps no files)"
            return
        try:
            self.spill_path, self._spill = open_spill_file(self._ctx.spill_dir, "grep")
        except OSError as error:
            self.spill_error = f"the complete list could not be saved: {error.strerror or error}"

    def _write(self, entry: str) -> None:
        if self._spill is None:
            return
        data = ("\n".join(self._out) + "\n" if not self._spilled and self._out else "") + entry + "\n"
        encoded = data.encode("utf-8", errors="replace")
        if self._spilled + len(encoded) > SPILL_LIMIT_BYTES:
            self.spill_full = True
            return
        try:
            self._spill.write(encoded)
        except OSError as error:
            self.discard()
            self.spill_error = f"the complete list could not be saved: {error.strerror or error}"
            return
        self._spilled += len(encoded)

    def discard(self) -> None:
        """Close and remove the spill file (the search is being redone or failed); none is opened after."""
        self._discarded = True
        self.close()
        if self.spill_path is not None:
            with contextlib.suppress(OSError):
                self.spill_path.unlink()
            self.spill_path = None

    def close(self) -> None:
        if self._spill is not None:
            spill, self._spill = self._spill, None
            try:
                spill.close()
            except OSError as error:
                self._spill = None
                self.discard()
                self.spill_error = f"the complete list could not be saved: {error.strerror or error}"

    def output(self, query: Query, where: str) -> ToolOutput:
        self.close()
        display = {"files": self.files, "matches": self.matches, "mode": self._mode}
        notes = "".join(f"(note: {note})\n" for note in dict.fromkeys(self.notes))
        if not self.files:
            text = f"No matches for {query.pattern!r} in {where}." + (f"\n{notes}" if notes else "")
            return ToolOutput(text, summary=f"grep {query.pattern}: no matches", display=display)
        plural = "s" if self.files != 1 else ""
        if self._mode == "files_with_matches":
            header = f"{self.files} file{plural} match {query.pattern!r}:"
        else:
            header = f"{self.matches} matching line{'s' if self.matches != 1 else ''} in {self.files} file{plural}:"
        body = "\n".join([header, *self._out]) + "\n"
        cut = bool(self.hidden_files or self.hidden_matches)
        if cut:
            if self._mode == "content":
                body += f"… {self.hidden_matches} more matching lines ({self.hidden_files} more files) not shown; narrow the pattern, path or glob"
            else:
                body += f"… {self.hidden_files} more files not shown; narrow the pattern, path or glob"
            body += f"; {self._where_complete()}\n"
        if self.quoted_names:
            body += f"(note: {NAME_QUOTING_NOTE})\n"
        body += notes
        found = f"{self.files} file{plural}" if self._mode == "files_with_matches" else f"{self.matches} lines in {self.files} file{plural}"
        path = str(self.spill_path) if cut and self.spill_path is not None else None
        return ToolOutput(body, summary=f"grep {query.pattern}: {found}", display=display, shaped=cut, full_output=path)

    def _where_complete(self) -> str:
        if self.spill_path is None:
            return self.spill_error or "the complete list was not saved"
        if self.spill_full:
            return f"only the first {self._spilled:,} bytes of the complete list ({SPILL_LIMIT_BYTES // (1024 * 1024)} MiB disk cap) are in {self.spill_path}"
        return f"the complete list is in {self.spill_path}"
