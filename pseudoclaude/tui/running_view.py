"""A running command's own clock in the live area, and the key that sends it to the background.

The agent lists its foreground commands with the moment each started
(``Agent.background.running``: after its approval, when the process began), so
the time shown is the command's, not the turn's. The line under the
command's spinner counts whole seconds: its text changes once a second, and
the live area, which redraws by difference, writes those few digits then.
It is one row that never wraps (cut with an ellipsis), so a resize changes
how many rows the live area takes by nothing.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable, Sequence

from rich.text import Text

if TYPE_CHECKING:
    from pseudoclaude.tools import RunningCommand

BACKGROUND_HINT = "ctrl+b to run in background"


def elapsed_text(seconds: float) -> str:
    """``12s``, ``1m 05s``, ``1h 02m``: whole seconds, then minutes, as a clock reads."""
    whole = max(0, int(seconds))
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m {whole % 60:02d}s"
    return f"{whole // 3600}h {whole // 60 % 60:02d}m"


class CommandClock:
    """The elapsed-time line of each running command, by tool call id (``TurnView``'s ``elapsed``)."""

    def __init__(self, running: Callable[[], Sequence[RunningCommand]], clock: Callable[[], float] = time.monotonic) -> None:
        self.running = running
        self.clock = clock

    def lines(self, call_id: str) -> list[Text]:
        for command in self.running():
            if command.call_id == call_id:
                elapsed = elapsed_text(self.clock() - command.started)
                return [Text(f"  ⎿ Running… {elapsed} · {BACKGROUND_HINT}", style="dim", no_wrap=True, overflow="ellipsis")]
        return []
