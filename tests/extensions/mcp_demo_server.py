"""A real MCP server for the tests, written with the ``mcp`` SDK's own server API (stdio, or streamable HTTP with ``--http PORT``).

Tools: ``echo`` (its text back), ``token`` (whether ``DEMO_TOKEN`` reached it,
without printing it), ``big`` (``n`` numbered lines, for the output budget) and
``crash`` (the process exits at once, as a server dying mid-session would),
``exit_soon`` (it answers, then exits while idle) and ``picture`` (a caption
and a ``width`` x ``height`` PNG; ``broken`` sends data that is not one).
"""

from __future__ import annotations

import base64
import io
import os
import sys

from mcp.server.mcpserver import MCPServer
from mcp.types import ImageContent, TextContent

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
def picture(width: int = 64, height: int = 48, broken: bool = False, count: int = 1) -> list[TextContent | ImageContent]:
    """A caption and ``count`` PNGs of the given size (or, broken, data that is no image)."""
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height), (30, 120, 200)).save(out, format="PNG")
    data = base64.b64encode(b"not a picture" if broken else out.getvalue()).decode()
    images = [ImageContent(type="image", data=data, mime_type="image/png") for _ in range(count)]
    return [TextContent(type="text", text=f"a {width}x{height} picture"), *images]


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
