"""A running command's clock line: its own seconds, one row under its spinner, whatever the width."""

from __future__ import annotations

import io

from rich.console import Console

from pseudoclaude.agent import events as ev
from pseudoclaude.tools import RunningCommand
from pseudoclaude.tui.render import TurnView
from pseudoclaude.tui.running_view import BACKGROUND_HINT, CommandClock, elapsed_text


def test_elapsed_time_reads_as_a_clock() -> None:
    assert [elapsed_text(s) for s in (0, 0.9, 12.4, 59.99, 65, 3599, 3720)] == ["0s", "0s", "12s", "59s", "1m 05s", "59m 59s", "1h 02m"]


def test_the_clock_follows_the_command_not_the_turn() -> None:
    now = [100.0]
    running = [RunningCommand("c1", "sleep 30", started=88.0)]
    clock = CommandClock(lambda: running, clock=lambda: now[0])
    assert [line.plain for line in clock.lines("c1")] == [f"  ⎿ Running… 12s · {BACKGROUND_HINT}"]
    now[0] = 100.9
    assert "12s" in clock.lines("c1")[0].plain  # whole seconds: the text changes once a second
    assert clock.lines("c2") == []  # a call that is not a running command (a read, one waiting for approval) shows none
    running.clear()
    assert clock.lines("c1") == []


def frame(width: int, clock: CommandClock) -> list[str]:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    view = TurnView(console, elapsed=clock.lines, clock=lambda: 0.0)
    view.handle(ev.ToolCallStarted("c1", "run_command", {"command": "sleep 30"}))
    console.print(view)
    return [line.rstrip() for line in console.file.getvalue().splitlines()]  # type: ignore[attr-defined]


def test_the_line_sits_under_the_commands_spinner_and_stays_one_row_when_narrow() -> None:
    clock = CommandClock(lambda: [RunningCommand("c1", "sleep 30", started=0.0)], clock=lambda: 3.2)
    wide = frame(80, clock)
    title = next(i for i, line in enumerate(wide) if "run_command(sleep 30)" in line)
    assert wide[title + 1] == f"  ⎿ Running… 3s · {BACKGROUND_HINT}"
    narrow = frame(24, clock)
    row = next(line for line in narrow if "Running…" in line)
    assert row.endswith("…") and len(row) <= 24 and not any(BACKGROUND_HINT[-10:] in line for line in narrow)
