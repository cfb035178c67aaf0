"""An arrow-key picker with type-to-search, below the prompt (``/resume``, ``/rewind``).

prompt-toolkit draws it inline (not full screen) and erases it when done, so
the transcript above stays as it was. Typing filters the rows (every word
must appear, case ignored, in the row's search text); Up/Down (or Ctrl-P /
Ctrl-N) move, PageUp/PageDown jump, Enter picks, Esc / Ctrl-C / Ctrl-D cancel.
Every label is untrusted text (titles, prompts) and goes through
``for_terminal``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Sequence

from pseudoclaude.textsafe import for_terminal

if TYPE_CHECKING:
    from prompt_toolkit.formatted_text import StyleAndTextTuples

    from pseudoclaude.session import SessionInfo

VISIBLE_ROWS = 10


@dataclass(frozen=True)
class PickItem:
    """One row: ``label`` in bold, ``detail`` dim after it, ``note`` on a second dim line; ``search`` is what typing matches."""

    label: str
    detail: str = ""
    note: str = ""
    search: str = ""

    def haystack(self) -> str:
        return (self.search or f"{self.label} {self.detail} {self.note}").lower()


def matching(items: Sequence[PickItem], query: str) -> list[int]:
    """Indices of the items whose search text holds every word of ``query``."""
    words = query.lower().split()
    return [index for index, item in enumerate(items) if all(word in item.haystack() for word in words)]


def rows(items: Sequence[PickItem], shown: Sequence[int], selected: int, width: int, visible: int = VISIBLE_ROWS) -> StyleAndTextTuples:
    """The visible window of ``shown`` around ``selected`` as formatted text (pure: tested without a terminal)."""
    out: StyleAndTextTuples = []
    if not shown:
        return [("class:picker.none", "  no match\n")]
    start = min(max(0, selected - visible // 2), max(0, len(shown) - visible))
    for position in range(start, min(len(shown), start + visible)):
        item = items[shown[position]]
        here = position == selected
        marker, style = ("❯ ", "class:picker.selected") if here else ("  ", "")
        label = _fit(for_terminal(item.label), max(10, width - 4))
        out.append((style + " bold" if style else "bold", marker + label))
        detail = _fit(for_terminal(item.detail), max(0, width - 4 - len(label) - 3))
        if detail:
            out.append(("class:picker.detail", "  " + detail))
        out.append(("", "\n"))
        if item.note:
            out.append(("class:picker.detail", "    " + _fit(for_terminal(item.note), max(10, width - 6)) + "\n"))
    hidden = len(shown) - min(len(shown), visible)
    if hidden:
        out.append(("class:picker.detail", f"  ({position + 1} of {len(shown)}; ↑↓ to scroll)\n"))
    return out


def _fit(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


async def pick(items: Sequence[PickItem], *, title: str) -> int | None:
    """The index of the item the user picks, or None when they cancel."""
    from prompt_toolkit.application import Application
    from prompt_toolkit.buffer import Buffer
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
    from prompt_toolkit.layout import HSplit, Layout, Window
    from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
    from prompt_toolkit.layout.processors import BeforeInput
    from prompt_toolkit.styles import Style

    query = Buffer()
    state = {"selected": 0}

    def shown() -> list[int]:
        return matching(items, query.text)

    def on_change(_: Buffer) -> None:
        state["selected"] = 0

    query.on_text_changed += on_change
    bindings = KeyBindings()

    def move(by: int) -> None:
        count = len(shown())
        state["selected"] = max(0, min(count - 1, state["selected"] + by)) if count else 0

    @bindings.add("up")
    @bindings.add("c-p")
    def _up(event: KeyPressEvent) -> None:
        move(-1)

    @bindings.add("down")
    @bindings.add("c-n")
    def _down(event: KeyPressEvent) -> None:
        move(1)

    @bindings.add("pageup")
    def _page_up(event: KeyPressEvent) -> None:
        move(-VISIBLE_ROWS)

    @bindings.add("pagedown")
    def _page_down(event: KeyPressEvent) -> None:
        move(VISIBLE_ROWS)

    @bindings.add("enter")
    def _pick(event: KeyPressEvent) -> None:
        found = shown()
        event.app.exit(result=found[state["selected"]] if found else None)

    @bindings.add("escape", eager=True)
    @bindings.add("c-c")
    @bindings.add("c-d")
    def _cancel(event: KeyPressEvent) -> None:
        event.app.exit(result=None)

    def body() -> StyleAndTextTuples:
        from prompt_toolkit.application import get_app

        return rows(items, shown(), state["selected"], get_app().output.get_size().columns)

    layout = Layout(
        HSplit(
            [
                Window(FormattedTextControl([("bold", for_terminal(title))]), height=1),
                Window(BufferControl(query, input_processors=[BeforeInput("Search: ", style="class:picker.detail")]), height=1),
                Window(FormattedTextControl(body), dont_extend_height=True),
                Window(FormattedTextControl([("class:picker.detail", "↑↓ move · type to search · Enter picks · Esc cancels")]), height=1),
            ]
        ),
        focused_element=None,
    )
    style = Style.from_dict({"picker.selected": "ansicyan", "picker.detail": "#888888", "picker.none": "#888888 italic"})
    app: Application[int | None] = Application(layout=layout, key_bindings=bindings, style=style, full_screen=False, erase_when_done=True)
    layout.focus(query)
    return await app.run_async()


def session_items(infos: Sequence[SessionInfo], now: datetime | None = None) -> list[PickItem]:
    """``/resume``'s rows: title, age, turns, id, and the first prompt (searchable, id included)."""
    from pseudoclaude.session import first_prompt
    from pseudoclaude.tui.sessions_view import relative_time

    moment = now or datetime.now(timezone.utc)
    items = []
    for info in infos:
        first = first_prompt(info.folder) if info.folder is not None else ""
        turns = f"{info.turns} turn{'s' if info.turns != 1 else ''}"
        detail = f"{relative_time(info.updated, moment)} · {turns} · {info.id}"
        note = first if first and first != info.title else ""
        items.append(PickItem(info.title or "(untitled)", detail, note, f"{info.title} {first} {info.id}"))
    return items
