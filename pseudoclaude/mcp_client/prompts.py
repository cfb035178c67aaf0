"""MCP prompts as slash commands: ``/mcp__<server>__<prompt> words...``, as Claude Code offers them.

A ready server that advertises prompts contributes one command per prompt
(its name built like a tool's, ``spec.tool_name``). The words after the
command fill the prompt's declared arguments in order (shell-like words, so
``"two words"`` is one; the words left over join the last argument);
``prompts/get`` returns the messages, whose text becomes the user's turn and
whose images ride on it. A missing required argument, an unknown prompt or a
server's error refuses the line with a reason, and nothing is sent.
"""

from __future__ import annotations

import asyncio
import shlex
from dataclasses import dataclass
from typing import Sequence

from pseudoclaude.llm import Image
from pseudoclaude.mcp_client.connection import RemotePrompt, ServerConnection, ServerGone
from pseudoclaude.mcp_client.spec import tool_name
from pseudoclaude.mcp_client.tool import images_of

PREFIX = "/mcp__"


@dataclass(frozen=True)
class PromptCommand:
    """One server prompt as a slash command: its name, a help line, and what it runs."""

    name: str
    help: str
    connection: ServerConnection
    prompt: RemotePrompt


class PromptRefused(Exception):
    """The line names an MCP prompt that cannot run as given; the message says why."""


@dataclass(frozen=True)
class PromptTurn:
    text: str
    images: tuple[Image, ...] = ()


def prompt_commands(connections: Sequence[ServerConnection]) -> list[PromptCommand]:
    """The prompts of the ready servers, as slash commands, in declaration order (a duplicate name keeps the first)."""
    found: dict[str, PromptCommand] = {}
    for connection in connections:
        if connection.state != "ready":
            continue
        for prompt in connection.prompts:
            name = "/" + tool_name(connection.spec.name, prompt.name)
            hint = " ".join(f"<{a}>" if required else f"[{a}]" for a, required, _ in prompt.arguments)
            about = prompt.description.strip().splitlines()[0] if prompt.description.strip() else prompt.name
            found.setdefault(name, PromptCommand(name, f"{about}{' ' + hint if hint else ''} (MCP {connection.spec.name})", connection, prompt))
    return list(found.values())


def is_prompt_line(line: str) -> bool:
    return line.lstrip().startswith(PREFIX)


async def run_prompt_line(line: str, connections: Sequence[ServerConnection]) -> PromptTurn:
    """The user's turn for ``/mcp__server__prompt args``; ``PromptRefused`` says why there is none."""
    name, _, rest = line.strip().partition(" ")
    commands = {command.name: command for command in prompt_commands(connections)}
    command = commands.get(name)
    if command is None:
        known = ", ".join(commands) or "none (no connected MCP server offers prompts)"
        raise PromptRefused(f"unknown MCP prompt {name}; the MCP prompts: {known}")
    arguments = _arguments(name, command.prompt, rest.strip())
    try:
        result = await command.connection.get_prompt(command.prompt.name, arguments)
    except ServerGone as gone:
        raise PromptRefused(f"{name}: the MCP server {command.connection.spec.name!r} is not running ({gone})") from None
    if result.is_error:
        raise PromptRefused(f"{name}: {result.text}")
    images, notes = await asyncio.to_thread(images_of, result.images, name.lstrip("/"))
    text = "\n".join(part for part in (result.text, *notes) if part)
    if not text.strip():
        raise PromptRefused(f"{name}: the MCP server returned an empty prompt")
    return PromptTurn(text, images)


def _arguments(name: str, prompt: RemotePrompt, text: str) -> dict[str, str]:
    try:
        words = shlex.split(text)
    except ValueError:
        words = text.split()
    names = [arg for arg, _, _ in prompt.arguments]
    values = dict(zip(names, words))
    if names and len(words) > len(names):
        values[names[-1]] = " ".join(words[len(names) - 1 :])
    missing = [arg for arg, required, _ in prompt.arguments if required and arg not in values]
    if missing:
        usage = " ".join(f"<{a}>" if required else f"[{a}]" for a, required, _ in prompt.arguments)
        raise PromptRefused(f"{name}: missing {', '.join(missing)}: use {name} {usage}")
    return values
