"""Image references in a typed prompt: which words are paths, which paths are images, and what is sent."""

from __future__ import annotations

import base64
import io
import os
from pathlib import Path

import pytest
from PIL import Image as PILImage

from pseudoclaude.imaging import MAX_LONG_EDGE
from pseudoclaude.headless.driver import user_prompt
from pseudoclaude.headless.image_block import ImageBlockError, image_from_block
from pseudoclaude.tui.prompt_images import attach_prompt_images, find_path_refs, image_lines, load_image_options


def png(width: int = 40, height: int = 30, color: str = "red") -> bytes:
    out = io.BytesIO()
    PILImage.new("RGB", (width, height), color).save(out, format="PNG")
    return out.getvalue()


def refs(text: str) -> list[tuple[str, bool, str]]:
    return [(ref.path, ref.mention, text[ref.start : ref.end]) for ref in find_path_refs(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("what is wrong in @shot.png?", [("shot.png", True, "@shot.png")]),
        ('see @"my shot.png" please', [("my shot.png", True, '@"my shot.png"')]),
        ("see '/home/u/with space.png' now", [("/home/u/with space.png", False, "'/home/u/with space.png'")]),
        ('"/home/u/with space.png"', [("/home/u/with space.png", False, '"/home/u/with space.png"')]),
        (r"/home/u/with\ space.png", [("/home/u/with space.png", False, r"/home/u/with\ space.png")]),
        ("/home/u/shot.png", [("/home/u/shot.png", False, "/home/u/shot.png")]),
        ("compare /a/one.png and ~/two.png.", [("/a/one.png", False, "/a/one.png"), ("~/two.png", False, "~/two.png")]),
        ("(see ./ui/shot.png)", [("./ui/shot.png", False, "./ui/shot.png")]),
        ("file:///tmp/a%20b.png", [("/tmp/a b.png", False, "file:///tmp/a%20b.png")]),
    ],
)
def test_paths_are_found_as_terminals_paste_them(text: str, expected: list[tuple[str, bool, str]]) -> None:
    assert refs(text) == expected


@pytest.mark.parametrize("text", ["see https://example.com/a.png", "read and/or write", "it's 3/4 done", "mail me@host.png", "`/tmp/code.png`"])
def test_words_that_are_not_paths_are_left_alone(text: str) -> None:
    assert refs(text) == []


def test_a_mentioned_image_is_attached_and_named_in_the_text(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(png())
    attached = attach_prompt_images("why is @shot.png red?", tmp_path)
    assert attached.error == ""
    assert attached.text == "why is [image 1: shot.png] red?"
    [image] = attached.images
    assert (image.media_type, image.width, image.height, image.name) == ("image/png", 40, 30, "shot.png")
    assert image.data == (tmp_path / "shot.png").read_bytes()


def test_an_image_is_detected_by_content_not_by_name(tmp_path: Path) -> None:
    (tmp_path / "capture.dat").write_bytes(png())
    (tmp_path / "notes.txt").write_text("plain words\n")
    attached = attach_prompt_images("@capture.dat and @notes.txt", tmp_path)
    assert attached.text == "[image 1: capture.dat] and @notes.txt"
    assert len(attached.images) == 1


def test_a_pasted_path_with_spaces_outside_the_workspace_is_attached(tmp_path: Path) -> None:
    outside = tmp_path / "Desktop" / "Screen Shot 1.png"
    outside.parent.mkdir()
    outside.write_bytes(png(color="blue"))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    for pasted in (f"'{outside}'", str(outside).replace(" ", "\\ ")):
        attached = attach_prompt_images(f"the button here {pasted} is misaligned", workspace)
        assert attached.text == "the button here [image 1: Screen Shot 1.png] is misaligned"
        assert [i.name for i in attached.images] == ["Screen Shot 1.png"]


def test_the_same_image_twice_is_sent_once(tmp_path: Path) -> None:
    (tmp_path / "a.png").write_bytes(png())
    attached = attach_prompt_images(f"@a.png vs {tmp_path / 'a.png'}", tmp_path)
    assert attached.text == "[image 1: a.png] vs [image 1: a.png]"
    assert len(attached.images) == 1


def test_a_bare_path_to_a_text_file_or_nowhere_stays_words(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    text = f"look at {tmp_path / 'notes.txt'} and /no/such/file.png"
    assert attach_prompt_images(text, tmp_path).text == text
    assert attach_prompt_images(text, tmp_path).images == ()


@pytest.mark.parametrize(
    ("setup", "text", "message"),
    [
        (lambda p: None, "@missing.png", "@missing.png: no such file"),
        (lambda p: (p / "fake.png").write_text("not an image"), "@fake.png", "@fake.png: not a PNG, JPEG, GIF or WebP image"),
        (lambda p: (p / "broken.png").write_bytes(png()[:40]), "@broken.png", "broken.png: cannot be decoded"),
    ],
)
def test_a_mention_that_cannot_be_sent_refuses_the_prompt_with_one_line(tmp_path: Path, setup: object, text: str, message: str) -> None:
    setup(tmp_path)  # type: ignore[operator]
    attached = attach_prompt_images(f"please {text}", tmp_path)
    assert message in attached.error and "\n" not in attached.error
    assert attached.images == ()


def test_an_unreadable_image_refuses_the_prompt(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    locked = tmp_path / "locked.png"
    locked.write_bytes(png())
    locked.chmod(0)
    assert "locked.png" in attach_prompt_images("@locked.png", tmp_path).error


def test_a_large_screenshot_is_downscaled_and_its_line_says_so(tmp_path: Path) -> None:
    (tmp_path / "big.png").write_bytes(png(3000, 1500))
    [image] = attach_prompt_images("@big.png", tmp_path).images
    assert max(image.width, image.height) <= MAX_LONG_EDGE
    [line] = image_lines([image])
    assert line.startswith("  ▣ [image 1] big.png (") and f"{image.width}x{image.height} PNG" in line


def test_image_options_load_each_file_and_name_a_bad_one(tmp_path: Path) -> None:
    (tmp_path / "a.png").write_bytes(png())
    (tmp_path / "b.txt").write_text("text")
    assert [i.width for i in load_image_options([str(tmp_path / "a.png")])] == [40]
    from pseudoclaude.imaging import ImageError

    with pytest.raises(ImageError, match="b.txt: not a PNG"):
        load_image_options([str(tmp_path / "a.png"), str(tmp_path / "b.txt")])


def test_a_stream_json_image_block_is_decoded_and_fitted() -> None:
    data = base64.b64encode(png(20, 10)).decode()
    image = image_from_block({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}, 1)
    assert (image.width, image.height, image.media_type) == (20, 10, "image/png")


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ({"type": "base64", "media_type": "image/png", "data": "@@not base64@@"}, "not valid base64"),
        ({"type": "base64", "media_type": "image/png", "data": base64.b64encode(b"hello").decode()}, "not a PNG, JPEG"),
        ({"type": "url", "url": "https://example.com/a.png"}, "only base64 image sources"),
        ({"type": "base64", "media_type": "image/png"}, "no base64 'data'"),
    ],
)
def test_a_bad_image_block_is_a_clear_error(source: dict[str, str], message: str) -> None:
    with pytest.raises(ImageBlockError, match=message):
        image_from_block({"type": "image", "source": source}, 2)


def test_a_user_line_with_text_and_images_becomes_one_prompt() -> None:
    data = base64.b64encode(png()).decode()
    content = [{"type": "text", "text": "what is this?"}, {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}]
    prompt = user_prompt({"role": "user", "content": content})
    assert prompt is not None and prompt.text == "what is this?" and len(prompt.images) == 1 and prompt.error == ""
    alone = user_prompt({"role": "user", "content": content[1:]})
    assert alone is not None and alone.text == "" and len(alone.images) == 1
    bad = user_prompt({"role": "user", "content": [content[0], {"type": "image", "source": {"type": "base64", "data": "!!"}}]})
    assert bad is not None and "image 1: its data is not valid base64" in bad.error
    assert user_prompt({"role": "user", "content": []}) is None


def test_mentions_images_looks_without_decoding(tmp_path: Path) -> None:
    from pseudoclaude.tui.prompt_images import mentions_images

    (tmp_path / "a.png").write_bytes(png()[:30])
    (tmp_path / "notes.txt").write_text("x")
    assert mentions_images("see @a.png", tmp_path)
    assert mentions_images("see @missing.webp", tmp_path)
    assert mentions_images(f"see {tmp_path / 'a.png'}", tmp_path)
    assert not mentions_images(f"see @notes.txt and {tmp_path / 'notes.txt'} and /no/such.png", tmp_path)


def test_a_model_without_vision_is_named_when_images_are_attached() -> None:
    from pseudoclaude.tui.prompt_images import vision_notice

    assert vision_notice("claude-sonnet-4-5") == "" and vision_notice("gpt-4.1") == "" and vision_notice("llama3.2:3b") == ""
    assert vision_notice("gpt-3.5-turbo").startswith("gpt-3.5-turbo cannot see images")
