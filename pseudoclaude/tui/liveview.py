"""The live area of a turn: Rich's ``Live``, redrawing only what changed since the last frame.

Rich erases and rewrites every line of the live area on each refresh; while
an answer streams, only the tail's last line and the spinner line change, so
that rewrite is most of what reaches the terminal. ``LiveArea`` keeps the last
frame's lines and, on a plain refresh, moves the cursor to the first cell that
differs, erases from there and writes the rest. Anything printed above the
area (a finished block), a resize, or a non-interactive console takes Rich's
full redraw.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from rich.console import Console, ConsoleOptions, ConsoleRenderable, RenderResult
from rich.control import Control
from rich.live import Live
from rich.segment import ControlType, Segment

if TYPE_CHECKING:
    from pseudoclaude.tui.render import TurnView

Lines = list[list[Segment]]


def escape(code: str) -> Segment:
    """One of our own cursor sequences, as a control segment (``SafeConsole`` passes those through)."""
    return Segment(code, None, [(ControlType.HOME,)])


class LiveArea(Live):
    """A transient ``Live`` for a ``TurnView`` that redraws by difference."""

    def __init__(self, view: TurnView, console: Console) -> None:
        super().__init__(view, console=console, auto_refresh=False, transient=True, redirect_stdout=False, redirect_stderr=False)
        self.view = view
        self._last: Lines | None = None
        self._last_width = 0

    def fit_to_width(self) -> None:
        """After a resize, tell Rich how many rows the last frame takes now; call before anything is printed or redrawn.

        A terminal that reflows on resize re-wraps the live lines, so the last
        frame no longer takes the rows Rich counted; erasing that many would
        leave its upper rows in the transcript (a duplicated line, a split word).
        """
        width, lengths = self.view.frame
        if lengths and self._live_render._shape is not None and width != self.console.width:
            self._live_render._shape = (self.console.width, self.view.rows_at(self.console.width))
            self.view.frame = (self.console.width, [])
            self._last = None

    def process_renderables(self, renderables: list[ConsoleRenderable]) -> list[ConsoleRenderable]:
        console = self.console
        if not console.is_interactive or not self.is_started:
            self._last = None
            return super().process_renderables(renderables)
        with self._lock:
            lines = console.render_lines(self._live_render.renderable, console.options, pad=False)[-console.height :]
            shape = self._live_render._shape
            plain_refresh = all(isinstance(item, Control) and not item.segment.text for item in renderables)
            last = self._last
            if plain_refresh and last and shape is not None and shape[1] == len(last) and self._last_width == console.width and lines:
                out: list[ConsoleRenderable] = [_Patch(last, lines)]
            else:
                out = [self._live_render.position_cursor(), *renderables, _Frame(lines)]
            self._live_render._shape = (console.width, len(lines))
            self._last, self._last_width = lines, console.width
            return out


class _Frame:
    """Lines, newline-separated, the cursor left at the end of the last (as Rich's live render does)."""

    def __init__(self, lines: Lines) -> None:
        self.lines = lines

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for index, line in enumerate(self.lines):
            if index:
                yield Segment.line()
            yield from line


class _Patch:
    """The cursor moves and segments that turn the frame ``old`` on screen into ``new``."""

    def __init__(self, old: Lines, new: Lines) -> None:
        self.old = old
        self.new = new

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        old, new = self.old, self.new
        row = next((i for i in range(min(len(old), len(new))) if old[i] != new[i]), min(len(old), len(new)))
        if row == len(old) == len(new):
            return
        if row >= len(new):
            row = len(new) - 1
        if row >= len(old):
            yield escape("\x1b[J")
            yield from _lines_after(new, row)
            return
        yield escape("\r")
        if len(old) - 1 - row:
            yield escape(f"\x1b[{len(old) - 1 - row}A")
        column, rest = _common_prefix(old[row], new[row]) if row < len(new) else (0, [])
        if column:
            yield escape(f"\x1b[{column}C")
        yield escape("\x1b[J")
        yield from rest
        yield from _lines_after(new, row + 1)


def _lines_after(lines: Lines, start: int) -> Iterable[Segment]:
    for line in lines[start:]:
        yield Segment.line()
        yield from line


def _common_prefix(old: list[Segment], new: list[Segment]) -> tuple[int, list[Segment]]:
    """The cells ``old`` and ``new`` share at their start, and what of ``new`` comes after them."""
    column = index = 0
    while index < len(old) and index < len(new) and old[index] == new[index]:
        column += old[index].cell_length
        index += 1
    if index < len(old) and index < len(new):
        was, now = old[index], new[index]
        if was.style == now.style and not was.control and not now.control and now.text.startswith(was.text):
            return column + was.cell_length, [Segment(now.text[len(was.text) :], now.style), *new[index + 1 :]]
    return column, new[index:]
