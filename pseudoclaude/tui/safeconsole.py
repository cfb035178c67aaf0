"""The terminal's one Console: only the escape sequences it generates itself reach the screen.

Rich passes text through to the terminal as it is (it drops BEL, BS, VT, FF
and CR, but keeps ESC and the C1 controls), so a model's answer, a command's
output or a file name could carry ``ESC ] 52`` (write the clipboard), ``ESC ]
0`` (retitle the window) or cursor moves. The renderers neutralize the text
they are given (``textsafe.for_terminal``) before layout, so the widths come
out right; ``SafeConsole`` is the net under them: every rendered segment that
is text, not one of Rich's own control segments (the live view's cursor
moves), is neutralized again on its way out, so no code path that forgets,
today's or a later one, can write a raw control sequence.
"""

from __future__ import annotations

from typing import Any, Iterable

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment

from pseudoclaude.textsafe import for_terminal


class SafeConsole(Console):
    """A ``rich.console.Console`` whose text segments carry no control character."""

    def render(self, renderable: RenderableType, options: ConsoleOptions | None = None) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            if segment.control or segment.text.isprintable() or segment.text == "\n":
                yield segment
            else:
                yield Segment(for_terminal(segment.text), segment.style, segment.control)


def safe_console(**options: Any) -> Console:
    """A ``SafeConsole`` with Rich's usual options (``highlight``, ``file``, ``width``, ``record``...)."""
    return SafeConsole(**options)
