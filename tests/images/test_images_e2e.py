"""Images end to end: the CLI, the real SDKs and the wire-level fakes, with the session folder on disk.

A model reads a screenshot with ``read_file``; the next request carries the
image in the provider's own shape; the session keeps the bytes beside the
JSONL; a resumed run sends exactly the same bytes; an oversized screenshot is
sent downscaled; ``-i`` attaches an image to a headless prompt.
"""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any, Iterator

import pytest
from PIL import Image as PILImage

from tests.e2e.support import cli_env, fake_server, run_cli
from tests.fakes.script import Call, Reply

pytestmark = pytest.mark.slow


def write_png(path: Path, size: tuple[int, int]) -> bytes:
    picture = PILImage.new("RGB", size, (240, 240, 240))
    for x in range(0, size[0], 7):
        picture.putpixel((x, size[1] // 2), (200, 0, 0))
    picture.save(path, format="PNG")
    return path.read_bytes()


def anthropic_images(request: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every image block of an Anthropic request, in user content and inside tool results."""
    for message in request["messages"]:
        content = message["content"] if isinstance(message["content"], list) else []
        for block in content:
            if block.get("type") == "image":
                yield block
            if block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                yield from (b for b in block["content"] if b.get("type") == "image")


def openai_image_urls(request: dict[str, Any]) -> list[str]:
    return [
        part["image_url"]["url"]
        for message in request["messages"]
        if isinstance(message.get("content"), list)
        for part in message["content"]
        if part.get("type") == "image_url"
    ]


def read_png_script() -> list[Reply]:
    return [Reply(calls=(Call("read_file", json.dumps({"path": "shot.png"})),)), Reply(text="The red line is centred.")]


def test_a_read_screenshot_reaches_anthropic_as_an_image_and_resumes_byte_for_byte(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    original = write_png(ws / "shot.png", (320, 200))
    with fake_server("anthropic", read_png_script()) as server:
        proc = run_cli(["-p", "is the line centred in shot.png?"], ws, cli_env("anthropic", server.url, home))
        assert proc.returncode == 0, proc.stderr
        assert server.rejections == []
        (block,) = anthropic_images(server.requests[1])
    assert block["source"]["media_type"] == "image/png"
    assert base64.b64decode(block["source"]["data"]) == original
    (folder,) = [p.parent for p in home.rglob("session.jsonl")]
    assert (folder / "images").is_dir() and original in [p.read_bytes() for p in (folder / "images").iterdir()]
    assert block["source"]["data"].encode() not in (folder / "session.jsonl").read_bytes()

    with fake_server("anthropic", [Reply(text="Still centred.")]) as server:
        proc = run_cli(["-p", "and now?", "--continue"], ws, cli_env("anthropic", server.url, home))
        assert proc.returncode == 0, proc.stderr
        assert server.rejections == []
        (again,) = anthropic_images(server.requests[0])
    assert again == block


def test_a_read_screenshot_reaches_openai_as_an_image_part(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    original = write_png(ws / "shot.png", (320, 200))
    with fake_server("openai", read_png_script()) as server:
        proc = run_cli(["-p", "is the line centred in shot.png?"], ws, cli_env("openai", server.url, home))
        assert proc.returncode == 0, proc.stderr
        assert server.rejections == []
        (url,) = openai_image_urls(server.requests[1])
    prefix = "data:image/png;base64,"
    assert url.startswith(prefix) and base64.b64decode(url[len(prefix) :]) == original


def test_an_oversized_screenshot_is_sent_downscaled(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    write_png(ws / "shot.png", (5000, 2500))
    with fake_server("anthropic", read_png_script()) as server:
        proc = run_cli(["-p", "look at shot.png"], ws, cli_env("anthropic", server.url, home))
        assert proc.returncode == 0, proc.stderr
        assert server.rejections == []
        (block,) = anthropic_images(server.requests[1])
    sent = PILImage.open(io.BytesIO(base64.b64decode(block["source"]["data"])))
    assert max(sent.size) <= 1568 and sent.size[0] * sent.size[1] <= 1_150_000


def test_dash_i_attaches_an_image_to_a_headless_prompt(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    original = write_png(tmp_path / "elsewhere.png", (64, 64))
    with fake_server("anthropic", [Reply(text="A grey square.")]) as server:
        proc = run_cli(["-p", "what is this?", "-i", str(tmp_path / "elsewhere.png")], ws, cli_env("anthropic", server.url, home))
        assert proc.returncode == 0, proc.stderr
        assert server.rejections == []
        (block,) = anthropic_images(server.requests[0])
        user_text = [b for b in server.requests[0]["messages"][-1]["content"] if b.get("type") == "text"]
    assert base64.b64decode(block["source"]["data"]) == original
    assert any("what is this?" in b["text"] for b in user_text)
