"""What the pinned block carries from outside the conversation: the files' current text, changed instructions, the plan.

A summary says what the files were; after it the model would re-read the
ones it was working on before its next edit. Claude Code saves that round
trip by re-attaching the most recently read files; so does this module:
the most recently touched files (``MAX_FILES``, newest first, the edited
ones before those only read, which share at most a quarter of the total;
the pinned block offers only files edited or read in its last rounds, and
its budget less what the user's messages took, ``pinned.py``) are read from
disk at compaction time, as ``read_file`` numbers them, within a budget that
scales with the window (``FileBudget.for_window``: about 3,200 tokens at 32k,
20,000 at 200k, and at most a quarter of that total per file,
5,000 at most). A file too long for its share keeps its head and tail around
a marker that gives the ``read_file`` offset of what was left out. A file
the kept tail already shows (its last touch there is a complete read) is not
attached twice.

``compact`` never touches the disk or the tools: what the workspace holds
comes through a ``PinnedSource`` the agent implements (it resolves paths
inside the workspace, skips what is not a regular text file, and says
whether the session is in plan mode and whether the instruction files
changed since the session started).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Mapping, Protocol, Sequence

from pseudoclaude.llm import Message

CHARS_PER_TOKEN = 3.5
MAX_FILES = 5
FILES_WINDOW_FRACTION = 0.10
FILES_MAX_TOKENS = 20_000
FILE_MAX_TOKENS = 5_000
FILE_MIN_TOKENS = 150
PLAN_MAX_FRACTION = 0.5
READ_ONLY_FRACTION = 0.25

FILES_HEADER = (
    "Current text of the files most recently worked on, read from disk at this compaction "
    "(line numbers as read_file shows them; newer than anything the summary says about them):"
)
INSTRUCTIONS_HEADER = (
    "The instruction files changed on disk since this session started. Their current text follows; it replaces the version loaded into the system prompt:"
)
PLAN_OPEN = '<plan note="the latest plan written in plan mode, verbatim">\n'
PLAN_CLOSE = "\n</plan>"

_READ_RANGE = re.compile(r"lines (\d+)-(\d+) of (\d+)")
_NUMBERED = re.compile(r"\s*\d+\t")

TextCounter = Callable[[str], int]


@dataclass(frozen=True)
class FileText:
    """A file's current text as the model would read it: numbered lines, ``cut`` when its middle was left out."""

    numbered: str
    lines: int
    cut: bool = False


class PinnedSource(Protocol):
    """What the workspace tells the pinned block at compaction time (the agent implements it).

    ``current_file`` returns ``None`` for a path that no longer exists, is
    not a regular file, looks binary or lies outside the workspace; a longer
    file comes as its head and tail within ``max_chars``.
    ``changed_instructions`` is "" while the instruction files are as the
    session loaded them. ``planning`` says whether the model is now in plan
    mode (an answer it ends a turn with is then the plan).
    """

    def current_file(self, path: str, max_chars: int) -> FileText | None: ...

    def changed_instructions(self) -> str: ...

    def planning(self) -> bool: ...


@dataclass(frozen=True)
class FileBudget:
    """How many tokens re-attached files may take in all and each (see the module docstring)."""

    total: int
    per_file: int

    @classmethod
    def for_window(cls, window: int) -> FileBudget:
        total = min(FILES_MAX_TOKENS, int(window * FILES_WINDOW_FRACTION))
        return cls(total, min(FILE_MAX_TOKENS, max(FILE_MIN_TOKENS, total // 2)))


def files_section(
    source: PinnedSource,
    recent: Sequence[str],
    budget: FileBudget,
    count: TextCounter,
    visible: frozenset[str] = frozenset(),
    edited: frozenset[str] = frozenset(),
) -> str:
    """The current text of up to ``MAX_FILES`` of ``recent`` (newest first) within ``budget``; "" when none fits.

    Edited files come first: the model is changing them and needs their
    exact text. Files it only read share at most ``READ_ONLY_FRACTION`` of the total (it reads on
    past them; the summary and the file list say where they are).
    """
    parts: list[str] = []
    used = count(FILES_HEADER)
    read_only = 0
    for path in [p for p in recent if p in edited] + [p for p in recent if p not in edited]:
        if len(parts) >= MAX_FILES or budget.total - used < FILE_MIN_TOKENS:
            break
        share = min(budget.per_file, budget.total - used)
        if path not in edited:
            share = min(share, int(budget.total * READ_ONLY_FRACTION) - read_only)
        if path in visible or share < FILE_MIN_TOKENS:
            continue
        part = _attached(source, path, share, count)
        if part is None:
            continue
        cost = count(part)
        parts.append(part)
        used += cost
        read_only += 0 if path in edited else cost
    return "\n".join([FILES_HEADER, *parts]) if parts else ""


def _attached(source: PinnedSource, path: str, tokens: int, count: TextCounter) -> str | None:
    """One file within ``tokens``: asked by characters, then asked again smaller until the count agrees."""
    max_chars = int(tokens * CHARS_PER_TOKEN)
    for _ in range(4):
        text = source.current_file(path, max_chars)
        if text is None:
            return None
        note = f", middle cut: read_file {path} for the rest" if text.cut else ""
        part = f'<file path="{path}" lines="{text.lines}"{note}>\n{text.numbered.rstrip()}\n</file>'
        cost = count(part)
        if cost <= tokens:
            return part
        max_chars = int(max_chars * tokens / cost * 0.9)
        if max_chars < FILE_MIN_TOKENS:
            return None
    return None


def instructions_section(source: PinnedSource, max_tokens: int, count: TextCounter) -> str:
    """The changed instruction files' current text (head and tail within ``max_tokens``), or ""."""
    text = source.changed_instructions()
    if not text:
        return ""
    return f"{INSTRUCTIONS_HEADER}\n{cut_middle(text, max_tokens, count)}"


def plan_section(plan: str, max_tokens: int, count: TextCounter) -> str:
    return f"{PLAN_OPEN}{cut_middle(plan, max_tokens, count)}{PLAN_CLOSE}" if plan else ""


def cut_middle(text: str, max_tokens: int, count: TextCounter) -> str:
    """``text``, or its head and tail around a marker when it alone would take more than ``max_tokens``."""
    if count(text) <= max_tokens:
        return text
    keep = int(max_tokens * CHARS_PER_TOKEN / 2)
    return f"{text[:keep]}\n[... {len(text) - 2 * keep} characters cut ...]\n{text[-keep:]}"


def shown_in(kept: Sequence[Message], arguments: Mapping[str, str], readers: frozenset[str]) -> frozenset[str]:
    """Paths whose last touch in ``kept`` is a complete page of numbered lines from a reader tool.

    ``arguments``: each file tool's path argument; ``readers``: which of them read.
    """
    calls: dict[str, tuple[str, str]] = {}
    last: dict[str, bool] = {}
    for message in kept:
        for call in message.tool_calls:
            try:
                value = call.parsed_arguments().get(arguments.get(call.name, ""))
            except ValueError:
                continue
            if isinstance(value, str):
                calls[call.id] = (value, call.name)
        result = message.tool_result
        if result is not None and result.call_id in calls:
            path, tool = calls.pop(result.call_id)
            content = result.content
            page = bool(_NUMBERED.match(content)) and bool(_READ_RANGE.search(content[-200:]))
            last[path] = tool in readers and not result.is_error and page
    return frozenset(path for path, shown in last.items() if shown)
