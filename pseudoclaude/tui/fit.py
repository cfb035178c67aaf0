"""Lines that fit the width they are drawn at: shortened paths and indents that hold.

A tool block is printed at whatever width the terminal has, so a path in its
title or a saved-output line is shortened when it is drawn, not when it is
built: ``Fitted`` asks for its text with the width Rich gives it. A long
line under a block's ``⎿`` must wrap under its own indent, not at column 0,
so ``Indented`` wraps its body at the width less the indent and starts each
continuation with spaces (and never pads a line with trailing blanks: every
byte written costs, ``bench/bench_render.py``).
"""

from __future__ import annotations

from typing import Callable

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.segment import Segment
from rich.text import Text

ELLIPSIS = "…"


def shorten_middle(text: str, width: int) -> str:
    """``text`` cut in the middle to ``width`` cells; a path (no blanks) keeps its file name (``/home/…/shop/cart.py``)."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    head, slash, name = text.rpartition("/")
    if slash and cell_len(name) + 2 <= width and not any(char.isspace() for char in text):  # a path, not a command line
        keep = width - cell_len(name) - 2  # room left of "…/name"
        return f"{_prefix(head, keep)}{ELLIPSIS}/{name}"
    left = width // 2
    right = width - 1 - left
    return _prefix(text, left) + ELLIPSIS + _suffix(text, right)


def _prefix(text: str, width: int) -> str:
    out, used = "", 0
    for char in text:
        used += cell_len(char)
        if used > width:
            break
        out += char
    return out


def _suffix(text: str, width: int) -> str:
    return _prefix(text[::-1], width)[::-1]


class Fitted:
    """A line built for the width it is drawn at (``build(width)``)."""

    def __init__(self, build: Callable[[int], Text]) -> None:
        self.build = build

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.build(options.max_width)

    def plain(self, width: int = 10_000) -> str:
        return self.build(width).plain


class Indented:
    """``body`` drawn after ``prefix``, its wrapped lines under the body's first cell, not at column 0."""

    def __init__(self, prefix: str, body: RenderableType, *, indent: int | None = None) -> None:
        self.prefix = prefix
        self.body = body
        self.indent = cell_len(prefix) if indent is None else indent

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(1, options.max_width - self.indent)
        lines = console.render_lines(self.body, options.update_width(width), pad=False)
        for number, line in enumerate(lines):
            yield Segment(self.prefix if number == 0 else " " * self.indent)
            yield from line
            yield Segment.line()
