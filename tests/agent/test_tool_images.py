"""A tool round that reads an image: the image rides on the tool message, the event describes it, the session keeps it by hash."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

from PIL import Image as PILImage

from pseudoclaude.agent.events import Event, ImageShown, ToolCallFinished, event_to_dict
from pseudoclaude.agent import RunConfig, Runner
from pseudoclaude.session import create_session, open_session
from pseudoclaude.tools import ToolContext
from pseudoclaude.tools.read_file import ReadFileTool
from tests.fakes.script import Reply
from tests.fakes.scripted import ScriptedProvider, call


def png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    PILImage.new("RGB", (width, height), (200, 40, 40)).save(out, format="PNG")
    return out.getvalue()


def read_round(tmp_path: Path, model: str = "scripted-model") -> tuple[ScriptedProvider, list[Event], Path]:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "shot.png").write_bytes(png(320, 200))
    session = create_session(tmp_path / "sessions", ws, model=model, provider="anthropic")
    provider = ScriptedProvider([Reply(calls=(call("read_file", path="shot.png"),)), Reply(text="A red square.")])
    runner = Runner(
        provider=provider,
        tools=[ReadFileTool()],
        tool_context=ToolContext(workspace=ws.resolve()),
        config=RunConfig(model=model, system="You are a test."),
        session=session,
    )

    async def go() -> list[Event]:
        return [event async for event in runner.run("what is in shot.png?")]

    try:
        events = asyncio.run(go())
    finally:
        session.close()
    return provider, events, session.folder


def test_the_image_rides_on_the_tool_message_and_the_session_names_it_by_hash(tmp_path: Path) -> None:
    provider, events, folder = read_round(tmp_path)
    result = provider.requests[1].messages[-1].tool_result
    assert result is not None and not result.is_error
    [image] = result.images
    assert (image.media_type, image.width, image.height, image.data) == ("image/png", 320, 200, png(320, 200))
    assert result.content.startswith("Image shot.png (320x200 PNG, ")
    entries = [json.loads(line) for line in (folder / "session.jsonl").read_text().splitlines()]
    [recorded] = [e["message"]["tool_result"]["images"] for e in entries if e.get("message", {}).get("tool_result", {}).get("images")]
    assert recorded == [{"media_type": "image/png", "sha256": image.sha256, "name": "shot.png", "width": 320, "height": 200, "bytes": len(image.data)}]
    assert image.data not in (folder / "session.jsonl").read_bytes()
    assert (folder / "images" / f"{image.sha256}.png").read_bytes() == image.data


def test_the_finished_event_describes_the_image_without_its_bytes(tmp_path: Path) -> None:
    _, events, _ = read_round(tmp_path)
    [finished] = [e for e in events if isinstance(e, ToolCallFinished)]
    [shown] = finished.images
    assert shown == ImageShown("shot.png", "image/png", 320, 200, shown.bytes, shown.sha256) and shown.bytes > 0
    assert shown.line() == "shot.png 320x200 PNG 1 KB"
    as_json = json.dumps(event_to_dict(finished))
    assert '"images": [{"name": "shot.png", "media_type": "image/png", "width": 320, "height": 200' in as_json


def test_a_resumed_session_has_the_same_image_bytes(tmp_path: Path) -> None:
    provider, _, folder = read_round(tmp_path)
    [sent] = provider.requests[1].messages[-1].all_images()
    session, replay = open_session(tmp_path / "sessions", tmp_path / "ws", folder.name)
    session.close()
    [replayed] = [image for message in replay.conversation for image in message.all_images()]
    assert replayed.data == sent.data and replayed.sha256 == sent.sha256


def test_a_model_without_vision_gets_the_note_and_no_image(tmp_path: Path) -> None:
    provider, events, _ = read_round(tmp_path, model="gpt-4")
    result = provider.requests[1].messages[-1].tool_result
    assert result is not None and result.images == ()
    assert "320x200 PNG image" in result.content and "cannot see images" in result.content
    [finished] = [e for e in events if isinstance(e, ToolCallFinished)]
    assert finished.images == ()
