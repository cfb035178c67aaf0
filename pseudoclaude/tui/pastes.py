"""Long pastes fold to ``[Pasted text #N +L lines]`` in the input, and unfold when the message is sent.

A 40-line paste typed out in the input fills the screen, and an input taller
than the window leaves stale status lines in the scrollback; Claude Code shows
a placeholder instead, and so do we. The invariant: the text the user sees
holds placeholders, the text that leaves the input (to the model, the session
file, the queue) holds the pasted text itself, byte for byte.

* A paste folds when it has more than ``FOLD_LINES`` lines or more than
  ``FOLD_CHARS`` characters; shorter ones are typed in as they are.
* Numbers count up for the life of the process, so a placeholder recalled from
  the history (Up) still names its own paste; a placeholder typed by hand, or
  one from an earlier process, names nothing and stays the user's words.
* A placeholder goes as one piece: Backspace right after it deletes all of it,
  and with it the paste (nothing of it is sent).
* ``fold_known`` turns text that comes back to the input (a draft kept after a
  refused message, the editor's result) into placeholders again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

FOLD_LINES = 3
"""A paste of more lines than this folds (Claude Code folds a few lines too)."""
FOLD_CHARS = 800
"""A paste longer than this folds, even on one line (a minified file, a long log line)."""

_PLACEHOLDER = re.compile(r"\[Pasted text #(\d+) \+(\d+) lines?\]")


@dataclass(frozen=True)
class Paste:
    number: int
    text: str

    @property
    def placeholder(self) -> str:
        lines = line_count(self.text)
        return f"[Pasted text #{self.number} +{lines} {'line' if lines == 1 else 'lines'}]"


def line_count(text: str) -> int:
    return max(1, len(text.splitlines()))


def should_fold(text: str) -> bool:
    return line_count(text) > FOLD_LINES or len(text) > FOLD_CHARS


def normalize(text: str) -> str:
    """Pasted text as the message will hold it: terminals send a pasted line break as ``\\r``."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


class PasteStore:
    """The pastes of this process, by number."""

    def __init__(self) -> None:
        self._pastes: dict[int, Paste] = {}

    def add(self, text: str) -> str:
        """Keep ``text`` and return the placeholder that stands for it in the input."""
        paste = Paste(len(self._pastes) + 1, text)
        self._pastes[paste.number] = paste
        return paste.placeholder

    def insertion(self, text: str) -> str:
        """What a paste of ``text`` puts in the input: its placeholder when it folds, else the text itself."""
        text = normalize(text)
        return self.add(text) if should_fold(text) else text

    def _known(self, match: re.Match[str]) -> Paste | None:
        paste = self._pastes.get(int(match.group(1)))
        return paste if paste is not None and paste.placeholder == match.group(0) else None

    def expand(self, text: str) -> str:
        """``text`` with each placeholder of a kept paste replaced by the pasted text (one pass: a paste's own text is not expanded again)."""

        def replace(match: re.Match[str]) -> str:
            paste = self._known(match)
            return paste.text if paste is not None else match.group(0)

        return _PLACEHOLDER.sub(replace, text)

    def expand_at(self, text: str, cursor: int) -> tuple[str, int] | None:
        """Unfold the placeholder under or just before ``cursor`` (else the last one); None when there is none."""
        matches = [match for match in _PLACEHOLDER.finditer(text) if self._known(match) is not None]
        if not matches:
            return None
        match = next((m for m in matches if m.start() <= cursor <= m.end()), matches[-1])
        paste = self._known(match)
        assert paste is not None
        return text[: match.start()] + paste.text + text[match.end() :], match.start() + len(paste.text)

    def delete_before(self, text: str, cursor: int) -> tuple[str, int] | None:
        """Backspace right after a placeholder: the text without it and the new cursor; None when the cursor is not after one."""
        for match in _PLACEHOLDER.finditer(text[:cursor]):
            if match.end() == cursor and self._known(match) is not None:
                return text[: match.start()] + text[cursor:], match.start()
        return None

    def fold_known(self, text: str) -> str:
        """``text`` with the pasted text of each kept paste folded back to its placeholder (longest first)."""
        for paste in sorted(self._pastes.values(), key=lambda p: len(p.text), reverse=True):
            if paste.text in text:
                text = text.replace(paste.text, paste.placeholder)
        return text

    def pastes_in(self, text: str) -> list[Paste]:
        """The kept pastes whose placeholders ``text`` holds, in order."""
        found = (self._known(match) for match in _PLACEHOLDER.finditer(text))
        return [paste for paste in found if paste is not None]


_SHARED = PasteStore()


def shared_pastes() -> PasteStore:
    """The process's store: the prompt and the keys of a turn fold into it, so a draft moves between them folded."""
    return _SHARED
