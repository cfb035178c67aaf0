"""What a pinned block holds, read back from the block itself: ``/context``'s breakdown of it.

The block in the conversation is the record (a resumed session carries the
block its compaction wrote, not a fresh rendering), so its parts are read
from its text: each part opens with a fixed heading (``pinned.py``,
``usertext.py``, ``touched.py``, ``reattach.py``), and the user messages'
heading says how many messages took each form.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from pseudoclaude.compact.reattach import FILES_HEADER, INSTRUCTIONS_HEADER, PLAN_OPEN
from pseudoclaude.compact.touched import EDITED_HEADING, OTHER_HEADING
from pseudoclaude.compact.usertext import HEADING, heading_counts

TextCounter = Callable[[str], int]

FAILURE_HEADING = "Last failing command:"
TODO_HEADING = "Todo list:"
_PARTS = (
    (HEADING + " (", "user"),
    (EDITED_HEADING, "files"),
    (OTHER_HEADING, "files"),
    (FAILURE_HEADING, "failure"),
    (TODO_HEADING, "todo"),
    (PLAN_OPEN.strip(), "attached"),
    (INSTRUCTIONS_HEADER, "attached"),
    (FILES_HEADER, "attached"),
)


@dataclass(frozen=True)
class PinnedParts:
    """The pinned block's parts: tokens of each, and what the user messages' part had to reduce to fit.

    ``user_messages``: how many the block accounts for (``in_tail`` of them
    follow it verbatim in the kept tail); ``verbatim``, ``by_rules`` (carried
    as their instructions and a pointer to the whole text), ``summarized``
    (the same with fewer opening words), ``bare`` (opening words and the
    pointer only), ``collapsed`` (counted on a line of their own); ``rules``:
    instruction sentences pinned for the reduced ones. ``files``: paths the working set holds.
    """

    user_messages: int = 0
    user_tokens: int = 0
    verbatim: int = 0
    by_rules: int = 0
    rules: int = 0
    summarized: int = 0
    bare: int = 0
    collapsed: int = 0
    in_tail: int = 0
    files: int = 0
    files_tokens: int = 0
    failure_tokens: int = 0
    todo_tokens: int = 0
    attached_tokens: int = 0

    @property
    def reduced(self) -> bool:
        """Whether any user message is carried in less than its whole text."""
        return bool(self.by_rules or self.summarized or self.bare or self.collapsed)


def pinned_parts(block: str, count: TextCounter, files: int = 0) -> PinnedParts:
    """The parts of ``block`` (``pinned.pinned_text``); an empty ``PinnedParts`` for ""."""
    if not block:
        return PinnedParts()
    texts: dict[str, list[str]] = {}
    current = ""
    heading = ""
    for line in block.splitlines()[1:-1]:
        part = next((name for opening, name in _PARTS if line.startswith(opening)), None)
        if part is not None:
            current = part
            heading = line if part == "user" else heading
        if current:
            texts.setdefault(current, []).append(line)
    tokens = {name: count("\n".join(lines)) for name, lines in texts.items()}
    counts = heading_counts(heading)
    named = heading.rsplit("the newest ", 1)[-1].split(" ", 1)[0] if "the newest " in heading else "0"
    in_tail = int(named) if named.isdigit() else 0
    return PinnedParts(
        user_messages=(counts.total if counts else 0) + in_tail,
        user_tokens=tokens.get("user", 0),
        verbatim=counts.verbatim if counts else 0,
        by_rules=counts.by_rules if counts else 0,
        rules=counts.rules if counts else 0,
        summarized=counts.summarized if counts else 0,
        bare=counts.bare if counts else 0,
        collapsed=counts.collapsed if counts else 0,
        in_tail=in_tail,
        files=files,
        files_tokens=tokens.get("files", 0),
        failure_tokens=tokens.get("failure", 0),
        todo_tokens=tokens.get("todo", 0),
        attached_tokens=tokens.get("attached", 0),
    )
