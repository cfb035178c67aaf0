"""The prompt's keys that open what a block folded: Ctrl-O (the last block) and Ctrl-\\ (the transcript).

Ctrl-O is Claude Code's key for "expand"; prompt-toolkit binds it to
``operate-and-get-next``, which nobody misses here. Ctrl-R stays the
history search, so the transcript (Claude Code's Ctrl-R of old) takes
Ctrl-\\: unbound in prompt-toolkit (ignored) and, in the raw mode the prompt
runs in, no longer the terminal's quit signal. Both print above the prompt
(``run_in_terminal``), so what is typed stays as it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Awaitable, Callable, Sequence

from prompt_toolkit.filters import is_searching
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

if TYPE_CHECKING:
    from rich.console import Console

    from pseudoclaude.llm import Message
    from pseudoclaude.tui.blocks import BlockLog

EXPAND_KEY = "c-o"
TRANSCRIPT_KEY = "c-\\"


@dataclass(frozen=True)
class BlockKeys:
    """What the two keys do: print the last block toggled open or closed, and open the transcript pager."""

    expand_last: Callable[[], None]
    transcript: Callable[[], Awaitable[None]]


def add_block_keys(bindings: KeyBindings, keys: BlockKeys) -> None:
    @bindings.add(EXPAND_KEY, filter=~is_searching)
    def _expand(event: KeyPressEvent) -> None:
        from prompt_toolkit.application import run_in_terminal

        run_in_terminal(keys.expand_last)

    @bindings.add(TRANSCRIPT_KEY, filter=~is_searching)
    def _transcript(event: KeyPressEvent) -> None:
        from prompt_toolkit.application.run_in_terminal import in_terminal

        async def show() -> None:
            async with in_terminal():
                await keys.transcript()

        event.app.create_background_task(show())


def block_keys(console: Console, blocks: BlockLog, conversation: Callable[[], Sequence[Message]]) -> BlockKeys:
    """The keys for the REPL: ``blocks`` are the turns' printed blocks, ``conversation`` the session's messages."""

    def expand_last() -> None:
        from rich.text import Text

        shown = blocks.toggle_last()
        console.print(shown if shown is not None else Text("No tool output to expand yet.", style="dim"))

    async def transcript() -> None:
        from rich.text import Text

        from pseudoclaude.tui.transcript_pager import show_pager

        messages = conversation()
        if not messages:
            console.print(Text("No conversation yet: the transcript opens once a message was sent.", style="dim"))
            return
        await show_pager(messages)

    return BlockKeys(expand_last, transcript)
