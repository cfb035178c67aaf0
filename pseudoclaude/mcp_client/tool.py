"""An MCP server's tool as one of ours: ``mcp__<server>__<tool>``, declared ``write``.

A server's ``readOnlyHint`` is not trusted (the permission policy's rule for
every tool: whoever adds it answers for its kind), so every MCP tool asks in
the default mode, is refused in plan mode, and is judged by rules on its name
(``mcp__demo__echo``, ``mcp__demo__*``, ``mcp__demo``). Its result goes
through the output budget like a command's.

Image parts of a result (a browser server's screenshot) reach the model as
images: the base64 is decoded strictly and the bytes fitted to the providers'
limits by ``imaging.fit_image`` (the declared MIME type is not trusted; the
content decides). A part that is not a usable image, or one past
``MAX_IMAGES``, becomes a line of text saying so; so does every image when the
current model has no vision. Decoding and resizing run off the event loop
(``asyncio.to_thread``: bounded work on bytes in memory, nothing that can hang).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import dataclasses
from typing import Any, Mapping, Sequence

from pseudoclaude.imaging import MAX_FILE_BYTES, ImageError, fit_image
from pseudoclaude.llm import Image
from pseudoclaude.mcp_client.connection import ImagePart, ServerConnection, ServerGone
from pseudoclaude.mcp_client.spec import input_schema, tool_name
from pseudoclaude.tools import ToolContext, ToolError, ToolOutput, ToolTraits, budgeted_output

MAX_DESCRIPTION = 2048
MAX_IMAGES = 8


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
        images, notes = await asyncio.to_thread(images_of, result.images, f"{server}/{self.remote_name}", vision=ctx.vision)
        text = "\n".join(part for part in (result.text, *notes) if part)
        output = budgeted_output(text, ctx, label=self.name, is_error=result.is_error, summary=summary)
        return dataclasses.replace(output, images=images) if images else output


def images_of(parts: Sequence[ImagePart], source: str, *, vision: bool = True) -> tuple[tuple[Image, ...], list[str]]:
    """The image parts as images to send, and a line of text for each: what it is, or why it was not sent."""
    images: list[Image] = []
    notes: list[str] = []
    for number, part in enumerate(parts, start=1):
        name = f"{source} image {number}" if len(parts) > 1 else f"{source} image"
        if number > MAX_IMAGES:
            notes.append(f"[{name}: not sent, a result may carry at most {MAX_IMAGES} images]")
            continue
        try:
            image = _decode(part, name)
        except ImageError as error:
            notes.append(f"[{name} ({part.mime_type or 'no type'}) could not be used: {str(error).removeprefix(name + ': ')}]")
            continue
        if not vision:
            notes.append(f"[image {image.describe()} not shown: the current model cannot see images]")
            continue
        images.append(image)
        notes.append(f"[image {image.describe()}]")
    return tuple(images), notes


def _decode(part: ImagePart, name: str) -> Image:
    if len(part.data) * 3 // 4 > MAX_FILE_BYTES:
        raise ImageError(f"{len(part.data) * 3 // 4:,} bytes is over the {MAX_FILE_BYTES // (1024 * 1024)} MB an image may be")
    try:
        data = base64.b64decode(part.data, validate=True)
    except (binascii.Error, ValueError) as error:
        raise ImageError(f"its data is not valid base64 ({error})") from None
    return fit_image(data, name)
