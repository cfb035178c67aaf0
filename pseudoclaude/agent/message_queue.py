"""Messages the user sends while a turn runs: the runner takes them in before its next model call."""

from __future__ import annotations


class MessageQueue:
    """What the user typed during a turn, in order; the runner's to drain, the front end's to fill and to take back."""

    def __init__(self) -> None:
        self._texts: list[str] = []

    def put(self, text: str) -> None:
        """Text that joins the conversation before the next model call."""
        self._texts.append(text)

    def pending(self) -> tuple[str, ...]:
        """Messages queued and not sent yet."""
        return tuple(self._texts)

    def take(self) -> tuple[str, ...]:
        """Remove and return the queued messages (the runner sends them; a front end keeps what a turn ended without as a draft)."""
        taken, self._texts = tuple(self._texts), []
        return taken
