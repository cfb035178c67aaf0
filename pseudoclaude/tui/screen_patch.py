"""The fewest bytes that turn the rows on screen into new rows: cell by cell, each style change said once.

The live area sits at the bottom of the transcript, the cursor on its last
row. ``patch`` compares what is on screen (``old``, from the live area's top
row down) with what should be (``new``: the blocks printed above the live area
followed by the live area's new frame) and writes only the cells that differ:
a spinner turning is one character and the token count a few digits, and a
finished paragraph that the tail already showed as it will be printed costs
nothing when it moves to the scrollback. Rich's own output resets the style
after every segment (``ESC[36m…ESC[0m`` per token of a code line); here a
style is set when it changes and reset once at the end of a run.

The rows are text that Rich rendered through the console (``SafeConsole``
neutralized every control character in it), so writing them as raw output
cannot smuggle an escape sequence from the model. The cursor ends where
Rich's own redraw leaves it, after the last cell of the last row: a terminal
that reflows on resize keeps the cursor on the row its column falls in, and
the live area counts its rows from there (``LiveArea.fit_to_width``); left
mid-row, a narrower terminal would put it on the first half of a wrapped
row and the next redraw would leave a row of the old frame behind.
"""

from __future__ import annotations

from typing import Callable, Sequence

from rich.cells import get_character_cell_size
from rich.console import COLOR_SYSTEMS, Console
from rich.segment import Segment
from rich.style import Style

Row = list[Segment]
Cell = tuple[str, str]
"""A character (``""`` for the right half of a wide one) and the SGR parameters it is drawn with."""

INSERT_ABOVE = 3
"""How many of the live area's last rows may be kept by inserting lines above them."""
MERGE_GAP = 4
"""Unchanged cells between two changes that are rewritten rather than skipped (a cursor move costs about as much)."""


class Painter:
    """Turns rows of segments into cells, and runs of cells into text with the console's colour codes."""

    def __init__(self, console: Console) -> None:
        name = console.color_system
        self._system = COLOR_SYSTEMS.get(name) if name else None
        self._no_color = console.no_color
        self._codes: dict[Style, str] = {}

    def codes(self, style: Style | None) -> str:
        """The SGR parameters of ``style`` on this console ("" for none)."""
        if style is None or self._system is None:
            return ""
        known = self._codes.get(style)
        if known is None:
            shown = style.without_color if self._no_color else style
            rendered = shown.clear_meta_and_links().render("x", color_system=self._system)
            known = rendered[2 : rendered.index("m")] if rendered != "x" else ""
            self._codes[style] = known
        return known

    def cells(self, row: Row) -> list[Cell]:
        """The row's cells, without the blanks at its end that show nothing."""
        out: list[Cell] = []
        blank_at = 0
        for text, style, _control in row:
            codes = self.codes(style)
            visible_blank = style is not None and _shows_when_blank(style)
            for char in text:
                width = get_character_cell_size(char)
                if width == 0:
                    if out:
                        out[-1] = (out[-1][0] + char, out[-1][1])
                    continue
                out.append((char, codes))
                if width == 2:
                    out.append(("", codes))
                if char != " " or visible_blank:
                    blank_at = len(out)
        del out[blank_at:]
        return out

    def paint(self, cells: Sequence[Cell]) -> str:
        """The cells as text, a style set only where it changes, reset at the end."""
        out: list[str] = []
        current = ""
        for char, codes in cells:
            if codes != current:
                out.append(_change(current, codes))
                current = codes
            out.append(char)
        if current:
            out.append("\x1b[0m")
        return "".join(out)


def _change(was: str, now: str) -> str:
    """The SGR sequence from ``was`` to ``now``: without a reset when ``now`` sets again everything ``was`` set (one colour to another)."""
    if not now:
        return "\x1b[0m"
    if not was or _features(was) <= _features(now):
        return f"\x1b[{now}m"
    return f"\x1b[0;{now}m"


def _features(codes: str) -> set[str]:
    """What SGR parameters set: "fg", "bg", or an attribute's number."""
    found: set[str] = set()
    parts = codes.split(";")
    index = 0
    while index < len(parts):
        part = parts[index]
        if part in ("38", "48"):
            found.add("fg" if part == "38" else "bg")
            index += 3 if parts[index + 1 : index + 2] == ["5"] else 5
            continue
        number = int(part) if part.isdigit() else -1
        found.add("fg" if 30 <= number <= 39 or 90 <= number <= 97 else "bg" if 40 <= number <= 49 or 100 <= number <= 107 else part)
        index += 1
    return found


def _shows_when_blank(style: Style) -> bool:
    return (style.bgcolor is not None and not style.bgcolor.is_default) or bool(style.underline or style.reverse or style.strike)


class _Cursor:
    """Where the cursor is, relative to the live area's top row; ``column`` None when unknown (after a write to the last column)."""

    def __init__(self, row: int, width: int) -> None:
        self.row = row
        self.column: int | None = None
        self.width = width

    def vertical(self, row: int) -> str:
        moves = f"\x1b[{self.row - row}A" if row < self.row else f"\x1b[{row - self.row}B" if row > self.row else ""
        self.row = row
        return moves

    def to(self, row: int, column: int) -> str:
        moves = self.vertical(row)
        if column >= self.width and self.column is None:
            return moves
        if self.column != column:
            home = "\r" + (f"\x1b[{column}C" if column else "")
            if self.column is not None and column > self.column:
                moves += f"\x1b[{column - self.column}C"
            elif self.column is not None and self.column - column < 4 and column:
                moves += f"\x1b[{self.column - column}D"
            else:
                moves += home
        self.column = column
        return moves

    def wrote(self, cells: int) -> None:
        assert self.column is not None
        self.column += cells
        if self.column >= self.width:
            self.column = None


def patch(painter: Painter, old: list[Row], new: list[Row], width: int, printed: int = 0) -> str:
    """What turns ``old`` (on screen, the cursor on its last row) into ``new`` (the cursor left on its last row).

    Rows are compared in place; when the area grows, also with the new rows
    inserted above its last few (the spinner and the footer move down as the
    tail grows: inserting lines keeps them instead of rewriting them), and the
    shorter output wins. The first ``printed`` rows of ``new`` leave the live
    area for the scrollback: they are written whole, in one piece each (what
    the tail showed of them was written a few cells at a time), so the
    transcript's bytes hold every finished line as it reads.
    """
    memo: dict[int, list[Cell]] = {}

    def cells(row: Row) -> list[Cell]:
        known = memo.get(id(row))
        if known is None:
            known = memo[id(row)] = painter.cells(row)
        return known

    best = _aligned(painter, cells, old, new, _Cursor(len(old) - 1, width), printed)
    for kept in range(1, min(len(old), INSERT_ABOVE) + 1) if len(new) > len(old) else ():
        added = len(new) - len(old)
        cursor = _Cursor(len(new) - 1, width)
        room = "\n" * added + cursor.vertical(len(old) - kept) + f"\x1b[{added}L"
        shifted = old[: len(old) - kept] + [[]] * added + old[len(old) - kept :]
        candidate = room + _aligned(painter, cells, shifted, new, cursor, printed)
        if len(candidate) < len(best):
            best = candidate
    return best


def _aligned(painter: Painter, cells: Callable[[Row], list[Cell]], old: list[Row], new: list[Row], cursor: _Cursor, printed: int) -> str:
    """Row ``i`` of ``old`` patched into row ``i`` of ``new``; rows added below, or erased."""
    out: list[str] = []
    for index in range(min(len(old), len(new))):
        if index < printed or old[index] != new[index]:
            out.append(_row(painter, cursor, index, cells(old[index]), cells(new[index]), whole=index < printed))
    if len(new) > len(old):
        out.append(cursor.vertical(len(old) - 1))
        for row in new[len(old) :]:
            added = cells(row)
            out.append("\n" + painter.paint(added))
            cursor.row, cursor.column = cursor.row + 1, 0
            cursor.wrote(len(added))
    elif len(new) < len(old):
        out.append(cursor.to(len(new), 0) + "\x1b[J" + cursor.vertical(len(new) - 1))
    out.append(cursor.to(len(new) - 1, min(Segment.get_line_length(new[-1]), cursor.width)))
    return "".join(out)


def _row(painter: Painter, cursor: _Cursor, row: int, old: list[Cell], new: list[Cell], *, whole: bool = False) -> str:
    """Rewrite the runs of cells of one row that differ (close runs as one; all of it when ``whole``), erasing what the old row had beyond the new."""
    out: list[str] = []
    spans = [(0, max(len(old), len(new)))] if whole and (old or new) else _spans(old, new)
    for start, end in spans:
        while 0 < start < len(new) and new[start][0] == "":
            start -= 1
        while end < len(new) and new[end][0] == "":
            end += 1
        out.append(cursor.to(row, start))
        written = new[start:end]
        out.append(painter.paint(written))
        cursor.wrote(len(written))
        if end > len(new):
            out.append("\x1b[K")
    return "".join(out)


def _spans(old: list[Cell], new: list[Cell]) -> list[tuple[int, int]]:
    """The column ranges where the rows differ; a range past the end of ``new`` means erase."""
    spans: list[tuple[int, int]] = []
    for column in range(max(len(old), len(new))):
        was = old[column] if column < len(old) else None
        now = new[column] if column < len(new) else None
        if was == now:
            continue
        if spans and column - spans[-1][1] <= MERGE_GAP:
            spans[-1] = (spans[-1][0], column + 1)
        else:
            spans.append((column, column + 1))
    return spans
