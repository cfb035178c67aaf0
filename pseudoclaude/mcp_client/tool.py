"""An MCP server's tool as one of ours: ``mcp__<server>__<tool>``, declared ``write``.

A server's ``readOnlyHint`` is not trusted (the permission policy's rule for
every tool: whoever adds it answers for its kind), so every MCP tool asks in
the default mode, is refused in plan mode, and is judged by rules on its name
(``mcp__demo__echo``, ``mcp__demo__*``, ``mcp__demo``). Its result goes
through the output budget like a command's.
"""

from __future__ import annotations

from typing import Any, Mapping

from pseudoclaude.mcp_client.connection import ServerConnection, ServerGone
from pseudoclaude.mcp_client.spec import input_schema, tool_name
from pseudoclaude.tools import ToolContext, ToolError, ToolOutput, ToolTraits, budgeted_output

MAX_DESCRIPTION = 2048


class McpTool:
    traits = ToolTraits(kind="write", clearable=True)

    def __init__(self, connection: ServerConnection, remote_name: str, description: str, schema: Mapping[str, Any]) -> None:
        self.connection = connection
        self.remote_name = remote_name
        self.name = tool_name(connection.spec.name, remote_name)
        server = connection.spec.name
        self.description = f"[MCP server {server}] " + (description.strip() or remote_name)[:MAX_DESCRIPTION]
        self.input_schema: Mapping[str, Any] = input_schema(schema)

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        server = self.connection.spec.name
        try:
            result = await self.connection.call(self.remote_name, args)
        except ServerGone as gone:
            raise ToolError(f"the MCP server {server!r} is not running ({gone}); its tools are withdrawn") from None
        summary = f"{server}/{self.remote_name}" + (" (error)" if result.is_error else "")
        return budgeted_output(result.text, ctx, label=self.name, is_error=result.is_error, summary=summary)
