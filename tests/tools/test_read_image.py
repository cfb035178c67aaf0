"""read_file of an image: known by its content, sent as an image fitted to the limits, a note for a model without vision."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from PIL import Image as PILImage

from pseudoclaude.imaging import MAX_ENCODED_BYTES, MAX_LONG_EDGE, MAX_PIXELS
from pseudoclaude.tools import ToolContext, ToolError
from pseudoclaude.tools.read_file import ReadFileTool

from .conftest import Call

read = ReadFileTool()


def picture(width: int, height: int, kind: str = "PNG") -> bytes:
    image = PILImage.new("RGB", (width, height))
    image.putdata([((x * 7) % 256, (y * 5) % 256, (x * y) % 256) for y in range(height) for x in range(width)])
    out = io.BytesIO()
    image.save(out, format=kind)
    return out.getvalue()


def test_a_png_comes_back_as_the_same_bytes_named_in_one_line(call: Call, workspace: Path) -> None:
    data = picture(64, 48)
    (workspace / "shot.png").write_bytes(data)
    out = call(read, path="shot.png")
    assert not out.is_error
    [image] = out.images
    assert (image.media_type, image.width, image.height, image.data, image.name) == ("image/png", 64, 48, data, "shot.png")
    assert out.content == f"Image {image.describe()}\n" and out.content.startswith("Image shot.png (64x48 PNG, ")
    assert "\n" not in out.content.rstrip("\n")


def test_a_screenshot_without_an_extension_is_an_image_and_a_jpeg_keeps_its_type(call: Call, workspace: Path) -> None:
    (workspace / "capture").write_bytes(picture(40, 30, "JPEG"))
    [image] = call(read, path="capture").images
    assert (image.media_type, image.width, image.height) == ("image/jpeg", 40, 30)


def test_a_4000_by_3000_png_is_downscaled_under_the_limits_and_says_so(call: Call, workspace: Path) -> None:
    PILImage.linear_gradient("L").resize((4000, 3000)).convert("RGB").save(workspace / "huge.png")
    size = (workspace / "huge.png").stat().st_size
    out = call(read, path="huge.png")
    [image] = out.images
    assert max(image.width, image.height) <= MAX_LONG_EDGE and image.width * image.height <= MAX_PIXELS
    assert len(image.data) <= MAX_ENCODED_BYTES
    assert abs(image.width / image.height - 4 / 3) < 0.01
    assert f"downscaled from 4000x3000 PNG ({size:,} bytes)" in out.content
    assert PILImage.open(io.BytesIO(image.data)).size == (image.width, image.height)


def test_a_text_file_named_png_stays_text(call: Call, workspace: Path) -> None:
    (workspace / "fake.png").write_text("not an image\n")
    out = call(read, path="fake.png")
    assert out.images == () and out.content.startswith("     1\tnot an image\n")


def test_a_model_without_vision_is_told_what_the_image_is_and_sent_none(call: Call, ctx: ToolContext, workspace: Path) -> None:
    (workspace / "shot.png").write_bytes(picture(64, 48))
    call.context = ctx.at(vision=False)
    out = call(read, path="shot.png")
    assert out.images == () and not out.is_error
    assert out.content.startswith("shot.png is a 64x48 PNG image (") and "the current model cannot see images" in out.content


def test_a_corrupt_image_is_a_clear_error(call: Call, workspace: Path) -> None:
    (workspace / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 100)
    with pytest.raises(ToolError, match=r"broken.png looks like a PNG image but cannot be sent: cannot be decoded"):
        call(read, path="broken.png")


def test_an_image_outside_the_workspace_is_refused_like_any_file(call: Call, workspace: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.png").write_bytes(picture(8, 8))
    with pytest.raises(ToolError, match="outside"):
        call(read, path=str(tmp_path / "outside.png"))


def test_reading_an_image_allows_writing_over_it_later(call: Call, ctx: ToolContext, workspace: Path) -> None:
    (workspace / "shot.png").write_bytes(picture(8, 8))
    call(read, path="shot.png")
    assert (workspace / "shot.png").resolve() in ctx.file_stamps


def test_a_png_too_heavy_at_its_size_is_re_encoded_and_says_so(call: Call, workspace: Path) -> None:
    PILImage.frombytes("RGBA", (1500, 760), os.urandom(1500 * 760 * 4)).save(workspace / "noise.png")
    size = (workspace / "noise.png").stat().st_size
    assert size > MAX_ENCODED_BYTES
    out = call(read, path="noise.png")
    [image] = out.images
    assert len(image.data) <= MAX_ENCODED_BYTES and (image.width, image.height) == (1500, 760)
    assert f"re-encoded from PNG ({size:,} bytes) to fit the model's image limits" in out.content


def test_the_file_an_image_note_names_can_be_read_again(call: Call, tmp_path: Path) -> None:
    """Offloaded images become notes naming <session>/images/<sha>.png; the model may read it back, and nothing beside it."""
    data = picture(32, 32)
    stored = tmp_path / "images" / "0123abcd.png"
    stored.parent.mkdir()
    stored.write_bytes(data)
    [image] = call(read, path=str(stored)).images
    assert image.data == data
    (tmp_path / "secret.txt").write_text("not the session's images")
    with pytest.raises(ToolError):
        call(read, path=str(tmp_path / "secret.txt"))
