"""Nothing untrusted writes a raw control sequence to the terminal; our own colours still do.

The console is a real colour terminal (``force_terminal``), so the output
holds the SGR colour sequences Rich generates; with those removed, no ESC,
BEL or C1 control may remain, and the hostile sequences show spelled out.
"""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console
from rich.text import Text

from pseudoclaude.agent import events as ev
from pseudoclaude.tui import safe_console
from pseudoclaude.tui.render import TurnView

OSC52 = "\x1b]52;c;cm0gLXJmIH4=\x07"
TITLE = "\x1b]0;pwned\x07"
CSI8 = "\x9b2J"
_SGR = re.compile(r"\x1b\[[0-9;]*m")


def terminal(safe: bool = True) -> Console:
    options = dict(file=io.StringIO(), width=100, force_terminal=True, color_system="truecolor", highlight=False)
    return safe_console(**options) if safe else Console(**options)  # type: ignore[arg-type]


def written(c: Console) -> str:
    return c.file.getvalue()  # type: ignore[attr-defined,no-any-return]


def assert_only_our_colours(out: str) -> None:
    assert _SGR.search(out), "the test console must be a colour terminal"
    rest = _SGR.sub("", out)
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", rest), repr(rest)


HOSTILE_TURN = [
    ev.TextDelta(f"Here {TITLE}is the answer {OSC52}\n\n"),
    ev.TextDelta(f"```\ncode {OSC52}\n```\n\nand a {CSI8} tail"),
    ev.AssistantMessage("..."),
    ev.ToolCallStarted("c1", "run_command", {"command": f"printf '{OSC52}'"}),
    ev.ToolCallFinished("c1", "run_command", False, f"ran {TITLE}", {"tail": f"out {OSC52}\nline\x1b[2K two\n", "output_lines": 2}),
    ev.ToolCallStarted("c2", "edit_file", {"path": f"a{TITLE}.txt"}),
    ev.ToolCallFinished("c2", "edit_file", False, "Edited", {"diff": f"--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new {OSC52}\n"}),
    ev.ToolCallStarted("c3", "todo_write", {}),
    ev.ToolCallFinished("c3", "todo_write", False, "todos", {"todos": [{"content": f"do {TITLE}", "status": "pending"}]}),
    ev.Progress("warning", f"hook said {OSC52}"),
    ev.ErrorEvent("server_error", f"body {TITLE}"),
    ev.Stop("max_turns", "", 1, f"stopped {OSC52}"),
]


@pytest.mark.parametrize("safe", [True, False], ids=["safe-console", "plain-console"])
def test_a_hostile_turn_shows_its_escapes_spelled_out(safe: bool) -> None:
    c = terminal(safe)
    view = TurnView(c)
    for event in HOSTILE_TURN:
        view.handle(event)
    view.finish()
    out = written(c)
    assert_only_our_colours(out)
    plain = _SGR.sub("", out)
    assert "^[]52;c;cm0gLXJmIH4=^G" in plain and "^[]0;pwned^G" in plain and "M-^[2J" in plain


def test_the_live_tail_is_neutralized_too() -> None:
    c = terminal()
    view = TurnView(c)
    view.handle(ev.TextDelta(f"streaming {OSC52} still"))
    view.handle(ev.ToolCallStarted("c1", "read_file", {"path": TITLE}))
    c.print(view)
    assert_only_our_colours(written(c))


def test_the_safe_console_catches_what_a_renderer_forgot() -> None:
    c = terminal()
    c.print(Text(f"raw {OSC52} text", style="bold red"))
    c.print(f"[green]markup[/] {TITLE} {CSI8}")
    c.print(Text("bidi \u202egnp.exe"))
    out = written(c)
    assert_only_our_colours(out)
    assert "\u202e" not in out and "<U+202E>" in out


def test_a_plain_console_would_let_them_through() -> None:
    c = terminal(safe=False)
    c.print(Text(f"raw {OSC52} text"))
    assert "\x1b]52;" in written(c)
