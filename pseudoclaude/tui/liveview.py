"""The live area of a turn: Rich's ``Live``, redrawing only what changed since the last frame.

Rich erases and rewrites every line of the live area on each refresh; while
an answer streams, only the tail's last line and the spinner line change, so
that rewrite is most of what reaches the terminal. ``LiveArea`` keeps the last
frame's rows and writes only the cells that differ (``screen_patch``), also
when a finished block is printed above the area: the block's rows are written
where the tail showed them, and the frame below is patched, not redrawn. A
resize, a print that is not plain rows (a control sequence, a link, no final
newline) or a non-interactive console takes Rich's full redraw.
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
            self.fit_to_width()  # a resize since the caller's check: the rows of the last frame are counted at the new width
            lines = console.render_lines(self._live_render.renderable, console.options, pad=False)[-console.height :]
            shape = self._live_render._shape
            last = self._last
            above = None
            if last and lines and shape is not None and shape[1] == len(last) and self._last_width == console.width and _plain(lines):
                above = _printed_rows(console, renderables)
            if above is not None and last is not None:
                out: list[ConsoleRenderable] = [_Patch(screen_patch.patch(self._painter, last, above + lines, console.width, len(above)))]
            else:
                out = [self._live_render.position_cursor(), *renderables, _Frame(lines)]
            self._live_render._shape = (console.width, len(lines))
            self._last, self._last_width = lines, console.width
            return out


def _printed_rows(console: Console, renderables: list[ConsoleRenderable]) -> Lines | None:
    """The rows ``console.print`` would write for ``renderables`` (each ended by a newline), or None when they are not plain rows."""
    printed = [item for item in renderables if not (isinstance(item, Control) and not item.segment.text)]
    if any(isinstance(item, Control) for item in printed):
        return None
    options = console.options.update(justify=None, overflow=None, height=None, no_wrap=None, markup=None, highlight=None)
    segments = [segment for item in printed for segment in console.render(item, options)]
    if not _plain([segments]):
        return None
    text = [segment.text for segment in segments if segment.text]
    if text and not text[-1].endswith("\n"):
        return None
    return list(Segment.split_and_crop_lines(segments, console.width, pad=False, include_new_lines=False))


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
