"""MCP resources: two tools to list and read them, and ``@server:uri`` mentions that attach one to a prompt.

The tools are Claude Code's ``ListMcpResourcesTool`` and ``ReadMcpResourceTool``
(``list_mcp_resources`` and ``read_mcp_resource`` here, Claude's names as
aliases for rules and hooks). They are offered only while a ready server
advertises the resources capability, so a session without such a server sends
the same tool list as before. They are ``read`` tools: ``resources/read`` is
the protocol's read of data the user's own server publishes (a tool call, by
contrast, may do anything, so MCP tools ask).

A mention ``@demo:demo://notes/today`` in the user's prompt (Claude Code's
syntax) names a server that offers resources and one of its URIs; the
resource's text is appended to the prompt, its images ride along with it. A
mention of a server that is not connected stays plain text.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from pseudoclaude.llm import Image
from pseudoclaude.mcp_client.connection import ServerConnection, ServerGone
from pseudoclaude.mcp_client.tool import images_of
from pseudoclaude.tools import ToolContext, ToolError, ToolOutput, ToolTraits, budgeted_output

_MENTION = re.compile(r"(?<![\w`])@([A-Za-z0-9_.-]+):([A-Za-z][A-Za-z0-9+.-]*:[^\s`'\"]+)")
MAX_MENTIONED_CHARS = 64 * 1024


def serving(connections: Sequence[ServerConnection]) -> list[ServerConnection]:
    """The ready servers that advertise resources."""
    return [c for c in connections if c.state == "ready" and c.resources is not None]


def _find(connections: Sequence[ServerConnection], server: str) -> ServerConnection:
    for connection in serving(connections):
        if connection.spec.name == server:
            return connection
    names = ", ".join(c.spec.name for c in serving(connections)) or "none"
    raise ToolError(f"no connected MCP server {server!r} offers resources (servers with resources: {names})")


class ListMcpResourcesTool:
    name = "list_mcp_resources"
    description = (
        "List the resources (files, records, documents) the connected MCP servers offer: each one's server, uri, name, "
        "type and description, as JSON. Give `server` to list one server's only. Read one with read_mcp_resource."
    )
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {"server": {"type": "string", "description": "Only this MCP server's resources."}},
    }
    traits = ToolTraits(kind="read", clearable=True, claude_names=("ListMcpResourcesTool",))

    def __init__(self, connections: Sequence[ServerConnection]) -> None:
        self.connections = connections

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        server = args.get("server")
        chosen = [_find(self.connections, str(server))] if server else serving(self.connections)
        listed: list[dict[str, str]] = []
        for connection in chosen:
            try:
                resources = await connection.list_resources()
            except (ServerGone, ValueError) as error:
                raise ToolError(f"the MCP server {connection.spec.name!r} could not list its resources: {error}") from None
            listed.extend(
                {
                    "server": connection.spec.name,
                    "uri": r.uri,
                    "name": r.name,
                    **({"mimeType": r.mime_type} if r.mime_type else {}),
                    **({"description": r.description} if r.description else {}),
                }
                for r in resources
            )
        text = json.dumps(listed, ensure_ascii=False, indent=1) if listed else "No resources."
        return budgeted_output(text, ctx, label=self.name, summary=f"{len(listed)} resources")


class ReadMcpResourceTool:
    name = "read_mcp_resource"
    description = "Read one resource of a connected MCP server by its `server` name and `uri` (as list_mcp_resources lists them)."
    input_schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "server": {"type": "string", "description": "The MCP server's name."},
            "uri": {"type": "string", "description": "The resource's URI."},
        },
        "required": ["server", "uri"],
    }
    traits = ToolTraits(kind="read", clearable=True, claude_names=("ReadMcpResourceTool",), key_argument="uri", explores="resource")

    def __init__(self, connections: Sequence[ServerConnection]) -> None:
        self.connections = connections

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        server, uri = str(args.get("server", "")), str(args.get("uri", ""))
        connection = _find(self.connections, server)
        try:
            result = await connection.read_resource(uri)
        except ServerGone as gone:
            raise ToolError(f"the MCP server {server!r} is not running ({gone})") from None
        images, notes = await asyncio.to_thread(images_of, result.images, f"{server}:{uri}", vision=ctx.vision)
        text = "\n".join(part for part in (result.text, *notes) if part)
        output = budgeted_output(text, ctx, label=self.name, is_error=result.is_error, summary=f"{server}:{uri}")
        import dataclasses

        return dataclasses.replace(output, images=images) if images else output


@dataclass(frozen=True)
class Attached:
    """A prompt with its mentioned resources attached: the text to send, images, and notices for the user."""

    text: str
    images: tuple[Image, ...] = ()
    notices: tuple[str, ...] = ()


async def attach_mentions(text: str, connections: Sequence[ServerConnection]) -> Attached:
    """``text`` with each ``@server:uri`` resource it mentions appended (once each, in order)."""
    servers = {c.spec.name: c for c in serving(connections)}
    found: list[tuple[str, str]] = []
    for match in _MENTION.finditer(text):
        mention = (match.group(1), match.group(2).rstrip(".,;!?)"))
        if mention[0] in servers and mention not in found:
            found.append(mention)
    if not found:
        return Attached(text)
    blocks: list[str] = []
    images: list[Image] = []
    notices: list[str] = []
    for server, uri in found:
        try:
            result = await servers[server].read_resource(uri)
        except ServerGone as gone:
            notices.append(f"@{server}:{uri} not attached: the MCP server is not running ({gone})")
            continue
        if result.is_error:
            notices.append(f"@{server}:{uri} not attached: {result.text}")
            continue
        shown, notes = await asyncio.to_thread(images_of, result.images, f"{server}:{uri}")
        images.extend(shown)
        body = "\n".join(part for part in (result.text, *notes) if part)
        if len(body) > MAX_MENTIONED_CHARS:
            body = body[:MAX_MENTIONED_CHARS] + f"\n[... cut at {MAX_MENTIONED_CHARS:,} characters; read_mcp_resource reads it whole ...]"
        blocks.append(f'<mcp-resource server="{server}" uri="{uri}">\n{body.rstrip(chr(10))}\n</mcp-resource>')
    if not blocks:
        return Attached(text, notices=tuple(notices))
    return Attached(text + "\n\nMCP resources the user attached:\n" + "\n".join(blocks), tuple(images), tuple(notices))
