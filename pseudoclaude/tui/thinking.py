"""The model's reasoning in the TUI: a dim, folded block, never mixed into the answer.

While thinking streams, the live area shows "✻ Thinking… 4s" (and, expanded,
the last lines of the thought). When the answer, a tool call or the end of
the turn arrives, the fold is printed once: "✻ Thought for 12s (ctrl+o to
expand)", or, expanded, that line and the whole thought, dim and indented.
Ctrl+O during a turn toggles expansion; the REPL keeps the choice for the next turns.
"""

from __future__ import annotations

import time
from typing import Callable

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text

LIVE_TAIL_LINES = 6
STYLE = "dim italic"


class ThinkingFold:
    """One turn's reasoning blocks: collects ``ThinkingDelta`` text, prints each block folded when it ends."""

    def __init__(self, *, expanded: bool = False, clock: Callable[[], float] = time.monotonic) -> None:
        self.expanded = expanded
        self.clock = clock
        self.text = ""
        self.started: float | None = None

    @property
    def active(self) -> bool:
        return self.started is not None

    def feed(self, text: str) -> None:
        if self.started is None:
            self.started = self.clock()
        self.text += text

    def toggle(self) -> None:
        self.expanded = not self.expanded

    def close(self) -> RenderableType | None:
        """The finished block to print (None when nothing was thinking); the fold is ready for the next one."""
        if self.started is None:
            return None
        seconds = max(1, round(self.clock() - self.started))
        head = Text(f"✻ Thought for {seconds}s", style=STYLE)
        text, self.text, self.started = self.text.strip(), "", None
        if not self.expanded or not text:
            return head + Text("" if not text else " (ctrl+o to expand)", style="dim")
        return Group(head, Padding(Text(text, style=STYLE), (0, 0, 0, 2)))

    def live(self) -> RenderableType | None:
        """What the live area shows while thinking streams."""
        if self.started is None:
            return None
        seconds = round(self.clock() - self.started)
        head = Text(f"✻ Thinking… {seconds}s", style=STYLE) + Text("" if self.expanded else " (ctrl+o to expand)", style="dim")
        if not self.expanded:
            return head
        tail = "\n".join(self.text.strip().splitlines()[-LIVE_TAIL_LINES:])
        return Group(head, Padding(Text(tail, style=STYLE), (0, 0, 0, 2)))
