"""Fitting image files to what the providers accept: detection by content, downscaling, refusals with reasons."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from PIL import Image as PILImage

from pseudoclaude.imaging import MAX_ENCODED_BYTES, MAX_LONG_EDGE, MAX_PIXELS, ImageError, fit_image, load_image_file


def encoded(size: tuple[int, int], fmt: str, mode: str = "RGB", noise: bool = False) -> bytes:
    picture = PILImage.new(mode, size, (30, 120, 200) if mode == "RGB" else (30, 120, 200, 128))
    if noise:
        picture = PILImage.frombytes(mode, size, os.urandom(size[0] * size[1] * len(mode)))
    out = io.BytesIO()
    picture.save(out, format=fmt)
    return out.getvalue()


@pytest.mark.parametrize(("fmt", "media_type"), [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("GIF", "image/gif"), ("WEBP", "image/webp")])
def test_a_small_image_is_sent_byte_for_byte(fmt: str, media_type: str) -> None:
    data = encoded((320, 200), fmt)
    image = fit_image(data, "shot")
    assert (image.media_type, image.width, image.height) == (media_type, 320, 200)
    assert image.data == data


def test_the_type_comes_from_the_content_not_the_name(tmp_path: Path) -> None:
    disguised = tmp_path / "notes.txt"
    disguised.write_bytes(encoded((10, 10), "PNG"))
    assert load_image_file(disguised).media_type == "image/png"
    fake = tmp_path / "fake.png"
    fake.write_text("just text")
    with pytest.raises(ImageError, match="not a PNG, JPEG, GIF or WebP"):
        load_image_file(fake)


def test_a_large_screenshot_is_downscaled_within_every_limit() -> None:
    image = fit_image(encoded((4000, 3000), "PNG"), "big.png")
    assert max(image.width, image.height) <= MAX_LONG_EDGE
    assert image.width * image.height <= MAX_PIXELS
    assert abs(image.width / image.height - 4000 / 3000) < 0.01
    assert image.media_type == "image/png"
    assert PILImage.open(io.BytesIO(image.data)).size == (image.width, image.height)


def test_an_image_too_heavy_as_png_is_sent_as_jpeg_under_the_byte_limit() -> None:
    image = fit_image(encoded((1500, 1000), "PNG", mode="RGBA", noise=True), "noise.png")
    assert len(image.data) <= MAX_ENCODED_BYTES
    assert image.media_type == "image/jpeg"


def test_transparency_survives_a_downscale_as_png() -> None:
    image = fit_image(encoded((3000, 100), "PNG", mode="RGBA"), "banner.png")
    assert image.media_type == "image/png"
    assert PILImage.open(io.BytesIO(image.data)).mode == "RGBA"


def test_a_decompression_bomb_is_refused_before_decoding() -> None:
    header = encoded((20_000, 20_000), "PNG")  # tiny file, 400 megapixels once decoded
    with pytest.raises(ImageError, match="too large to decode"):
        fit_image(header, "bomb.png")


def test_a_truncated_image_is_a_clear_error() -> None:
    data = encoded((400, 400), "JPEG", noise=True)
    with pytest.raises(ImageError, match="cannot be decoded"):
        fit_image(data[: len(data) // 3], "cut.jpg")


def test_special_and_missing_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ImageError, match="not a regular file"):
        load_image_file(tmp_path)
    with pytest.raises(ImageError, match="No such file"):
        load_image_file(tmp_path / "gone.png")


def png_with_text_chunk(*, bad_crc: bool) -> bytes:
    """A real PNG with a text chunk right after IHDR (before IDAT, where Pillow checks every CRC)."""
    import struct
    import zlib

    data = encoded((40, 30), "PNG")
    body = b"Comment\x00made by a camera"
    crc = zlib.crc32(b"tEXt" + body) ^ (0xDEAD if bad_crc else 0)
    chunk = struct.pack(">I", len(body)) + b"tEXt" + body + struct.pack(">I", crc & 0xFFFFFFFF)
    after_ihdr = 8 + 25
    return data[:after_ihdr] + chunk + data[after_ihdr:]


def test_a_png_whose_ancillary_chunk_has_a_bad_crc_is_sent_as_it_is() -> None:
    data = png_with_text_chunk(bad_crc=True)
    with pytest.raises(PILImage.UnidentifiedImageError):
        PILImage.open(io.BytesIO(data))  # Pillow alone refuses it; the APIs accept it
    image = fit_image(data, "camera")
    assert (image.media_type, image.width, image.height) == ("image/png", 40, 30)
    assert image.data == data


def test_a_png_whose_critical_chunk_has_a_bad_crc_is_still_refused() -> None:
    data = bytearray(encoded((40, 30), "PNG"))
    data[29] ^= 0xFF  # the IHDR chunk's CRC
    with pytest.raises(ImageError, match="cannot be decoded"):
        fit_image(bytes(data), "broken")
