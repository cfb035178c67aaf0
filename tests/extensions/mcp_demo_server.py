"""A real MCP server for the tests, written with the ``mcp`` SDK's own server API (stdio, or streamable HTTP with ``--http PORT``).

Tools: ``echo`` (its text back), ``token`` (whether ``DEMO_TOKEN`` reached it,
without printing it), ``big`` (``n`` numbered lines, for the output budget) and
``crash`` (the process exits at once, as a server dying mid-session would),
``exit_soon`` (it answers, then exits while idle) and ``picture`` (a caption
and a ``width`` x ``height`` PNG; ``broken`` sends data that is not one;
``bad_crc`` one whose ``tEXt`` chunk has a wrong CRC), ``snapshot`` (an
image and the same image again in ``structuredContent``, as browser servers
send screenshots), ``env_var`` (a variable of its environment), ``roots``
(what the client answers to ``roots/list``) and ``ask`` (an elicitation).

Resources: ``demo://notes/today`` (text) and ``demo://pixel.png`` (an image).
Prompts: ``greet`` (arguments ``name``, required, and ``style``).
"""

from __future__ import annotations

import base64
import io
import os
import sys

import struct
import zlib

from pydantic import BaseModel

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, ImageContent, TextContent

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
def picture(width: int = 64, height: int = 48, broken: bool = False, count: int = 1, bad_crc: bool = False) -> list[TextContent | ImageContent]:
    """A caption and ``count`` PNGs of the given size (or, broken, data that is no image)."""
    png = png_bytes(width, height, bad_crc=bad_crc)
    data = base64.b64encode(b"not a picture" if broken else png).decode()
    images = [ImageContent(type="image", data=data, mime_type="image/png") for _ in range(count)]
    return [TextContent(type="text", text=f"a {width}x{height} picture"), *images]


def png_bytes(width: int, height: int, *, bad_crc: bool = False) -> bytes:
    """A PNG; ``bad_crc``: with a ``tEXt`` chunk after IHDR whose CRC is wrong (cameras and editors write such files)."""
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height), (30, 120, 200)).save(out, format="PNG")
    data = out.getvalue()
    if not bad_crc:
        return data
    body = b"Comment\x00written by a careless tool"
    chunk = struct.pack(">I", len(body)) + b"tEXt" + body + struct.pack(">I", (zlib.crc32(b"tEXt" + body) ^ 0xBAD) & 0xFFFFFFFF)
    return data[:33] + chunk + data[33:]


@server.tool()
def snapshot() -> CallToolResult:
    """A screenshot as browser servers send it: an image part, and the same data in structuredContent."""
    data = base64.b64encode(png_bytes(300, 200)).decode()
    return CallToolResult(
        content=[ImageContent(type="image", data=data, mime_type="image/png")],
        structured_content={"screenshot": {"mimeType": "image/png", "data": data}, "title": "Example page"},
    )


@server.tool()
def env_var(name: str) -> str:
    """The value of one variable of the server's environment."""
    return f"{name}={os.environ[name]}" if name in os.environ else f"{name} is not set"


@server.tool()
async def roots(ctx: Context) -> str:
    """The roots the client gives (roots/list), one URI a line."""
    listed = await ctx.session.list_roots()
    return "\n".join(f"root {root.uri} ({root.name})" for root in listed.roots) or "no roots"


class Answer(BaseModel):
    colour: str


@server.tool()
async def ask(ctx: Context) -> str:
    """Ask the user a question (elicitation) and say what came back."""
    result = await ctx.elicit("Which colour should the button be?", Answer)
    return f"the user chose {result.data.colour}" if result.action == "accept" and result.data else f"elicitation: {result.action}"


@server.resource("demo://notes/today", name="today", description="Today's notes", mime_type="text/plain")
def today() -> str:
    return "Notes for today: ship the MCP resources."


@server.resource("demo://pixel.png", name="pixel", mime_type="image/png")
def pixel() -> bytes:
    return png_bytes(8, 8)


@server.prompt()
def greet(name: str, style: str = "plain") -> str:
    """Greet someone by name."""
    return f"Please greet {name} in a {style} way, in one sentence."


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
