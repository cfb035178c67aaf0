"""The session's MCP servers: started together in the background, each failure reported once, tools by state.

``start()`` launches every server at once and waits until each is ready or
failed, at most ``startup_timeout_s`` (``MCP_TIMEOUT`` in milliseconds, as
Claude Code reads it; 30 s by default). It is idempotent: the agent calls it
before its first turn, so a session that never runs a prompt starts nothing.
``tools()`` lists the tools of the servers that are ready now; a server that
failed (at start or later, when a call found its connection closed) has its
tools withdrawn and one line in ``take_notices()``; so does a request the
session could not answer (an elicitation declined in a headless run).

``prepare(prompt)`` is what a user's prompt becomes once the servers are up:
``/mcp__server__prompt args`` the server's prompt (``prompts``), any
``@server:uri`` mention the resource attached (``resources``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from pseudoclaude.llm import Image
from pseudoclaude.mcp_client.client_requests import Elicitor
from pseudoclaude.mcp_client.connection import ServerConnection
from pseudoclaude.mcp_client.prompts import PromptRefused, is_prompt_line, prompt_commands, run_prompt_line
from pseudoclaude.mcp_client.resources import ListMcpResourcesTool, ReadMcpResourceTool, attach_mentions, serving
from pseudoclaude.mcp_client.spec import ServerSpec
from pseudoclaude.mcp_client.tool import McpTool
from pseudoclaude.tools import Tool

DEFAULT_STARTUP_TIMEOUT_S = 30.0
DEFAULT_CALL_TIMEOUT_S = 600.0


@dataclass(frozen=True)
class ServerView:
    """One server as ``/mcp`` shows it."""

    name: str
    source: str
    transport: str
    target: str
    state: str
    error: str | None
    tools: tuple[str, ...]


def timeouts(environ: Mapping[str, str]) -> tuple[float, float]:
    """(start-up, call) timeouts in seconds from ``MCP_TIMEOUT`` and ``MCP_TOOL_TIMEOUT`` (milliseconds)."""
    return _millis(environ.get("MCP_TIMEOUT"), DEFAULT_STARTUP_TIMEOUT_S), _millis(environ.get("MCP_TOOL_TIMEOUT"), DEFAULT_CALL_TIMEOUT_S)


def _millis(value: str | None, default: float) -> float:
    try:
        number = float(value) / 1000 if value else default
    except ValueError:
        return default
    return number if number > 0 else default


@dataclass(frozen=True)
class Prepared:
    """A prompt made ready to send: its text and images, notices for the user, or why it must not be sent."""

    text: str
    images: tuple[Image, ...] = ()
    notices: tuple[str, ...] = ()
    refused: str | None = None


class McpServers:
    def __init__(
        self,
        specs: Sequence[ServerSpec],
        workspace: Path,
        *,
        startup_timeout_s: float = DEFAULT_STARTUP_TIMEOUT_S,
        call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S,
        elicitor: Elicitor | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        """``elicitor`` answers the servers' questions (None: declined, with a notice); ``environ`` is what a stdio
        server inherits below its own ``env`` (None: this process's environment, as Claude Code passes it)."""
        self._notes: list[str] = []
        self._connections = [
            ServerConnection(spec, workspace, call_timeout_s=call_timeout_s, elicitor=elicitor, notice=self._notes.append, environ=environ) for spec in specs
        ]
        self._startup_timeout_s = startup_timeout_s
        self._starting: asyncio.Task[None] | None = None
        self._reported: set[str] = set()

    def __bool__(self) -> bool:
        return bool(self._connections)

    async def start(self) -> None:
        """Start every server and wait until each is ready or failed (the start-up timeout bounds it).

        Every caller waits for the same start: the REPL begins it in the background
        when the session opens, and the first turn waits for it to finish."""
        if self._starting is None:
            self._starting = asyncio.ensure_future(self._start_all())
        await asyncio.shield(self._starting)

    async def _start_all(self) -> None:
        for connection in self._connections:
            connection.start()
        await asyncio.gather(*(c.wait_ready(self._startup_timeout_s) for c in self._connections))

    async def check_alive(self) -> None:
        """Ping the ready servers (before a turn), so one that died while idle is reported before the model calls it."""
        await asyncio.gather(*(c.check_alive() for c in self._connections))

    def tools(self) -> list[Tool]:
        """The tools of the servers ready now, in declaration order (a duplicate name keeps the first)."""
        found: dict[str, Tool] = {}
        for connection in self._connections:
            if connection.state != "ready":
                continue
            for remote in connection.tools:
                tool = McpTool(connection, remote.name, remote.description, remote.input_schema)
                found.setdefault(tool.name, tool)
        if serving(self._connections):
            found.setdefault(ListMcpResourcesTool.name, ListMcpResourcesTool(self._connections))
            found.setdefault(ReadMcpResourceTool.name, ReadMcpResourceTool(self._connections))
        return list(found.values())

    def prompt_commands(self) -> list[tuple[str, str]]:
        """(name, help) of each ready server's prompt as a slash command: ``/mcp__<server>__<prompt>``."""
        return [(command.name, command.help) for command in prompt_commands(self._connections)]

    async def prepare(self, prompt: str) -> Prepared:
        """``prompt`` as it is sent: an MCP prompt command run, or its ``@server:uri`` resources attached."""
        if is_prompt_line(prompt):
            try:
                turn = await run_prompt_line(prompt, self._connections)
            except PromptRefused as refused:
                return Prepared(prompt, refused=str(refused))
            return Prepared(turn.text, turn.images)
        attached = await attach_mentions(prompt, self._connections)
        return Prepared(attached.text, attached.images, attached.notices)

    def take_notices(self) -> list[str]:
        """One line for each server that failed since the last call, and for each request it could not answer."""
        lines, self._notes[:] = list(self._notes), []
        for connection in self._connections:
            if connection.state == "failed" and connection.spec.name not in self._reported:
                self._reported.add(connection.spec.name)
                lines.append(f"MCP server {connection.spec.name!r} ({connection.spec.source}) failed: {connection.error}; its tools are not available")
        return lines

    def views(self) -> tuple[ServerView, ...]:
        return tuple(
            ServerView(
                c.spec.name,
                c.spec.source,
                c.spec.transport,
                c.spec.target,
                c.state,
                c.error,
                tuple(McpTool(c, t.name, t.description, t.input_schema).name for t in c.tools) if c.state == "ready" else (),
            )
            for c in self._connections
        )

    async def aclose(self) -> None:
        if self._starting is not None and not self._starting.done():
            self._starting.cancel()
            await asyncio.gather(self._starting, return_exceptions=True)
        await asyncio.gather(*(c.stop() for c in self._connections), return_exceptions=True)
