"""A short recap of a resumed conversation, so the user sees where it left off."""

from __future__ import annotations

from typing import Sequence

from rich.console import Console
from rich.text import Text

from pseudoclaude.llm import Message
from pseudoclaude.textsafe import for_terminal
from pseudoclaude.tui.toolview import tool_title

_TEXT_LIMIT = 300


def render_recap(console: Console, session_id: str, conversation: Sequence[Message], last: int = 6, *, summarized: bool = False) -> None:
    """The last ``last`` user/assistant messages of ``conversation`` (tool results left out).

    ``conversation`` is what the user said and saw (``Agent.transcript``): a
    compaction's summary, acknowledgement and reminder are the agent's own
    scaffolding and never appear as if the user had typed them.
    """
    shown = [m for m in conversation if m.role != "tool"]
    console.print(Text(f"Resumed session {session_id} ({_count(len(conversation), 'message')})", style="bold"))
    if summarized:
        console.print(Text("… earlier conversation summarized (compacted)", style="dim"))
    if len(shown) > last:
        console.print(Text(f"… {_count(len(shown) - last, 'earlier message')}", style="dim"))
    for message in shown[-last:]:
        if message.role == "user":
            console.print(Text("❯ ", style="bold cyan") + Text(for_terminal(_cut(message.text))))
            continue
        if message.text:
            console.print(Text(for_terminal(_cut(message.text))))
        for call in message.tool_calls:
            try:
                arguments = call.parsed_arguments()
            except ValueError:
                arguments = {}
            console.print(tool_title(call.name, arguments, style="dim green"))
    console.rule(style="dim")


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _cut(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _TEXT_LIMIT else text[: _TEXT_LIMIT - 1] + "…"
