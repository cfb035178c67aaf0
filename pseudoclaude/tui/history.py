"""A short recap of a resumed conversation, so the user sees where it left off."""

from __future__ import annotations

from typing import Sequence

from rich.console import Console
from rich.text import Text

from pseudoclaude.llm import Message
from pseudoclaude.tui.toolview import tool_title

_TEXT_LIMIT = 300


def render_recap(console: Console, session_id: str, conversation: Sequence[Message], last: int = 6) -> None:
    """The last ``last`` user/assistant messages of ``conversation`` (tool results left out)."""
    shown = [m for m in conversation if m.role != "tool"]
    console.print(Text(f"Resumed session {session_id} ({len(conversation)} messages)", style="bold"))
    if len(shown) > last:
        console.print(Text(f"… {len(shown) - last} earlier messages", style="dim"))
    for message in shown[-last:]:
        if message.role == "user":
            console.print(Text("❯ ", style="bold cyan") + Text(_cut(message.text)))
            continue
        if message.text:
            console.print(Text(_cut(message.text)))
        for call in message.tool_calls:
            try:
                arguments = call.parsed_arguments()
            except ValueError:
                arguments = {}
            console.print(tool_title(call.name, arguments, style="dim green"))
    console.rule(style="dim")


def _cut(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _TEXT_LIMIT else text[: _TEXT_LIMIT - 1] + "…"
