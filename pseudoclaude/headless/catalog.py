"""What a headless session offers the Agent SDK by name: its slash commands (``init``'s ``slash_commands``, ``initialize``'s ``commands``).

The built-in ``/compact``, then the workspace's and the user's custom commands
(``agent.custom_commands``), listed without their slash as Claude Code lists
them; ``extra`` is where a caller adds more (the MCP servers' prompts,
``mcp__<server>__<prompt>``, once the servers are ready). Only what a ``user``
line can actually run is listed: the stdin driver expands custom commands, the
agent runs MCP prompt lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence


@dataclass(frozen=True)
class SlashCommand:
    """One command as the SDK lists it: its name without the slash, what it does, and its arguments."""

    name: str
    description: str = ""
    hint: str = ""


COMPACT = SlashCommand("compact", "Summarize the conversation now", "[focus]")


def slash_commands(workspace: Path, home: Path, extra: Sequence[SlashCommand] = ()) -> tuple[SlashCommand, ...]:
    """``/compact``, the custom commands found for ``workspace`` (a file that cannot be read is left out), then ``extra``."""
    from pseudoclaude.agent import load_custom_commands

    custom = load_custom_commands(workspace, home).commands
    found: dict[str, SlashCommand] = {}
    for command in (COMPACT, *(SlashCommand(c.name.lstrip("/"), c.description, c.argument_hint) for c in custom), *extra):
        found.setdefault(command.name, command)
    return tuple(found.values())
