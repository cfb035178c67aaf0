"""What streaming an answer costs the terminal: bytes written per byte of the answer's text (issue 16: under 5; was about 60).

A 10 KB markdown answer (headings, paragraphs that wrap, lists, code blocks)
is streamed through the REPL's renderer as the REPL drives it: 12-character
deltas, one tick every 80 ms at 400 characters a second (a redraw per 32
characters), a simulated clock so the spinner turns and the count is the same
every run. The bytes are counted at the console's file, and the same output
replayed on a screen must show the answer as a plain print of it does.
"""

from __future__ import annotations

from rich.console import Console

from pseudoclaude.agent import events as ev
from pseudoclaude.tui.liveview import LiveArea
from pseudoclaude.tui.render import TurnView, synchronized
from pseudoclaude.tui.safeconsole import safe_console
from tests.tui.test_liveview import Screen

TICK_S = 0.08
CHARS_PER_TICK = 32
DELTA_CHARS = 12


class CountingSink:
    """A terminal that keeps what it is sent."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return len(text)

    def flush(self) -> None:
        pass

    def getvalue(self) -> str:
        return "".join(self.parts)


def answer(size: int) -> str:
    parts: list[str] = []
    step = 0
    while sum(map(len, parts)) < size:
        step += 1
        parts.append(f"## Step {step}\n")
        parts.append(
            f"This paragraph explains step {step} with *emphasis*, **bold** and `inline code`; it runs long "
            "enough to wrap on a normal terminal, as real answers do when they explain a change.\n"
        )
        parts.append("- first point about the change\n- second point, with `code`\n- third point\n")
        parts.append(f"```python\ndef step_{step}(value: int) -> int:\n    total = value * {step}\n    return total + 1\n```\n")
    text = "\n".join(parts)
    return text[: text.rindex("\n## Step", 0, size)] + "\n"


def console(sink: CountingSink, now: list[float]) -> Console:
    return safe_console(file=sink, width=120, height=40, force_terminal=True, color_system="256", get_time=lambda: now[0])


def stream(text: str) -> str:
    """Everything the terminal receives while ``text`` streams in and its turn ends."""
    sink, now = CountingSink(), [0.0]
    out = console(sink, now)
    view = TurnView(out, clock=lambda: now[0])
    pieces = [text[i : i + DELTA_CHARS] for i in range(0, len(text), DELTA_CHARS)]
    per_tick = max(1, round(CHARS_PER_TICK / DELTA_CHARS))
    with LiveArea(view, out) as live:
        for index, piece in enumerate(pieces):
            view.handle(ev.TextDelta(piece))
            if index % per_tick == per_tick - 1:
                now[0] += TICK_S
                with synchronized(out):
                    live.fit_to_width()
                    view.flush()
                    live.refresh()
        view.handle(ev.AssistantMessage(text))
    view.finish()
    return sink.getvalue()


def printed_once(text: str) -> list[str]:
    sink = CountingSink()
    view = TurnView(console(sink, [0.0]))
    view.handle(ev.TextDelta(text))
    view.handle(ev.AssistantMessage(text))
    screen = Screen(120)
    screen.feed(sink.getvalue())
    return screen.text()


def test_a_streamed_answer_costs_under_five_terminal_bytes_per_byte_of_text() -> None:
    text = answer(10_000)
    written = stream(text)
    ratio = len(written.encode()) / len(text.encode())
    assert ratio < 5, f"{ratio:.2f} terminal bytes per byte of text"


def test_the_counted_output_shows_the_answer_as_printing_it_once_does() -> None:
    text = answer(3_000)
    screen = Screen(120)
    screen.feed(stream(text))
    assert screen.text() == printed_once(text)
    assert "Working" not in "\n".join(screen.text())
