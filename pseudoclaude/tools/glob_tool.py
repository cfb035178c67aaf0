"""glob: find files by name pattern, newest first.

Newest first because the files the user (or the model) touched last are the
likeliest to matter. Ignored files (``.gitignore``, ``.pseudoclaudeignore``),
``.git`` and symlinks are skipped (see ``walk``). The list is capped and says
how many were left out.

The file list comes from ``rg --files`` when ripgrep is there (several
times faster on a large tree) or from ``walk.walk_files``, under the same
ignore rules; the pattern is matched here either way, so both give the same
answer. Memory stays bounded: paths stream through a list cut back to
the ``MAX_RESULTS`` newest, plus a count of the rest.

A file a ``Read(...)`` deny rule forbids (``ToolContext.read_guard``) is left
out of the list, and the result says how many were: the list is what the
model reads next, and a file's mtime (the sort key) is already a fact about it.
``list_dir`` shows such names, marked, for the layout.

ripgrep lists newest first (``--sortr modified``, one thread, its own
``stat`` per file): only the shown names and those tied with the last of them
are ``lstat``-ed here, the rest only counted (a ``stat`` per match was most of
a broad glob's own time). Sorting holds about 190 bytes a file in ripgrep:
past about 2.5 million listed files its memory cap stops it, and the walk lists.

``rg --files`` runs capped and watched like grep's ripgrep (``rg_limits``): a
hostile ``.gitignore`` (a FIFO, a link to ``/dev/zero``) makes it fail or
stall, and the Python walk, which passes such files over and says so, lists instead.
"""

from __future__ import annotations

import os
import re
import select
import stat
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Literal, Mapping

from pseudoclaude.textsafe import NAME_QUOTING_NOTE, quote_name
from pseudoclaude.tools.args import check_args
from pseudoclaude.tools.base import ToolContext, ToolError, ToolOutput, ToolTraits
from pseudoclaude.tools.grep_search import RG_WALK_FLAGS, EngineFailed, rg_location
from pseudoclaude.tools.paths import display_path, resolve_path
from pseudoclaude.tools.read_guard import GuardedRoot
from pseudoclaude.tools.rg_limits import POLL_S, PREEXEC, RG_STALL_S, RgProgress, limit_started
from pseudoclaude.tools.ripgrep import find_rg
from pseudoclaude.tools.threads import in_thread
from pseudoclaude.tools.walk import glob_to_regex, walk_files

MAX_RESULTS = 200
RG_SILENCE_S = 10.0
"""``rg --files`` silent this long, where ``/proc`` cannot tell its progress (elsewhere ``RG_STALL_S`` without output
or progress): a FIFO committed as a ``.gitignore`` blocks it forever; it is stopped and the Python walk lists instead."""
_GLOB_CHARS = re.compile(r"[*?\[{]")
_NAME_GLOB = re.compile(r"[\w.*?-]+(?:\{[\w.*?-]+(?:,[\w.*?-]+)*\}[\w.*?-]*)?", re.ASCII)
"""A last pattern part ripgrep's glob reads as ours does: no class, no escape, at most one flat ``{a,b}``."""

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string", "minLength": 1, "description": "Relative to path, e.g. '**/*.py' or 'src/*.{ts,tsx}'."},
        "path": {"type": "string", "description": "Default: the workspace."},
    },
    "required": ["pattern"],
    "additionalProperties": False,
}


class GlobTool:
    name = "glob"
    description = (
        "Find files by glob ('*' within a name, '**' across folders, '{a,b}' alternatives), newest first, skipping "
        f".gitignore and .pseudoclaudeignore matches and .git; at most {MAX_RESULTS} paths."
    )
    input_schema: Mapping[str, Any] = _SCHEMA
    traits = ToolTraits(
        kind="read", clearable=True, claude_names=("Glob",), key_argument="pattern", path_arguments=("path",), default_path=".", explores="pattern"
    )

    def __init__(self, rg_path: str | None | Literal["auto"] = "auto") -> None:
        self.rg_path: str | None = find_rg() if rg_path == "auto" else rg_path

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        checked = check_args(self.name, args, self.input_schema)
        pattern: str = checked["pattern"].strip()
        if pattern.startswith("/"):
            raise ToolError("pattern must be relative; put the folder in 'path' and the pattern relative to it")
        if ".." in pattern.split("/"):
            raise ToolError("pattern must not contain '..'; set 'path' to the folder to search instead")
        raw = checked.get("path", ".")
        root = resolve_path(ctx, raw, for_write=False)
        if not root.is_dir():
            raise ToolError(f"{display_path(ctx, root)} is not a folder" if root.exists() else f"{display_path(ctx, root)} does not exist")
        stop = threading.Event()
        try:
            listing = await in_thread(_find, ctx, root, GuardedRoot.of(ctx, raw, root), pattern, self.rg_path, stop)
        finally:
            stop.set()
        return _render(ctx, root, pattern, listing)


Found = tuple[float, str, str]


@dataclass
class _Listing:
    """The ``MAX_RESULTS`` newest matches, how many matched in all, how many were left out as denied, and notes."""

    found: list[Found] = field(default_factory=list)
    total: int = 0
    denied: int = 0
    notes: list[str] = field(default_factory=list)


def _find(ctx: ToolContext, root: Path, guard: GuardedRoot, pattern: str, rg_path: str | None, stop: threading.Event) -> _Listing:
    """The ``MAX_RESULTS`` newest matching files (newest first, then by path) and how many matched in all."""
    regex = re.compile(glob_to_regex(pattern.removeprefix("./")), re.DOTALL)
    literal = _literal_prefix(pattern.removeprefix("./"))
    start = root / literal if literal else root
    if os.path.realpath(start) != str(start):
        literal, start = "", root
    if not start.is_dir():
        return _Listing()
    workspace = ctx.workspace.resolve()
    if rg_path is not None:
        files = _rg_files(rg_path, start, workspace, pattern.removeprefix("./"), stop)
        if files is not None:
            try:
                return _first_newest(files, literal, regex, guard, stop, _Listing())
            except EngineFailed:
                pass
    listing = _Listing()

    def notice(path: Path, why: str) -> None:
        listing.notes.append(f"{display_path(ctx, path)}: {why}")

    walked = walk_files(start, boundary=Path(start.anchor), ignore_base=workspace, notice=notice)  # every parent's .gitignore, as rg reads
    return _newest(walked, literal, regex, guard, stop, listing)


def _newest(files: Iterator[tuple[str, str]], literal: str, regex: re.Pattern[str], guard: GuardedRoot, stop: threading.Event, listing: _Listing) -> _Listing:
    """Keep the ``MAX_RESULTS`` newest: a list sorted and cut whenever it grows past a few times that (a heap with a
    key function per file cost more than the ``lstat``)."""
    fullmatch, lstat, is_regular = regex.fullmatch, os.lstat, stat.S_ISREG
    checked = bool(guard.guard.patterns)
    prefix = f"{literal}/" if literal else ""
    kept: list[tuple[int, str, str]] = []
    for path, rel in files:
        if stop.is_set():
            break
        full_rel = prefix + rel
        if fullmatch(full_rel) is None:
            continue
        try:
            info = lstat(path)
        except OSError:
            continue
        if not is_regular(info.st_mode):
            continue
        if checked and guard.denied(path) is not None:
            listing.denied += 1
            continue
        listing.total += 1
        kept.append((-info.st_mtime_ns, full_rel, path))
        if len(kept) >= 8 * MAX_RESULTS:
            kept.sort()
            del kept[MAX_RESULTS:]
    kept.sort()
    listing.found = [(-mtime / 1e9, full_rel, path) for mtime, full_rel, path in kept[:MAX_RESULTS]]
    return listing


def _first_newest(
    files: Iterator[tuple[str, str]], literal: str, regex: re.Pattern[str], guard: GuardedRoot, stop: threading.Event, listing: _Listing
) -> _Listing:
    """From a listing already newest first (``rg --sortr modified``): the first ``MAX_RESULTS`` matches, and past them
    those of the same mtime (the order within a tie is by path, as the walk's), are ``lstat``-ed and ordered; the
    rest are only counted. A ``stat`` per file here was most of a broad glob's own time."""
    fullmatch, lstat = regex.fullmatch, os.lstat
    checked = bool(guard.guard.patterns)
    prefix = f"{literal}/" if literal else ""
    kept: list[tuple[int, str, str]] = []
    edge: int | None = None
    for path, rel in files:
        if stop.is_set():
            break
        full_rel = prefix + rel
        if fullmatch(full_rel) is None:
            continue
        if checked and guard.denied(path) is not None:
            listing.denied += 1
            continue
        listing.total += 1
        if edge == -1:
            continue
        try:
            mtime = lstat(path).st_mtime_ns
        except OSError:
            listing.total -= 1
            continue
        if edge is not None and mtime != edge:
            edge = -1
            continue
        kept.append((-mtime, full_rel, path))
        if edge is None and len(kept) == MAX_RESULTS:
            edge = mtime
    kept.sort()
    listing.found = [(-mtime / 1e9, full_rel, path) for mtime, full_rel, path in kept[:MAX_RESULTS]]
    return listing


def _rg_files(rg_path: str, start: Path, workspace: Path, pattern: str, stop: threading.Event) -> Iterator[tuple[str, str]] | None:
    """``rg --files`` under ``start`` as ``(path, path relative to start)``; None when ripgrep cannot start.

    When the pattern's last part is a plain name glob (``*.py``, ``test_*.{ts,tsx}``) ripgrep is given it as a file
    type, so it prints only the files with such a name: a type, unlike ``--glob``, never brings back an ignored
    file, and the whole pattern is still matched here.
    """
    cwd, target, ignore_args = rg_location(start, workspace)
    argv = [rg_path, *RG_WALK_FLAGS, "--files", "--null", "--sortr", "modified", *ignore_args, "--glob", "!.git"]
    name = pattern.rsplit("/", 1)[-1]
    if _NAME_GLOB.fullmatch(name) and "*" in name and "**" not in name:
        argv += ["--type-add", f"pcglob:{name}", "--type", "pcglob"]
    argv += ["--", target]
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            preexec_fn=PREEXEC,
        )
    except OSError:
        return None
    limit_started(proc.pid)
    return _read_files(proc, str(cwd), target, stop)


def _read_files(proc: subprocess.Popen[bytes], cwd: str, target: str, stop: threading.Event) -> Iterator[tuple[str, str]]:
    """Paths as ripgrep prints them; ``EngineFailed`` when it printed none and failed (exit 2: a bad binary, a bad flag),
    when it died of a signal (its memory cap) or when it stalled.

    ripgrep prints ``target/rel`` (``./rel`` for ``.``): the paths are made by slicing, a block at a time (a
    ``normpath`` and a ``join`` per file were most of a broad glob's time).
    """
    assert proc.stdout is not None
    skip = len(target.rstrip("/")) + 1
    base = cwd.rstrip(os.sep) + os.sep + ("" if target == "." else target.rstrip("/") + "/")
    pending = b""
    printed = False
    progress = RgProgress(proc.pid)
    idle = 0.0
    try:
        while True:
            if not select.select([proc.stdout], [], [], POLL_S)[0]:
                moved = progress.moved()
                idle = 0.0 if moved else idle + POLL_S
                if idle >= (RG_SILENCE_S if moved is None else RG_STALL_S):
                    raise EngineFailed(f"rg --files made no progress for {idle:g} s")
                continue
            idle = 0.0
            chunk = os.read(proc.stdout.fileno(), 262144)
            if not chunk:
                break
            if stop.is_set():
                return
            printed = True
            complete, nul, pending = (pending + chunk).rpartition(b"\0")
            if not nul:
                pending = complete + pending
                continue
            for raw in os.fsdecode(complete).split("\0"):
                rel = raw[skip:]
                yield base + rel, rel if os.sep == "/" else rel.replace(os.sep, "/")
        code = proc.wait()
        if code < 0 or (code == 2 and not printed):
            raise EngineFailed(f"rg --files failed (exit {code})")
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()


def _literal_prefix(pattern: str) -> str:
    """Split off the leading folders that contain no glob characters (they need not be walked)."""
    parts = pattern.split("/")
    literal: list[str] = []
    for part in parts[:-1]:
        if _GLOB_CHARS.search(part) or part in ("", "."):
            break
        literal.append(part)
    return "/".join(literal)


def _render(ctx: ToolContext, root: Path, pattern: str, listing: _Listing) -> ToolOutput:
    where = display_path(ctx, root) if root != ctx.workspace.resolve() else "the workspace"
    found, total = listing.found, listing.total
    notes = "".join(f"(note: {note})\n" for note in dict.fromkeys(listing.notes))
    if listing.denied:
        notes += f"({listing.denied} matching file{'s' if listing.denied != 1 else ''} not listed: reading denied by the permission rules)\n"
    if not found:
        text = f"No files match {pattern!r} in {where}." + (f"\n{notes}" if notes else "")
        return ToolOutput(text, summary=f"glob {pattern}: no files", display={"count": 0})
    real = os.path.realpath(ctx.workspace)
    prefix = real if real.endswith(os.sep) else real + os.sep
    shown = [_shown_name(path, prefix) for _, _, path in found]
    body = "\n".join(shown) + "\n"
    if total > len(shown):
        body += f"… {total - len(shown)} more not shown (older); narrow the pattern or the path\n"
    if any(path.startswith('"') for path in shown):
        body += f"(note: {NAME_QUOTING_NOTE})\n"
    body += notes
    return ToolOutput(
        body,
        summary=f"glob {pattern}: {total} file{'s' if total != 1 else ''}",
        display={"count": total, "shown": len(shown)},
    )


def _shown_name(path: str, prefix: str) -> str:
    """``display_path`` for an absolute path, by string slicing (a ``Path`` and a ``realpath`` per name were a tenth
    of a broad glob's time); ``prefix`` is the workspace's real path and a separator."""
    if path.startswith(prefix) and len(path) > len(prefix):
        rel = path[len(prefix) :]
        return quote_name(rel if os.sep == "/" else rel.replace(os.sep, "/"))
    return quote_name(path)
