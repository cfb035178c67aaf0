"""The two grep engines: ripgrep when available, Python ``re`` otherwise, with the same results.

ripgrep (``grep_rg``: its engine, on a thread of its own) runs on all its
threads and gives ``FileHits`` in the order its threads finish files; the
Python walk yields them in path order
(``walk.walk_files``); the caller orders what it shows (``path_key``: rg's
``--sort path`` order, which cost ripgrep its threads). Both apply the same rules: hidden files
searched, ``.git`` and symlinks skipped, ``.gitignore`` respected (also when
not in a git repository), the workspace's ``.pseudoclaudeignore`` too (ripgrep:
``--ignore-file``; see ``rg_location``), binary files (a NUL byte) skipped, FIFOs, devices and sockets skipped
(never opened in a way that could block), one line at a
time (``\\n`` ends a line), and the ``glob`` filter with ripgrep's ``--glob``
meaning: without ``!`` it selects files (even ignored ones), with ``!`` it
excludes; an explicitly named file is always searched.

Memory stays bounded: a file over ``WHOLE_FILE_BYTES`` is searched line by
line, and a line over ``LONG_LINE_BYTES`` in overlapping blocks and shown as
a placeholder with its size, as ripgrep's oversized records are. A file over
``MAX_FILE_BYTES`` found by the walk is skipped by both engines (ripgrep:
``--max-filesize``), since ripgrep holds a whole line in memory and a
one-line file of gigabytes would be all of it; the grep tool refuses one named
as its path (``--max-filesize`` does not apply to those). ripgrep itself runs
capped and watched (``rg_limits``): a hostile
``.gitignore`` makes it fail, and the Python engine answers instead.

Files a ``Read(...)`` deny rule forbids are never searched (``Query.guard``):
the Python walk does not open them, ripgrep is told to exclude them and its
results are filtered by the guard all the same (see ``read_guard``).

Each ``FileHits`` carries, per file, the matching lines and (with context) the
lines around them; the caller caps what it shows.
"""

from __future__ import annotations

import os
import re
import warnings
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Iterator, Literal, NamedTuple

import pathspec

from pseudoclaude.tools.base import ToolError
from pseudoclaude.tools.files import open_if_regular
from pseudoclaude.tools.read_guard import GuardedRoot
from pseudoclaude.tools.walk import Notice, Override, gitignore_verdict, ignore_file, walk_files

Mode = Literal["content", "files_with_matches", "count"]
MAX_FILE_BYTES = 64 * 1024 * 1024
"""Larger files are not searched: not source code, and a one-line file that size costs ripgrep its size in memory."""
MAX_FILE_LINES = 50_000
"""Lines kept of one file in content mode; past them the search stops counting (300,000 lines of ripgrep's JSON
cost 6 s to read and held 300,000 objects, for an answer that shows 300)."""
WHOLE_FILE_BYTES = 4 * 1024 * 1024  # split into lines, a file costs ~12x its size in str objects: 4 MB peaks near 50 MB
LONG_LINE_BYTES = 1024 * 1024
_OVERLAP_CHARS = 4096
_BLOCK_BYTES = 1024 * 1024
_GLOB_META = re.compile(r"[*?\[\]{}\\]")


class Line(NamedTuple):
    """One line of a file's result (a tuple: a frozen dataclass's ``__init__`` per line showed in a broad search)."""

    number: int
    text: str
    is_match: bool


@dataclass(slots=True)
class FileHits:
    path: str
    """Absolute and normalized; a string, since a ``Path`` per file was a third of a broad search's own time."""
    count: int
    lines: list[tuple[int, str, bool]] = field(default_factory=list)
    """``(number, text, is_match)``: a ``Line`` from the Python engine, a plain tuple from ripgrep's."""
    cut: bool = False
    """Its lines stop at ``MAX_FILE_LINES`` (and its count is of those): the search stops after this file."""


@dataclass(frozen=True)
class Query:
    pattern: str
    root: Path
    mode: Mode
    context: int = 0
    case_insensitive: bool = False
    glob: str | None = None
    ignore_base: Path | None = None
    guard: GuardedRoot | None = None


class RegexError(ToolError):
    """The pattern does not compile."""


class EngineFailed(Exception):
    """ripgrep failed without producing results (bad flag, regex it cannot parse...): use the fallback."""


def compile_pattern(query: Query, extra_flags: int = 0) -> re.Pattern[str]:
    flags = (re.IGNORECASE if query.case_insensitive else 0) | extra_flags
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return re.compile(query.pattern, flags)
    except re.error as error:
        raise RegexError(f"invalid regular expression {query.pattern!r}: {error}") from None


def make_override(glob: str | None) -> Override | None:
    """ripgrep's ``--glob`` as a walk override (gitignore-style glob, relative to the search root)."""
    if not glob:
        return None
    exclude = glob.startswith("!")
    spec = pathspec.GitIgnoreSpec.from_lines([glob[1:] if exclude else glob])

    def verdict(rel: str, is_dir: bool) -> bool | None:
        matched = gitignore_verdict(spec, rel + ("/" if is_dir else "")) is True
        if exclude:
            return False if matched else None
        if matched:
            return True
        return None if is_dir else False

    return verdict


def python_search(query: Query, notice: Notice | None = None) -> Iterator[FileHits]:
    """Search with Python ``re`` (the fallback engine); ``notice`` hears of ignore files it could not read."""
    regex = compile_pattern(query)
    prefilter = None if re.search(r"\\[AZz]", query.pattern) else compile_pattern(query, re.MULTILINE)
    if query.root.is_file():
        files: Iterator[tuple[str, str]] = iter([(str(query.root), query.root.name)])
    else:
        files = walk_files(
            query.root,
            boundary=Path(query.root.anchor),
            override=make_override(query.glob),
            ignore_base=query.ignore_base,
            notice=notice,
        )
    for path, _ in files:
        if query.guard is not None and query.guard.denied(path) is not None:
            continue
        hits = _search_file(path, regex, prefilter, query)
        if hits is not None:
            yield hits


def _search_file(path: str, regex: re.Pattern[str], prefilter: re.Pattern[str] | None, query: Query) -> FileHits | None:
    try:
        f = open_if_regular(path)
        if f is None:
            return None
        with f:
            size = os.fstat(f.fileno()).st_size
            if size > MAX_FILE_BYTES:
                return None
            if size > WHOLE_FILE_BYTES:
                if prefilter is not None and not _may_match(f, prefilter):
                    return None
                f.seek(0)
                return _search_stream(path, f, regex, query)
            data = f.read()
    except OSError:
        return None
    if b"\x00" in data:
        return None
    text = data.decode("utf-8", errors="replace")
    found = prefilter.search(text) if prefilter is not None else None
    if prefilter is not None and found is None:
        return None
    if found is not None and query.mode == "files_with_matches" and regex.search(_line_at(text, found.start())):
        return FileHits(path, 1)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    matches = [i for i, line in enumerate(lines) if regex.search(line)]
    if not matches:
        return None
    hits = FileHits(path, len(matches))
    if query.mode == "content":
        wanted: set[int] = set()
        for i in matches:
            wanted.update(range(max(0, i - query.context), min(len(lines), i + query.context + 1)))
        matched = set(matches)
        hits.lines = [Line(i + 1, lines[i], i in matched) for i in sorted(wanted)[:MAX_FILE_LINES]]
        if len(wanted) > MAX_FILE_LINES:
            hits.cut, hits.count = True, sum(is_match for _, _, is_match in hits.lines)
    return hits


def _may_match(f: BinaryIO, prefilter: re.Pattern[str]) -> bool:
    """Whether a large file can match at all: blocks of whole lines, one search each (False for a binary file).

    Searching line by line costs ~1 s per 30 MB; most large files (logs,
    data) do not match, and this says so at the speed of ``re`` over blocks.
    A line too long to complete a block ends the check (True: the streaming
    search handles such lines).
    """
    while block := f.read(_BLOCK_BYTES):
        if not block.endswith(b"\n"):
            rest = f.readline(LONG_LINE_BYTES)
            if len(rest) == LONG_LINE_BYTES and not rest.endswith(b"\n"):
                return True
            block += rest
        if b"\x00" in block:
            return False
        if prefilter.search(block.decode("utf-8", errors="replace")):
            return True
    return False


def _line_at(text: str, index: int) -> str:
    """The line of ``text`` holding ``index``: when it matches on its own, a file listing needs no more."""
    start = text.rfind("\n", 0, index) + 1
    end = text.find("\n", index)
    return text[start : end if end != -1 else len(text)]


def _search_stream(path: str, f: BinaryIO, regex: re.Pattern[str], query: Query) -> FileHits | None:
    """A large file, line by line in bounded memory; a line over ``LONG_LINE_BYTES`` is searched in overlapping blocks."""
    hits = FileHits(path, 0)
    before: deque[Line] = deque(maxlen=query.context)
    after = 0
    for number, (text, matched) in enumerate(_stream_lines(f, regex), start=1):
        if text is None:
            return None
        if matched:
            hits.count += 1
            if query.mode == "content":
                hits.lines.extend(before)
                before.clear()
                hits.lines.append(Line(number, text, True))
                after = query.context
        elif after and query.mode == "content":
            hits.lines.append(Line(number, text, False))
            after -= 1
        elif query.context:
            before.append(Line(number, text, False))
            continue
        else:
            continue
        if len(hits.lines) >= MAX_FILE_LINES:
            hits.cut = True
            break
    return hits if hits.count else None


def _stream_lines(f: BinaryIO, regex: re.Pattern[str]) -> Iterator[tuple[str | None, bool]]:
    """``(text, matched)`` per line; text None at a NUL byte (a binary file: stop)."""
    while raw := f.readline(LONG_LINE_BYTES):
        if b"\x00" in raw:
            yield None, False
            return
        if raw.endswith(b"\n") or len(raw) < LONG_LINE_BYTES:
            text = raw.decode("utf-8", errors="replace").removesuffix("\n")
            yield text, regex.search(text) is not None
            continue
        size, matched, carry = len(raw), False, ""
        while raw:
            block = carry + raw.decode("utf-8", errors="replace").removesuffix("\n")
            matched = matched or regex.search(block) is not None
            carry = block[-_OVERLAP_CHARS:]
            if raw.endswith(b"\n"):
                break
            raw = f.readline(LONG_LINE_BYTES)
            if b"\x00" in raw:
                yield None, False
                return
            size += len(raw)
        yield f"… [line of about {size:,} bytes, too long to show]", matched


RG_WALK_FLAGS = (
    "--no-config", "--hidden", "--no-require-git", "--no-ignore-dot", "--no-ignore-exclude", "--no-ignore-global", "--no-messages",
)  # fmt: skip


def rg_location(root: Path, ignore_base: Path | None) -> tuple[Path, str, list[str]]:
    """ripgrep's working folder, the target to name, and the ``--ignore-file`` arguments.

    ripgrep matches an ``--ignore-file``'s patterns (and ``--glob``) against
    paths relative to its working folder, so with a ``.pseudoclaudeignore``
    it runs in the folder that holds it and names the searched folder
    relative to it (``rebase_glob`` keeps the tool's glob relative to that).
    """
    if root.is_file():
        return root.parent, root.name, []
    ignore = ignore_file(root, ignore_base)
    if ignore is None:
        return root, ".", []
    return ignore.parent, root.relative_to(ignore.parent).as_posix(), ["--ignore-file", str(ignore)]


def rebase_glob(glob: str, target: str) -> str:
    """``glob`` (relative to the searched folder) relative to ripgrep's working folder, ``target`` being that folder."""
    negated, body = glob.startswith("!"), glob.removeprefix("!")
    if target == "." or "/" not in body.rstrip("/"):
        return glob
    return ("!" if negated else "") + _GLOB_META.sub(r"\\\g<0>", target) + "/" + body.lstrip("/")


def path_key(path: str) -> str:
    """The sort key of ``rg --sort path`` (and of the walk): folder by folder, so ``a/b`` comes before ``a-c``."""
    return path.replace(os.sep, "\x00")
