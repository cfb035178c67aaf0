"""The working set's files: every path read, edited, searched or listed, grouped by directory in the pinned block.

The list is compressed, never capped: a path the session touched stays in
the block after every compaction. One line per directory names its entries
by their base name with what was done to each::

    - src/shop/: cart.py (edited; read 1-160 of 200), tax.py (read 1-80 of 90), models/ (listed)

so sixty paths in a handful of directories take the room nine full lines
took. Two parts, each most recent last (directories by their newest touch,
entries within one likewise): first what was edited or appears in the last
failure (the model is changing it), then what was only read, searched or
listed. When even that is over its budget the detail goes in steps: line
ranges and search patterns first (``brief``: one line per directory names
its entries by what was done, ``- src/shop/: edited cart.py; read tax.py,
util.py; listed models/``, about a third of one line per path), then the oldest directories
of the second part become a count (``- lib/: 14 entries read or searched;
recall path=lib/... names them``), never a silent drop.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import Callable, Literal, Sequence

Detail = Literal["full", "brief"]
TextCounter = Callable[[str], int]

EDITED_HEADING = "Files edited or in the last failure (by directory, most recent last):"
OTHER_HEADING = "Files read, searched or listed (by directory, most recent last):"
MAX_PATTERNS = 3
PATTERN_CHARS = 60


@dataclass
class Entry:
    """What the session did to one path: read ranges (of ``total`` lines), edited, listed, searched for ``patterns``."""

    ranges: list[tuple[int, int]] = field(default_factory=list)
    edited: bool = False
    total: int | None = None
    listed: bool = False
    patterns: list[str] = field(default_factory=list)
    read: bool = False

    def searched(self, pattern: str) -> None:
        pattern = pattern[:PATTERN_CHARS]
        if pattern in self.patterns:
            self.patterns.remove(pattern)
        self.patterns = [*self.patterns, pattern][-MAX_PATTERNS:]


def normalized(path: str) -> str:
    """``./src//a.py`` -> ``src/a.py``; "." for the workspace itself; absolute paths stay absolute."""
    clean = posixpath.normpath(path.strip() or ".")
    return clean


def render_files(entries: dict[str, Entry], priority: frozenset[str], max_tokens: int, count: TextCounter) -> str:
    """The grouped list within ``max_tokens`` at the most detail that fits (see the module docstring); "" when empty.

    ``entries`` is ordered most recently touched last; ``priority`` names the
    paths that belong in the first part besides the edited ones (the last failure's).
    """
    if not entries:
        return ""
    first = [p for p, e in entries.items() if e.edited or p in priority]
    rest = [p for p in entries if p not in set(first)]
    text = ""
    for detail in ("full", "brief"):
        text = _render(entries, first, rest, detail, collapsed=0)
        if count(text) <= max_tokens:
            return text
    groups = len(_groups(rest))
    for collapsed in range(1, groups + 1):
        text = _render(entries, first, rest, "brief", collapsed)
        if count(text) <= max_tokens:
            return text
    return text  # every path or count of the second part kept: the block says what it holds, over budget or not


def _render(entries: dict[str, Entry], first: Sequence[str], rest: Sequence[str], detail: Detail, collapsed: int) -> str:
    lines: list[str] = []
    if first:
        lines.append(EDITED_HEADING)
        lines += [_line(folder, names, entries, detail) for folder, names in _groups(first)]
    if rest:
        lines.append(OTHER_HEADING)
        for index, (folder, names) in enumerate(_groups(rest)):
            if index < collapsed:
                shown = folder if folder.endswith("/") else f"{folder}/"
                lines.append(f"- {shown}: {len(names)} entr{'y' if len(names) == 1 else 'ies'} read, searched or listed (recall path={shown}<name> finds them)")
            else:
                lines.append(_line(folder, names, entries, detail))
    return "\n".join(lines)


def _groups(paths: Sequence[str]) -> list[tuple[str, list[str]]]:
    """(directory, its paths) in order of each directory's newest touch; paths within most recent last."""
    groups: dict[str, list[str]] = {}
    for path in paths:
        folder = posixpath.dirname(path) if path != "." else ""
        members = groups.pop(folder, [])
        groups[folder] = [*members, path]
    return list(groups.items())


def _line(folder: str, paths: Sequence[str], entries: dict[str, Entry], detail: Detail) -> str:
    shown = f"{folder}/" if folder and not folder.endswith("/") else (folder or "./")
    if detail == "full":
        return f"- {shown}: " + ", ".join(_entry(path, entries[path], detail) for path in paths)
    verbs: dict[str, list[str]] = {"edited": [], "read": [], "searched": [], "listed": []}
    for path in paths:
        entry, name = entries[path], _name(path, entries[path])
        if entry.edited:
            verbs["edited"].append(name)
        elif entry.read:
            verbs["read"].append(name)
        if entry.patterns:
            verbs["searched"].append(name)
        if entry.listed:
            verbs["listed"].append(name)
    return f"- {shown}: " + "; ".join(f"{verb} {', '.join(names)}" for verb, names in verbs.items() if names)


def _name(path: str, entry: Entry) -> str:
    name = posixpath.basename(path) if path != "." else "."
    return name + "/" if entry.listed and not (entry.read or entry.edited) and name != "." else name


def _entry(path: str, entry: Entry, detail: Detail) -> str:
    name = _name(path, entry)
    what: list[str] = []
    if entry.edited:
        what.append("edited")
    if entry.ranges and detail == "full":
        total = f" of {entry.total}" if entry.total is not None else ""
        what.append("read " + ", ".join(f"{a}-{b}" for a, b in _merge(entry.ranges)) + total)
    elif entry.read:
        what.append("read")
    if entry.patterns:
        what.append("searched " + ", ".join(repr(p) for p in entry.patterns) if detail == "full" else "searched")
    if entry.listed:
        what.append("listed")
    return f"{name} ({'; '.join(what)})" if what else name


def _merge(ranges: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for first, last in sorted(ranges):
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return merged
