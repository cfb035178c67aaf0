"""The live area redrawn by difference shows, frame after frame, what Rich's full redraw shows."""

from __future__ import annotations

import io
import re

from rich.console import Console
from rich.live import Live

from pseudoclaude.agent import events as ev
from pseudoclaude.tui.liveview import LiveArea
from pseudoclaude.tui.render import TurnView, synchronized

ANSWER = (
    "# Plan\n\nA first paragraph that runs long enough to wrap once at this width, with **bold** and `code` in it.\n\n"
    + "".join(f"- item {i} of the list\n" for i in range(6))
    + "\n```python\n"
    + "".join(f"value_{i} = compute({i})\n" for i in range(12))
    + "```\n\nThe end.\n"
)
CSI = re.compile(r"\x1b\[([0-9;?]*)([A-Za-z])")


class Screen:
    """Just enough of a terminal for Rich's output: text, CR, LF, cursor moves, erase line and below, SGR ignored."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.rows: list[list[str]] = [[]]
        self.row = self.col = 0
        self.seen = 0

    def feed(self, output: str) -> None:
        text, self.seen = output[self.seen :], len(output)
        index = 0
        while index < len(text):
            match = CSI.match(text, index)
            if match:
                self._csi(match.group(1), match.group(2))
                index = match.end()
                continue
            char = text[index]
            index += 1
            if char == "\r":
                self.col = 0
            elif char == "\n":
                self.row, self.col = self.row + 1, 0
                self._line()
            else:
                self._line().extend([" "] * (self.col - len(self._line())))
                line = self._line()
                if self.col < len(line):
                    line[self.col] = char
                else:
                    line.append(char)
                self.col += 1

    def _line(self) -> list[str]:
        while len(self.rows) <= self.row:
            self.rows.append([])
        return self.rows[self.row]

    def _csi(self, argument: str, command: str) -> None:
        count = (int(argument) if argument.isdigit() else 1) or 1
        if command == "A":
            self.row = max(0, self.row - count)
        elif command == "B":
            self.row += count
        elif command == "C":
            self.col += count
        elif command == "L":
            self.rows[self.row : self.row] = [[] for _ in range(count)]
            pushed_off, self.rows[-count:] = self.rows[-count:], []
            assert pushed_off == [[]] * count, "lines inserted over text at the bottom of the screen"
            self.col = 0
        elif command == "D":
            self.col = max(0, self.col - count)
        elif command == "K":
            self.rows[self.row : self.row + 1] = [[]] if argument == "2" else [self._line()[: self.col]]
        elif command == "J":
            self._line()[self.col :] = []
            del self.rows[self.row + 1 :]

    def text(self) -> list[str]:
        rows = ["".join(row).rstrip() for row in self.rows]
        while rows and not rows[-1]:
            rows.pop()
        return rows


def events_at(index: int, piece: str) -> list[ev.Event]:
    """The answer's deltas, with a tool call and a notice printed above the live area part way through."""
    if index == 20:
        return [ev.ToolCallStarted("c1", "read_file", {"path": "notes.txt"}), ev.TextDelta(piece)]
    if index == 30:
        return [ev.ToolCallFinished("c1", "read_file", False, "3 lines"), ev.Progress("retry", "Overloaded; retrying in 1.0s", {}), ev.TextDelta(piece)]
    return [ev.TextDelta(piece)]


def console() -> Console:
    return Console(file=io.StringIO(), width=70, height=40, force_terminal=True, color_system="256", get_time=lambda: 0.0)


def test_every_frame_of_the_difference_redraw_matches_a_full_redraw() -> None:
    diff_console, full_console = console(), console()
    diff_view, full_view = TurnView(diff_console, clock=lambda: 0.0), TurnView(full_console, clock=lambda: 0.0)
    diff_screen, full_screen = Screen(70), Screen(70)
    pieces = [ANSWER[i : i + 7] for i in range(0, len(ANSWER), 7)]
    patched = 0
    with LiveArea(diff_view, diff_console) as diff_live, Live(full_view, console=full_console, auto_refresh=False, transient=True) as full_live:
        for index, piece in enumerate(pieces):
            for event in events_at(index, piece):
                diff_view.handle(event)
                full_view.handle(event)
            if index % 2:
                continue
            before = len(diff_console.file.getvalue())
            with synchronized(diff_console):
                diff_live.fit_to_width()
                diff_view.flush()
                diff_live.refresh()
            full_view.flush()
            full_live.refresh()
            patched += "\x1b[2K" not in diff_console.file.getvalue()[before:]
            diff_screen.feed(diff_console.file.getvalue())
            full_screen.feed(full_console.file.getvalue())
            assert diff_screen.text() == full_screen.text(), f"frame {index}"
        diff_view.handle(ev.AssistantMessage(ANSWER))
        full_view.handle(ev.AssistantMessage(ANSWER))
    diff_view.finish()
    full_view.finish()
    diff_screen.feed(diff_console.file.getvalue())
    full_screen.feed(full_console.file.getvalue())
    assert diff_screen.text() == full_screen.text()
    assert patched > 10
    assert "L" in {match.group(2) for match in CSI.finditer(diff_console.file.getvalue())}
    assert len(diff_console.file.getvalue()) < len(full_console.file.getvalue())
