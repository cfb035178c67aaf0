"""A real MCP server for the tests, written with the ``mcp`` SDK's own server API (stdio, or streamable HTTP with ``--http PORT``).

Tools: ``echo`` (its text back), ``token`` (whether ``DEMO_TOKEN`` reached it,
without printing it), ``big`` (``n`` numbered lines, for the output budget) and
``crash`` (the process exits at once, as a server dying mid-session would) and
``exit_soon`` (it answers, then exits while idle).
"""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("demo")


@server.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return f"echo: {text}"


@server.tool()
def token() -> str:
    """Say whether the DEMO_TOKEN environment variable reached the server."""
    value = os.environ.get("DEMO_TOKEN", "")
    return f"token length {len(value)}, ends with {value[-3:]!r}" if value else "no token"


@server.tool()
def big(n: int) -> str:
    """Return n numbered lines."""
    return "\n".join(f"line {i}" for i in range(1, n + 1))


@server.tool()
def exit_soon() -> str:
    """Answer, then exit a moment later (a server dying while idle)."""
    import threading

    threading.Timer(0.2, lambda: os._exit(0)).start()
    return "bye"


@server.tool()
def crash() -> str:
    """Exit the server process at once."""
    sys.stderr.write("demo server: crashing on purpose\n")
    sys.stderr.flush()
    os._exit(3)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
