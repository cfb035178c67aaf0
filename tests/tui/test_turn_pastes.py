"""A long paste typed during a turn folds in the footer and is queued whole (no terminal needed)."""

from __future__ import annotations

from rich.console import Console

from pseudoclaude.tui.keys import TurnKeys
from pseudoclaude.tui.pastes import PasteStore

FORTY = "\n".join(f"pasted line {i}" for i in range(1, 41))


def make(store: PasteStore) -> tuple[TurnKeys, list[str]]:
    queue: list[str] = []
    keys = TurnKeys(queue=queue.append, queued=lambda: queue, on_interrupt=lambda: None, pastes=store)
    return keys, queue


def footer_text(keys: TurnKeys) -> str:
    console = Console(width=80, record=True, force_terminal=False)
    for line in keys.footer():
        console.print(line)
    return console.export_text()


def test_a_long_paste_shows_folded_and_is_queued_unfolded() -> None:
    keys, queue = make(PasteStore())
    keys.handle("<bracketed-paste>", FORTY.replace("\n", "\r"))
    assert "[Pasted text #1 +40 lines]" in footer_text(keys)
    assert "pasted line 2" not in footer_text(keys)
    for char in " fix":
        keys.handle(char)
    keys.handle("c-m")
    assert queue == [FORTY + " fix"]
    assert keys.take_sent() == []  # still queued: the footer lists it, folded
    assert footer_text(keys).count("\n") == 1
    assert "queued: [Pasted text #1 +40 lines] fix" in footer_text(keys)
    queue.clear()
    assert keys.take_sent() == ["[Pasted text #1 +40 lines] fix"]


def test_backspace_after_the_placeholder_deletes_the_paste() -> None:
    keys, queue = make(PasteStore())
    for char in "see ":
        keys.handle(char)
    keys.handle("<bracketed-paste>", FORTY)
    keys.handle("backspace")
    assert keys.buffer == "see "
    keys.handle("c-m")
    assert queue == ["see"]


def test_a_short_paste_is_typed_in_as_it_is() -> None:
    keys, queue = make(PasteStore())
    keys.handle("<bracketed-paste>", "two\nlines")
    keys.handle("c-m")
    assert queue == ["two\nlines"]
