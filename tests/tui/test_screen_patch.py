"""``screen_patch.patch`` turns the rows on screen into the new rows, whatever changed between them."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console
from rich.segment import Segment
from rich.style import Style

from pseudoclaude.tui.screen_patch import Painter, patch
from tests.tui.test_liveview import Screen

BOLD, CYAN = Style(bold=True), Style(color="cyan")


def rows(*texts: str) -> list[list[Segment]]:
    return [[Segment(text[:3], BOLD), Segment(text[3:], CYAN)] if text else [] for text in texts]


def shown(old: list[str], new: list[str], printed: int = 0) -> list[str]:
    """The screen after ``old`` is drawn (cursor on its last row) and patched into ``new``; the cursor must end after the last row's last cell."""
    screen = Screen(40)
    screen.feed("\n".join(old))
    codes = patch(Painter(Console(file=io.StringIO(), force_terminal=True, color_system="256")), rows(*old), rows(*new), 40, printed)
    screen.feed("\n".join(old) + codes)
    assert (screen.row, screen.col) == (len(screen.text()) - 1, len(new[-1])), "a reflowing terminal counts the rows from the cursor's"
    return screen.text()


@pytest.mark.parametrize(
    "old, new",
    [
        (["spinner 1", "status"], ["spinner 2", "status"]),
        (["a long line of text", "⠋ Working 1s"], ["a long line", "⠋ Working 2s"]),
        (["tail", "more tail", "⠋ Working"], ["⠙ Working"]),
        (["tail", "⠋ Working"], ["tail and more", "next line", "another", "⠙ Working 1s"]),
        (["same", "rows"], ["same", "rows"]),
        (["x", "", "y"], ["", "x", "y", "z"]),
    ],
)
def test_the_patched_screen_shows_the_new_rows(old: list[str], new: list[str]) -> None:
    assert shown(old, new) == [row.rstrip() for row in new]


def test_rows_printed_above_are_written_whole_even_where_the_screen_already_shows_them() -> None:
    codes = patch(Painter(Console(file=io.StringIO(), force_terminal=True, color_system="256")), rows("done para", "⠋ W"), rows("done para", "⠙ W"), 40, 1)
    assert "done para" in re.sub(r"\x1b\[[0-9;]*m", "", codes)
    assert shown(["done para", "⠋ W"], ["done para", "⠙ W"], printed=1) == ["done para", "⠙ W"]


def test_a_style_is_set_once_per_run_and_reset_once() -> None:
    painter = Painter(Console(file=io.StringIO(), force_terminal=True, color_system="256"))
    line = [Segment("a", CYAN), Segment("b", CYAN), Segment("c", Style(color="red")), Segment("d")]
    assert painter.paint(painter.cells(line)) == "\x1b[36mab\x1b[31mc\x1b[0md"
