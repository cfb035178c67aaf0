"""Turning an image file into what a model may be sent: detected by content, fitted to the providers' limits.

Both providers take PNG, JPEG, GIF and WebP. Anthropic rejects images over
5 MB (of base64) or 8000 pixels a side and scales anything over about 1.15
megapixels down on its side anyway (paying for the upload, not for the
pixels); OpenAI scales to 2048 a side and 768 on the short side. So an image
is sent as it is when it is already within ``MAX_LONG_EDGE`` and
``MAX_PIXELS`` and under ``MAX_ENCODED_BYTES``: the bytes stay identical, which
keeps a replay byte-stable. Otherwise Pillow downscales it (Lanczos) and
re-encodes it, PNG for images with transparency or sharp UI edges (PNG/GIF
sources), JPEG at quality 85 for photographs, stepping down until it fits.

Pillow is imported on first use: the CLI start path never pays for it.
Decompression bombs (a tiny file that decodes to gigapixels) are refused
before decoding, as is any file over ``MAX_FILE_BYTES``.

A PNG whose ancillary chunk (``tEXt``, ``iTXt``, ``pHYs``...: the chunk type's
first letter lower case) has a wrong CRC is decoded as the APIs decode it:
they accept it, Pillow refuses it ("cannot identify image file"). Pillow's
only switch for that, ``ImageFile.LOAD_TRUNCATED_IMAGES``, is process-wide
and also accepts truncated pixel data, so instead the copy Pillow reads has
those CRCs recomputed (``_lenient_png``); the bytes sent stay the original
ones. A bad CRC on a critical chunk (``IHDR``, ``IDAT``...) still refuses it.
"""

from __future__ import annotations

import io
import os
import stat
import warnings
from pathlib import Path
from typing import Any

from pseudoclaude.llm import Image, sniff_media_type

MAX_LONG_EDGE = 1568
MAX_PIXELS = 1_150_000
MAX_ENCODED_BYTES = 3_750_000
"""Raw bytes whose base64 stays under Anthropic's 5 MB per image."""
MAX_FILE_BYTES = 50 * 1024 * 1024
MAX_DECODED_PIXELS = 100_000_000
JPEG_QUALITY = 85


class ImageError(ValueError):
    """An image that cannot be sent: not an image, unreadable, or too large to decode. The message says which."""


def is_image_bytes(data: bytes) -> bool:
    return sniff_media_type(data) is not None


def load_image_file(path: Path, name: str = "") -> Image:
    """The image at ``path``, fitted for sending; ``ImageError`` says why it cannot be."""
    label = name or str(path)
    try:
        info = os.stat(path)
    except OSError as error:
        raise ImageError(f"{label}: {error.strerror or error}") from error
    if not stat.S_ISREG(info.st_mode):
        raise ImageError(f"{label}: not a regular file")
    if info.st_size > MAX_FILE_BYTES:
        raise ImageError(f"{label}: {info.st_size:,} bytes is over the {MAX_FILE_BYTES // (1024 * 1024)} MB an image may be")
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ImageError(f"{label}: {error.strerror or error}") from error
    return fit_image(data, label)


def fit_image(data: bytes, name: str = "") -> Image:
    """``data`` as an ``Image`` within the limits above (unchanged when it already is)."""
    media_type = sniff_media_type(data)
    if media_type is None:
        raise ImageError(f"{name or 'data'}: not a PNG, JPEG, GIF or WebP image")
    picture = _open(data, name)
    width, height = picture.size
    if _fits(width, height) and len(data) <= MAX_ENCODED_BYTES:
        return Image(media_type, data, name, width, height)
    return _shrink(picture, media_type, name)


def _fits(width: int, height: int) -> bool:
    return max(width, height) <= MAX_LONG_EDGE and width * height <= MAX_PIXELS


def _open(data: bytes, name: str) -> Any:
    from PIL import Image as PILImage

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", PILImage.DecompressionBombWarning)
            picture = PILImage.open(io.BytesIO(_lenient_png(data)))
            width, height = picture.size
            if width * height > MAX_DECODED_PIXELS:
                raise ImageError(f"{name or 'image'}: {width}x{height} pixels is too large to decode")
            picture.load()
    except ImageError:
        raise
    except (PILImage.DecompressionBombWarning, PILImage.DecompressionBombError) as error:
        raise ImageError(f"{name or 'image'}: too large to decode ({error})") from error
    except (OSError, ValueError, SyntaxError) as error:
        raise ImageError(f"{name or 'image'}: cannot be decoded ({error})") from error
    return picture


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _lenient_png(data: bytes) -> bytes:
    """``data`` with the CRC of every ancillary PNG chunk made right (other data unchanged)."""
    if not data.startswith(_PNG_SIGNATURE):
        return data
    import zlib

    out = bytearray(data)
    at = len(_PNG_SIGNATURE)
    while at + 12 <= len(data):
        length = int.from_bytes(data[at : at + 4], "big")
        kind, end = data[at + 4 : at + 8], at + 8 + length
        if end + 4 > len(data):
            break
        if kind[:1].islower():
            out[end : end + 4] = zlib.crc32(data[at + 4 : end]).to_bytes(4, "big")
        if kind == b"IEND":
            break
        at = end + 4
    return bytes(out)


def _target_size(width: int, height: int, scale: float) -> tuple[int, int]:
    factor = min(1.0, MAX_LONG_EDGE / max(width, height), (MAX_PIXELS / (width * height)) ** 0.5) * scale
    return max(1, int(width * factor)), max(1, int(height * factor))


def _shrink(picture: Any, media_type: str, name: str) -> Image:
    from PIL import Image as PILImage

    lossless = media_type in ("image/png", "image/gif")
    width, height = picture.size
    frame = picture.convert("RGBA" if _has_alpha(picture) else "RGB")
    scale = 1.0
    while True:
        size = _target_size(width, height, scale)
        resized = frame.resize(size, PILImage.Resampling.LANCZOS)
        data, out_type = _encode(resized, lossless)
        if len(data) <= MAX_ENCODED_BYTES:
            return Image(out_type, data, name, size[0], size[1])
        if lossless:
            lossless = False
            continue
        if min(size) <= 64:
            raise ImageError(f"{name or 'image'}: cannot be made small enough to send")
        scale *= 0.75


def _has_alpha(picture: Any) -> bool:
    return picture.mode in ("RGBA", "LA", "PA") or (picture.mode == "P" and "transparency" in picture.info)


def _encode(picture: Any, lossless: bool) -> tuple[bytes, str]:
    from PIL import Image as PILImage

    out = io.BytesIO()
    if lossless:
        picture.save(out, format="PNG", optimize=True)
        return out.getvalue(), "image/png"
    if picture.mode == "RGBA":
        flat = PILImage.new("RGB", picture.size, (255, 255, 255))
        flat.paste(picture, mask=picture.getchannel("A"))
        picture = flat
    picture.save(out, format="JPEG", quality=JPEG_QUALITY, optimize=True)
    return out.getvalue(), "image/jpeg"
