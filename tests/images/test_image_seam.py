"""Images in the neutral conversation and the session folder: named by hash, replayed byte for byte, noted when unseen."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image as PILImage

from pseudoclaude.llm import Image, Message, image_tokens, images_for_model, sniff_media_type, supports_vision
from pseudoclaude.session import create_session, fork_session, load_replay


def png(size: tuple[int, int] = (64, 32), colour: tuple[int, int, int] = (200, 30, 30)) -> Image:
    out = io.BytesIO()
    PILImage.new("RGB", size, colour).save(out, format="PNG")
    return Image("image/png", out.getvalue(), "shot.png", *size)


def test_content_decides_the_type() -> None:
    assert sniff_media_type(png().data) == "image/png"
    assert sniff_media_type(b"RIFF\x00\x00\x00\x00WEBPVP8 ") == "image/webp"
    assert sniff_media_type(b"GIF89a...") == "image/gif"
    assert sniff_media_type(b"\xff\xd8\xff\xe0") == "image/jpeg"
    assert sniff_media_type(b"%PDF-1.7") is None


def test_the_published_token_rules() -> None:
    screenshot = Image("image/png", b"x", width=1568, height=735)
    assert image_tokens(screenshot, "anthropic") == 1537
    assert image_tokens(Image("image/png", b"x", width=1024, height=1024), "openai") == 765  # OpenAI's own worked example
    assert image_tokens(Image("image/png", b"x", width=2048, height=4096), "openai") == 1105
    assert image_tokens(screenshot, "other") == max(image_tokens(screenshot, "anthropic"), image_tokens(screenshot, "openai"))


def test_the_session_file_names_images_by_hash_and_keeps_the_bytes_beside_it(tmp_path: Path) -> None:
    image = png()
    with create_session(tmp_path / "sessions", tmp_path, model="claude-sonnet-4-5", provider="anthropic") as session:
        session.append_message(Message.user("what is wrong here?", [image]))
        session.append_message(Message.tool("call_1", "read shot.png", images=(image,)))
        folder = session.folder
    assert image.data not in (folder / "session.jsonl").read_bytes()
    assert b"iVBOR" not in (folder / "session.jsonl").read_bytes()  # no base64 PNG inline either
    stored = folder / "images" / image.file_name
    assert stored.read_bytes() == image.data
    assert stored.stat().st_mode & 0o777 == 0o600
    user, tool = load_replay(folder).conversation
    assert user.images[0].data == image.data and user.images[0].name == "shot.png"
    assert tool.tool_result is not None and tool.tool_result.images[0].data == image.data
    assert (user.images[0].width, user.images[0].height) == (64, 32)


def test_a_fork_keeps_its_images(tmp_path: Path) -> None:
    image = png()
    sessions = tmp_path / "sessions"
    with create_session(sessions, tmp_path, model="m", provider="anthropic") as session:
        session.append_message(Message.user("look", [image]))
        source_id = session.id
        parent = session.folder.parent
    fork_id = fork_session(sessions, tmp_path, source_id)
    (parent / source_id / "images" / image.file_name).unlink()
    assert load_replay(parent / fork_id).conversation[0].images[0].data == image.data


def test_a_missing_or_tampered_image_becomes_a_note_not_other_bytes(tmp_path: Path) -> None:
    first, second = png(colour=(1, 2, 3)), png(colour=(4, 5, 6))
    with create_session(tmp_path / "sessions", tmp_path, model="m", provider="anthropic") as session:
        session.append_message(Message.user("two", [first, second]))
        folder = session.folder
    (folder / "images" / first.file_name).unlink()
    (folder / "images" / second.file_name).write_bytes(png(colour=(9, 9, 9)).data)
    (message,) = load_replay(folder).conversation
    assert not any(image.available for image in message.images)
    (sent,) = images_for_model([message], "claude-sonnet-4-5")
    assert sent.images == ()
    assert sent.text.count("missing from the session folder") == 2
    assert sent.text.startswith("two\n[image shot.png (64x32 PNG")


def test_a_model_without_vision_gets_notes_in_place_of_images() -> None:
    image = png()
    conversation = [Message.user("see", [image]), Message.tool("c1", "", images=(image,))]
    assert not supports_vision("o3-mini") and supports_vision("gpt-4.1") and supports_vision("some-local-model")
    assert images_for_model(conversation, "gpt-4.1") is conversation
    user, tool = images_for_model(conversation, "o3-mini")
    assert user.images == () and "cannot see images" in user.text
    assert tool.tool_result is not None and tool.tool_result.images == ()
    assert tool.tool_result.content == "[image shot.png (64x32 PNG, 1 KB) not shown: the current model cannot see images]"
