"""MCP parts on their own: what a result's content becomes, and a prompt line and mentions against the real demo server."""

from __future__ import annotations

import asyncio
import base64
import sys
from pathlib import Path

import pytest
from mcp.types import CallToolResult, ImageContent, TextContent

from pseudoclaude.mcp_client import McpServers, Prepared, server_specs
from pseudoclaude.mcp_client.content import call_result

DEMO = Path(__file__).with_name("mcp_demo_server.py")
DATA = base64.b64encode(bytes(range(256)) * 8).decode()


def test_structured_content_is_not_sent_beside_content_parts() -> None:
    result = call_result(CallToolResult(content=[ImageContent(type="image", data=DATA, mime_type="image/png")], structured_content={"data": DATA}))
    assert result.text == "" and [image.data for image in result.images] == [DATA]


def test_structured_content_alone_is_sent_without_its_base64_data() -> None:
    result = call_result(CallToolResult(content=[], structured_content={"title": "Page", "shot": {"data": DATA}, "tags": ["a"]}))
    assert DATA[:100] not in result.text
    assert '"title": "Page"' in result.text and "[base64 data, about 2,048 bytes: not shown]" in result.text and '"a"' in result.text


def test_text_parts_are_joined_and_a_short_base64_looking_word_is_kept() -> None:
    result = call_result(
        CallToolResult(content=[TextContent(type="text", text="one"), TextContent(type="text", text="two")], structured_content={"id": "abc123"})
    )
    assert result.text == "one\ntwo"
    assert "abc123" in call_result(CallToolResult(content=[], structured_content={"id": "abc123"})).text


@pytest.mark.slow
def test_prompt_lines_and_mentions_against_the_demo_server(tmp_path: Path) -> None:
    async def go() -> list[Prepared]:
        servers = McpServers(server_specs({"demo": ("test", {"command": sys.executable, "args": [str(DEMO)]})}, {}), tmp_path)
        try:
            await servers.start()
            assert servers.prompt_commands() == [("/mcp__demo__greet", "Greet someone by name. <name> [style] (MCP demo)")]
            lines = ['/mcp__demo__greet "Ann Lee" warm and kind', "/mcp__demo__nothing", "see @other:demo://notes/today", "see @demo:demo://pixel.png."]
            return [await servers.prepare(line) for line in lines]
        finally:
            await servers.aclose()

    quoted, unknown, other, pixel = asyncio.run(go())
    assert quoted == Prepared("Please greet Ann Lee in a warm and kind way, in one sentence.")
    assert unknown.refused == "unknown MCP prompt /mcp__demo__nothing; the MCP prompts: /mcp__demo__greet"
    assert other == Prepared("see @other:demo://notes/today")
    assert [image.media_type for image in pixel.images] == ["image/png"] and '<mcp-resource server="demo" uri="demo://pixel.png">' in pixel.text
