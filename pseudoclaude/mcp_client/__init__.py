"""The MCP client: servers declared as Claude Code declares them, their tools as ``mcp__<server>__<tool>``.

Built on the official ``mcp`` SDK (stdio, streamable HTTP and SSE transports,
``ClientSession``); nothing here speaks the protocol by hand. The SDK is
imported only when a server starts, so a session without servers never loads it.
Where the declarations come from (``.mcp.json`` once the folder is trusted,
the user's settings, ``--mcp-config``) is ``config``'s business; this package
checks and expands them (``spec``), keeps the connections (``connection``,
``manager``) and turns each remote tool into one of ours (``tool``); resources
(``resources``), prompts as slash commands (``prompts``) and the requests a
server sends us (roots, elicitation: ``client_requests``) are Claude Code's.
"""

from pseudoclaude.mcp_client.client_requests import ElicitAnswer, Elicitor, ElicitRequest
from pseudoclaude.mcp_client.manager import McpServers, Prepared, ServerView, timeouts
from pseudoclaude.mcp_client.sdk_transport import install as install_sdk_bridge
from pseudoclaude.mcp_client.spec import ServerSpec, expand, input_schema, server_specs, tool_name

__all__ = [
    "ElicitAnswer",
    "ElicitRequest",
    "install_sdk_bridge",
    "Elicitor",
    "McpServers",
    "Prepared",
    "ServerSpec",
    "ServerView",
    "expand",
    "input_schema",
    "server_specs",
    "timeouts",
    "tool_name",
]
