"""The model's thinking in the TUI: folded, dim, never in the answer; Ctrl+O unfolds; /effort with completion."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from rich.console import Console

from pseudoclaude.agent import events as ev
from pseudoclaude.agent import AgentStatus
from pseudoclaude.config import Flags, load_settings
from pseudoclaude.tui.input import ReplCompleter
from pseudoclaude.tui.keys import TurnKeys
from pseudoclaude.tui.render import TurnView
from pseudoclaude.tui.repl import Repl
from pseudoclaude.tui.slash import ARGUMENT_CHOICES, dispatch
from pseudoclaude.tui.status import format_status


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def console() -> Console:
    return Console(file=io.StringIO(), width=80, color_system=None)


def text_of(c: Console) -> str:
    return "\n".join(line.rstrip() for line in c.file.getvalue().splitlines())  # type: ignore[attr-defined]


def play(view: TurnView, clock: Clock) -> None:
    view.handle(ev.ThinkingDelta("First I check the tests.\n"))
    clock.now += 12
    view.handle(ev.ThinkingDelta("Then I fix the bug."))
    view.handle(ev.TextDelta("Fixed."))
    view.handle(ev.AssistantMessage("Fixed."))
    view.handle(ev.Stop("end_turn", "Fixed.", 1))
    view.finish()


def test_thinking_prints_as_one_folded_line_before_the_answer() -> None:
    c, clock = console(), Clock()
    play(TurnView(c, clock=clock), clock)
    assert text_of(c).splitlines() == ["✻ Thought for 12s (ctrl+o to expand)", "Fixed."]


def test_expanded_thinking_prints_the_whole_thought_indented() -> None:
    c, clock = console(), Clock()
    play(TurnView(c, clock=clock, show_thinking=True), clock)
    assert text_of(c).splitlines() == ["✻ Thought for 12s", "  First I check the tests.", "  Then I fix the bug.", "Fixed."]


def test_the_live_area_shows_the_thinking_timer_until_the_answer_starts() -> None:
    c, clock = console(), Clock()
    view = TurnView(c, clock=clock)
    view.handle(ev.ThinkingDelta("hmm"))
    clock.now += 3
    live = console()
    live.print(view)
    assert "✻ Thinking… 3s" in text_of(live) and "hmm" not in text_of(live)
    view.thinking.toggle()
    live = console()
    live.print(view)
    assert "hmm" in text_of(live)
    assert text_of(c) == ""


def test_ctrl_o_toggles_thinking_during_a_turn() -> None:
    toggled: list[str] = []
    keys = TurnKeys(queue=lambda _: None, queued=lambda: (), on_interrupt=lambda: None, on_toggle_thinking=lambda: toggled.append("o"))
    keys.handle("c-o")
    assert toggled == ["o"] and keys.buffer == ""


def test_effort_completes_its_values_after_the_command() -> None:
    completer = ReplCompleter([("/effort", "effort")], Path("."), ARGUMENT_CHOICES)
    found = [c.text for c in completer.get_completions(Document("/effort m"), CompleteEvent())]
    assert found == ["medium", "max"]


def make_repl(tmp_path: Path) -> Repl:
    settings = load_settings(tmp_path, Flags(model="claude-opus-4-6"), environ={"ANTHROPIC_API_KEY": "k", "PSEUDOCLAUDE_HOME": str(tmp_path / "home")})
    return Repl(settings, Console(file=io.StringIO(), width=120, color_system=None))


def test_effort_command_sets_shows_and_clears_the_effort(tmp_path: Path) -> None:
    repl = make_repl(tmp_path)
    asyncio.run(dispatch(repl, "/effort high"))
    assert repl.settings.effort == "high" and repl.status.effort == "high"
    assert "effort high" in format_status(repl.status)
    asyncio.run(dispatch(repl, "/effort sideways"))
    assert "unknown effort 'sideways'" in repl.console.file.getvalue()  # type: ignore[attr-defined]
    asyncio.run(dispatch(repl, "/effort off"))
    assert repl.settings.effort is None and "effort" not in format_status(repl.status)


def test_effort_on_a_model_without_reasoning_says_so_in_one_line(tmp_path: Path) -> None:
    repl = make_repl(tmp_path)
    asyncio.run(dispatch(repl, "/model claude-3-5-haiku-latest"))
    asyncio.run(dispatch(repl, "/effort low"))
    assert "does not take an effort setting" in repl.console.file.getvalue()  # type: ignore[attr-defined]


def test_status_line_shows_the_effort() -> None:
    status = AgentStatus(model="claude-opus-4-7", context_tokens=0, context_window=200_000, auto_threshold=160_000, effort="max")
    assert format_status(status).startswith("claude-opus-4-7 · effort max · ")
