"""The live area of a turn: Rich's ``Live``, redrawing only what changed since the last frame.

Rich erases and rewrites every line of the live area on each refresh; while
an answer streams, only the tail's last line and the spinner line change, so
that rewrite is most of what reaches the terminal. ``LiveArea`` keeps the last
frame's rows and writes only the cells that differ (``screen_patch``), also
when a finished block is printed above the area: the block's rows are written
where the tail showed them, and the frame below is patched, not redrawn. A
resize, a print that is not plain rows (a control sequence, a link, no final
newline) or a non-interactive console takes Rich's full redraw.

One redraw uses one width: the terminal's width is read once, everything (the
rows it erases, the printed blocks, the frame) is laid out at it, and when the
terminal was resized meanwhile the redraw is laid out again at the new width
before anything is written. Reading the width afresh at each step let a resize
in the middle of a redraw count the old frame's rows at one width and write
the new ones at another: a row of the old frame stayed in the transcript (a
duplicated partial line) or a row above it was erased.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, ConsoleRenderable, RenderResult
from rich.control import Control
from rich.live import Live
from rich.segment import ControlType, Segment

from pseudoclaude.tui import screen_patch

if TYPE_CHECKING:
    from pseudoclaude.tui.render import TurnView

Lines = list[list[Segment]]
RELAYOUTS = 3
"""How many times a redraw is laid out again when the terminal is resized while it is laid out."""


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
        self._painter = screen_patch.Painter(console)

    def fit_to_width(self, width: int | None = None) -> None:
        """After a resize, tell Rich how many rows the last frame takes now; call before anything is printed or redrawn.

        A terminal that reflows on resize re-wraps the live lines, so the last
        frame no longer takes the rows Rich counted; erasing that many would
        leave its upper rows in the transcript (a duplicated line, a split word).
        """
        now = self.console.width if width is None else width
        drawn_at, lengths = self.view.frame
        if lengths and self._live_render._shape is not None and drawn_at != now:
            self._live_render._shape = (now, self.view.rows_at(now))
            self.view.frame = (now, [])
            self._last = None

    def process_renderables(self, renderables: list[ConsoleRenderable]) -> list[ConsoleRenderable]:
        console = self.console
        if not console.is_interactive or not self.is_started:
            self._last = None
            return super().process_renderables(renderables)
        with self._lock:
            before = (self.view.frame, self._live_render._shape, self._last)
            for _attempt in range(RELAYOUTS):
                width = console.width
                out = self._redraw(renderables, width)
                if console.width == width:
                    break
                self.view.frame, self._live_render._shape, self._last = before  # resized while laying out: again, at the new width
            return out

    def _redraw(self, renderables: list[ConsoleRenderable], width: int) -> list[ConsoleRenderable]:
        """What turns the screen into the printed rows and the new frame, all laid out at ``width``."""
        console = self.console
        self.fit_to_width(width)  # a resize since the caller's check: the rows of the last frame are counted at the new width
        options = console.options.update_width(width)
        lines = console.render_lines(self._live_render.renderable, options, pad=False)[-console.height :]
        shape = self._live_render._shape
        last = self._last
        printed = _printed_rows(console, renderables, width)
        if printed is not None and last and lines and shape is not None and shape[1] == len(last) and self._last_width == width and _plain(lines):
            out: list[ConsoleRenderable] = [_Patch(screen_patch.patch(self._painter, last, printed + lines, width, len(printed)))]
        elif printed is not None:
            out = [self._live_render.position_cursor(), _Frame(printed + lines)]
        else:
            out = [self._live_render.position_cursor(), *renderables, _Frame(lines)]
        self._live_render._shape = (width, len(lines))
        self._last, self._last_width = lines, width
        return out


def _printed_rows(console: Console, renderables: list[ConsoleRenderable], width: int) -> Lines | None:
    """The rows ``console.print`` would write for ``renderables`` at ``width`` (each ended by a newline), or None when they are not plain rows."""
    printed = [item for item in renderables if not (isinstance(item, Control) and not item.segment.text)]
    if any(isinstance(item, Control) for item in printed):
        return None
    options = console.options.update(width=width, justify=None, overflow=None, height=None, no_wrap=None, markup=None, highlight=None)
    segments = [segment for item in printed for segment in console.render(item, options)]
    if not _plain([segments]):
        return None
    text = [segment.text for segment in segments if segment.text]
    if text and not text[-1].endswith("\n"):
        return None
    return list(Segment.split_and_crop_lines(segments, width, pad=False, include_new_lines=False))


def _plain(lines: Lines) -> bool:
    """Text and styles only: no control segment and no link (those need Rich's own output)."""
    return not any(segment.control or (segment.style is not None and segment.style.link) for line in lines for segment in line)


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
    """Output already computed (cursor moves, colour codes, text), written as one control segment."""

    def __init__(self, codes: str) -> None:
        self.codes = codes

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.codes:
            yield escape(self.codes)
