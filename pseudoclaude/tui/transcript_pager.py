"""The transcript view: every message and tool block of the session, expanded, in a full-screen pager.

Claude Code's transcript mode shows the whole conversation with each tool's
output; here Ctrl-\\ at the prompt opens it (``input.py``). The pages are
drawn by the resume renderer (``transcript_view.message_view``, so a block
looks as it did live) with each call's whole result under it, rendered once
to terminal lines at the window's width; the pager only scrolls them. It runs
on the alternate screen, so closing it (q, Esc, Ctrl-C) leaves the scrollback
and the prompt as they were.
"""

from __future__ import annotations

import io
from typing import Sequence

from rich.console import Console, RenderableType

from pseudoclaude.llm import Message
from pseudoclaude.tui.transcript_view import expanded_messages

HELP = " Transcript · ↑/↓ PgUp/PgDn Home/End scroll · q or Esc closes "


def transcript_lines(conversation: Sequence[Message], width: int) -> list[str]:
    """The conversation, every block expanded, as lines of terminal text (colours as SGR sequences) ``width`` wide."""
    return render_lines(expanded_messages(conversation, width=width), width)


def render_lines(views: Sequence[RenderableType], width: int) -> list[str]:
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=True, color_system="256", highlight=False, legacy_windows=False)
    for view in views:
        console.print(view)
    return out.getvalue().rstrip("\n").split("\n")


class Pager:
    """Scrolls ``lines`` in a window of ``rows`` rows; starts at the end (the newest block)."""

    def __init__(self, lines: list[str], rows: int) -> None:
        self.lines = lines
        self.rows = max(1, rows)
        self.top = max(0, len(lines) - self.rows)

    def scroll(self, by: int) -> None:
        self.top = min(max(0, self.top + by), max(0, len(self.lines) - self.rows))

    def page(self) -> str:
        return "\n".join(self.lines[self.top : self.top + self.rows])

    def position(self) -> str:
        end = min(len(self.lines), self.top + self.rows)
        return f" lines {self.top + 1}-{end} of {len(self.lines)} "


async def show_pager(conversation: Sequence[Message]) -> None:
    """Open the transcript full-screen until q, Esc or Ctrl-C (call it inside ``in_terminal``)."""
    from prompt_toolkit.application import Application
    from prompt_toolkit.formatted_text import ANSI, FormattedText
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
    from prompt_toolkit.layout import HSplit, Layout, Window
    from prompt_toolkit.layout.controls import FormattedTextControl
    from prompt_toolkit.output.defaults import create_output

    size = create_output().get_size()
    rows = size.rows - 1
    pager = Pager(transcript_lines(conversation, size.columns), rows)
    keys = KeyBindings()
    moves = {"up": -1, "down": 1, "pageup": -rows, "pagedown": rows, "c-b": -rows, "c-f": rows, "space": rows, "k": -1, "j": 1}
    for key, by in moves.items():
        keys.add(key)(lambda event, by=by: pager.scroll(by))
    keys.add("home")(lambda event: pager.scroll(-len(pager.lines)))
    keys.add("end")(lambda event: pager.scroll(len(pager.lines)))

    @keys.add("q")
    @keys.add("escape", eager=True)
    @keys.add("c-c")
    @keys.add("c-\\")
    def _close(event: KeyPressEvent) -> None:
        event.app.exit()

    body = Window(FormattedTextControl(lambda: ANSI(pager.page())), wrap_lines=False)
    bar = Window(FormattedTextControl(lambda: FormattedText([("reverse", HELP + pager.position())])), height=1)
    app: Application[None] = Application(layout=Layout(HSplit([body, bar])), key_bindings=keys, full_screen=True)
    await app.run_async()
