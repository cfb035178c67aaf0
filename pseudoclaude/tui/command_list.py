"""The slash commands the REPL completes: the fixed ones, then those that come and go.

An MCP server's prompts (``/mcp__<server>__<prompt>``) exist only once the
server is ready, which happens in the background after the prompt is shown;
the completer reads this list at each keystroke, so they complete as soon as
they exist, without rebuilding the prompt session.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Callable, overload


class CommandList(Sequence[tuple[str, str]]):
    """(name, help) pairs: ``fixed``, then whatever ``live()`` returns now."""

    def __init__(self, fixed: Sequence[tuple[str, str]], live: Callable[[], Sequence[tuple[str, str]]]) -> None:
        self.fixed = list(fixed)
        self.live = live

    def _now(self) -> list[tuple[str, str]]:
        return [*self.fixed, *self.live()]

    @overload
    def __getitem__(self, index: int) -> tuple[str, str]: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[tuple[str, str]]: ...

    def __getitem__(self, index: int | slice) -> tuple[str, str] | Sequence[tuple[str, str]]:
        return self._now()[index]

    def __len__(self) -> int:
        return len(self._now())
