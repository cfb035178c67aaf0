"""Images in sessions: bytes kept under images/, replayed byte-identically, missing or tampered files become notes."""

from __future__ import annotations

import io
import json
import stat
from pathlib import Path

from PIL import Image as Picture

from pseudoclaude.llm import Image, images_for_model
from pseudoclaude.llm.messages import Message, ToolCall
from pseudoclaude.session import FORMAT_VERSION, create_session, fork_session, load_replay

MODEL = "claude-sonnet-4-5"


def picture(n: int, width: int = 64, height: int = 48, kind: str = "PNG") -> Image:
    out = io.BytesIO()
    Picture.new("RGB", (width, height), (n * 40 % 256, 120, n * 9 % 256)).save(out, kind)
    media = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp", "GIF": "image/gif"}[kind]
    return Image(media, out.getvalue(), f"shot{n}.{kind.lower()}", width, height)


ATTACHED = picture(1)
READ = picture(2, 120, 80, "JPEG")


def conversation() -> list[Message]:
    return [
        Message.user("what is wrong with this button?", [ATTACHED]),
        Message.assistant("let me look at the other one", [ToolCall("c1", "read_file", '{"path": "b.jpg"}')]),
        Message.tool("c1", "Image b.jpg", images=(READ,)),
        Message.assistant("the padding differs"),
    ]


def recorded(sessions_dir: Path, workspace: Path) -> Path:
    with create_session(sessions_dir, workspace, model=MODEL, provider="anthropic") as session:
        for message in conversation():
            session.append_message(message)
        return session.folder


def test_a_session_keeps_image_bytes_in_files_named_by_hash_not_in_the_jsonl(sessions_dir: Path, workspace: Path) -> None:
    folder = recorded(sessions_dir, workspace)
    text = (folder / "session.jsonl").read_text()
    assert ATTACHED.sha256 in text and READ.sha256 in text
    assert "base64" not in text and len(text) < 4_000
    for image in (ATTACHED, READ):
        path = folder / "images" / image.file_name
        assert path.read_bytes() == image.data and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE((folder / "images").stat().st_mode) == 0o700
    assert json.loads(text.splitlines()[1])["version"] == FORMAT_VERSION == "1.6"


def test_a_replayed_session_has_the_very_same_image_bytes(sessions_dir: Path, workspace: Path) -> None:
    replay = load_replay(recorded(sessions_dir, workspace))
    assert list(replay.conversation) == conversation() and not replay.warnings
    assert replay.conversation[0].images[0].data == ATTACHED.data
    assert replay.conversation[2].all_images()[0].data == READ.data
    assert images_for_model(replay.conversation, MODEL) is replay.conversation, "nothing to replace: the same bytes are sent"


def test_a_deleted_image_file_resumes_with_a_note(sessions_dir: Path, workspace: Path) -> None:
    folder = recorded(sessions_dir, workspace)
    (folder / "images" / READ.file_name).unlink()
    replay = load_replay(folder)
    image = replay.conversation[2].all_images()[0]
    assert not image.available and image.sha256 == READ.sha256 and image.name == "shot2.jpeg"
    sent = images_for_model(replay.conversation, MODEL)
    result = sent[2].tool_result
    assert result is not None and result.images == ()
    assert result.content == "Image b.jpg\n[image shot2.jpeg (120x80 JPG) not shown: its bytes are missing from the session folder]"
    assert sent[0].images[0].data == ATTACHED.data, "the other image is still sent"


def test_a_tampered_image_file_is_treated_as_missing(sessions_dir: Path, workspace: Path) -> None:
    folder = recorded(sessions_dir, workspace)
    (folder / "images" / ATTACHED.file_name).write_bytes(picture(7).data)
    replay = load_replay(folder)
    assert not replay.conversation[0].images[0].available
    assert "its bytes are missing" in images_for_model(replay.conversation, MODEL)[0].text


def test_a_live_session_writes_a_damaged_image_file_again(sessions_dir: Path, workspace: Path) -> None:
    with create_session(sessions_dir, workspace, model=MODEL, provider="anthropic") as session:
        session.append_message(Message.user("one", [ATTACHED]))
        (session.folder / "images" / ATTACHED.file_name).write_bytes(b"truncated")
        session.append_message(Message.user("same picture again", [ATTACHED]))
        assert session.keep_image(ATTACHED) == (session.folder / "images" / ATTACHED.file_name).absolute()
        folder = session.folder
    assert (folder / "images" / ATTACHED.file_name).read_bytes() == ATTACHED.data
    assert load_replay(folder).conversation[1].images[0].data == ATTACHED.data


def test_a_torn_line_naming_an_image_is_skipped_like_any_torn_line(sessions_dir: Path, workspace: Path) -> None:
    folder = recorded(sessions_dir, workspace)
    late = picture(9)
    with create_session(sessions_dir, workspace, model=MODEL, provider="anthropic") as other:
        other.append_message(Message.user("late", [late]))
        torn = other.jsonl_path.read_bytes().splitlines(keepends=True)[-1][:-40]
        (folder / "images" / late.file_name).write_bytes(late.data)
    with open(folder / "session.jsonl", "ab") as handle:
        handle.write(torn)
    replay = load_replay(folder)
    assert list(replay.conversation) == conversation()
    assert replay.skipped_lines == 1 and "incomplete entry" in replay.warnings[0]


def test_a_replacement_that_dropped_images_replays_and_stays_dropped(sessions_dir: Path, workspace: Path) -> None:
    with create_session(sessions_dir, workspace, model=MODEL, provider="anthropic") as session:
        for message in conversation():
            session.append_message(message)
        spill = session.write_spill("c1", "Image b.jpg")
        session.append_replacement("c1", "preview", layer="offload", original_bytes=11, path=str(spill))
        session.append_replacement("c1", "preview\n[image note]", layer="shrink", original_bytes=11, resets_anchor=True, drops_images=True)
        session.append_replacement("c1", "cleared\n[image note]", layer="clear", original_bytes=11, resets_anchor=True)
        folder = session.folder
    lines = [json.loads(line) for line in (folder / "session.jsonl").read_bytes().splitlines()]
    assert [line.get("drops_images") for line in lines if line["type"] == "replacement"] == [None, True, None]
    replay = load_replay(folder)
    assert replay.images_dropped() == frozenset({"c1"})
    replacement = replay.replacements["c1"]
    assert replacement.preview == "cleared\n[image note]" and replacement.drops_images
    assert replacement.path == str(spill), "the spill file of the earlier preview is still named"


def test_a_fork_carries_the_images(sessions_dir: Path, workspace: Path) -> None:
    folder = recorded(sessions_dir, workspace)
    new_id = fork_session(sessions_dir, workspace, folder.name)
    replay = load_replay(folder.parent / new_id)
    assert replay.conversation[2].all_images()[0].data == READ.data
    assert stat.S_IMODE((folder.parent / new_id / "images" / READ.file_name).stat().st_mode) == 0o600
