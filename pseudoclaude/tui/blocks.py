"""Finished tool blocks: a run of explore calls folded into one line, and every block kept to be expanded.

Claude Code folds consecutive reads, searches and listings into one line
("Read 3 files, searched for 2 patterns (ctrl+o to expand)"); so does the
REPL. Which calls fold is what each tool declares (``ToolTraits.explores``,
``ToolRegistry.explore_kinds()``), never a list of names kept here. A failed,
denied or image-showing call is not folded: it keeps its own block.

``BlockLog`` keeps what the turns printed, so a key can print the last block
in full (Ctrl-O at the prompt): a command's complete output from the file it
was saved to when there is one, else the result the model read. All of it is
untrusted and goes through ``textsafe.for_terminal``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.text import Text

from pseudoclaude.agent import ToolCallFinished
from pseudoclaude.textsafe import for_terminal
from pseudoclaude.tui.fit import Fitted, Indented, shorten_middle
from pseudoclaude.tui.toolview import key_argument, tool_block

if TYPE_CHECKING:
    from pseudoclaude.tools import ToolTraits

EXPAND_HINT = "(ctrl+o to expand)"
FULL_LINES = 5000
"""At most this many lines (the last) of one call's output are printed expanded; the rest is counted, its file named."""
FULL_BYTES = 4 << 20

_PHRASES: Mapping[str, tuple[str, str, str]] = {
    "file": ("read", "file", "files"),
    "pattern": ("searched for", "pattern", "patterns"),
    "directory": ("listed", "directory", "directories"),
    "resource": ("read", "resource", "resources"),
}
"""How a line counts each thing an explore call touches (the values ``ToolTraits.explores`` may take)."""


def builtin_explore_kinds() -> Mapping[str, str]:
    from pseudoclaude.tools import builtin_registry

    return builtin_registry().explore_kinds()


def explore_kinds(traits: Mapping[str, ToolTraits]) -> Mapping[str, str]:
    """What each of a session's explore tools touches (``Agent.extensions.tool_traits()``: MCP resources included)."""
    return {name: kind for name, declared in traits.items() if (kind := declared.explores) is not None}


@dataclass(frozen=True)
class FinishedCall:
    """One finished call as its block was drawn: its arguments (from its start) and its end.

    ``position``: the order the call started in; read-only calls run concurrently and finish in any order, and a
    fold names them in the order the model asked for them.
    """

    name: str
    arguments: Mapping[str, Any]
    finished: ToolCallFinished
    position: int = 0


@dataclass
class Block:
    """What one printed block showed: a single call, or a folded run of explore calls."""

    calls: tuple[FinishedCall, ...]
    kinds: Mapping[str, str] = field(default_factory=dict)
    expanded: bool = False

    @property
    def folded(self) -> bool:
        return len(self.calls) > 1


def foldable(call: FinishedCall, kinds: Mapping[str, str]) -> bool:
    """Whether the call may join a fold: an explore tool's call that succeeded and showed no image."""
    event = call.finished
    return call.name in kinds and not event.is_error and not event.denied and not event.images


def fold_phrase(calls: Sequence[FinishedCall], kinds: Mapping[str, str]) -> str:
    """``Read 3 files, searched for 2 patterns``: each kind counted, in the order first seen."""
    counts: dict[str, int] = {}
    for call in calls:
        kind = kinds.get(call.name, "file")
        counts[kind] = counts.get(kind, 0) + 1
    parts = []
    for kind, number in counts.items():
        verb, one, many = _PHRASES.get(kind, ("used", kind, f"{kind}s"))
        parts.append(f"{verb} {number} {one if number == 1 else many}")
    text = ", ".join(parts)
    return text[:1].upper() + text[1:]


def touched_names(calls: Sequence[FinishedCall], width: int) -> str:
    """What the calls touched (their key arguments, each once), as many as fit ``width``, then ``+N``."""
    names = [name for name in dict.fromkeys(key_argument(call.name, call.arguments) for call in calls) if name] or ["…"]
    for count in range(len(names), 0, -1):
        rest = len(names) - count
        line = ", ".join(names[:count]) + (f" +{rest}" if rest else "")
        if cell_len(line) <= width:
            return line
    suffix = f" +{len(names) - 1}" if len(names) > 1 else ""
    return shorten_middle(names[0], max(8, width - len(suffix))) + suffix


def fold_view(calls: Sequence[FinishedCall], kinds: Mapping[str, str], *, hint: bool = True) -> RenderableType:
    """The one line a run of explore calls folds into, and below it what they touched."""
    title = Text("● ", style="bold green") + Text(fold_phrase(calls, kinds), style="bold")
    if hint:
        title += Text(f" {EXPAND_HINT}", style="dim")
    names = Fitted(lambda width: Text(for_terminal(touched_names(calls, width)), style="dim"))
    return Group(title, Indented("  ⎿ ", names))


def call_view(call: FinishedCall) -> RenderableType:
    event = call.finished
    return tool_block(call.name, call.arguments, is_error=event.is_error, summary=event.summary, display=event.display)


def block_view(block: Block) -> RenderableType:
    """The block as a turn printed it (a fold's line, or the call's own block)."""
    return fold_view(block.calls, block.kinds) if block.folded else call_view(block.calls[0])


def expanded_view(block: Block) -> RenderableType:
    """Every call of the block with its whole output, each line under the block's indent."""
    parts: list[RenderableType] = []
    if block.folded:
        parts.append(fold_view(block.calls, block.kinds, hint=False))
    for call in block.calls:
        parts.append(call_view(call))
        parts += [Indented("    ", Text(line, style="dim")) for line in full_output_lines(call.finished)]
    return Group(*parts)


def full_output_lines(event: ToolCallFinished, limit: int = FULL_LINES) -> list[str]:
    """The call's complete output: the saved file when the display names one that still exists, else the result's text."""
    text = event.content
    path = event.display.get("output_path")
    if isinstance(path, str) and path:
        try:
            with open(Path(path), encoding="utf-8", errors="replace") as file:
                text = file.read(FULL_BYTES)
        except OSError:
            pass
    rows = for_terminal(text).rstrip("\n").splitlines()
    if len(rows) > limit:  # the end is kept: where a command says how it failed
        where = f" (all of it: {for_terminal(path)})" if isinstance(path, str) and path else ""
        rows = [f"… {len(rows) - limit:,} earlier lines not shown{where}"] + rows[-limit:]
    return rows


class BlockLog:
    """The blocks printed so far, oldest first (the REPL keeps one for its whole life)."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []

    def add(self, block: Block) -> None:
        self.blocks.append(block)

    def last(self) -> Block | None:
        return self.blocks[-1] if self.blocks else None

    def toggle_last(self) -> RenderableType | None:
        """What Ctrl-O prints: the last block in full, or (pressed again) folded back to its line; None without blocks."""
        block = self.last()
        if block is None:
            return None
        block.expanded = not block.expanded
        if block.expanded:
            return expanded_view(block)
        return Group(Text("  (folded again)", style="dim"), block_view(block))


class ExploreRun:
    """The explore calls finished since the last other output; they print as one block when the run ends."""

    def __init__(self, kinds: Mapping[str, str]) -> None:
        self.kinds = kinds
        self.calls: list[FinishedCall] = []

    def explores(self, name: str) -> bool:
        return name in self.kinds

    def take(self, call: FinishedCall) -> bool:
        """Keep ``call`` in the run (True), or False when it must have its own block."""
        if not foldable(call, self.kinds):
            return False
        self.calls.append(call)
        self.calls.sort(key=lambda kept: kept.position)
        return True

    def live(self) -> RenderableType | None:
        """The run so far, for the live area (it is printed once it ends)."""
        if not self.calls:
            return None
        return call_view(self.calls[0]) if len(self.calls) == 1 else fold_view(self.calls, self.kinds)

    def close(self) -> Block | None:
        """End the run: its block (None when empty)."""
        if not self.calls:
            return None
        block = Block(tuple(self.calls), self.kinds)
        self.calls = []
        return block
