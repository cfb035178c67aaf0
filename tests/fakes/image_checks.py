"""Image checks and image token counts of the fake servers, as the real services make them.

Both services take PNG, JPEG, GIF and WebP as base64. What each refuses (with
the wording its 400 uses):

* **Anthropic** (``image`` blocks with a ``base64`` source): a media type
  outside the four; data that is not base64; decoded bytes of another type
  than declared ("Image does not match the provided media type image/png");
  base64 over 5 MB ("image exceeds 5 MB maximum: N bytes > 5242880 bytes");
  a side over 8000 pixels, or over 2000 in a request with more than 20 images;
  more than 100 images in a request (wording approximated), and (the server)
  a body over 32 MB: 413 ``request_too_large``.
* **OpenAI** (``image_url`` parts, ``input_image`` parts): a ``data:`` URL
  that is not ``data:<image type>;base64,...``, bytes that are not an image
  ("You uploaded an unsupported image. Please make sure your image is
  valid.", ``image_parse_error``), a declared type the bytes do not match
  (stricter than the service, which sniffs; a mismatch is always an adapter
  bug), decoded bytes over 20 MB.

Both accept a PNG whose ancillary chunk (``tEXt``...) has a wrong CRC, which
Pillow refuses: ``identify`` reads such a file with those chunks left out.
The type is read by Pillow from the bytes (never from the product's own
sniffing, so a bug there cannot hide here). Token counts follow what the
providers publish: Anthropic about ``width * height / 750`` of the image as
the service resizes it (long edge 1568, about 1.15 megapixels); OpenAI 85
plus 170 per 512-pixel tile after fitting 2048 square and 768 on the short
side (``detail: low``: 85).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import math
import re
import warnings
from typing import Any

MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
PILLOW_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}
ANTHROPIC_MAX_BASE64 = 5 * 1024 * 1024
ANTHROPIC_MAX_SIDE = 8000
ANTHROPIC_MANY_IMAGES = 20
ANTHROPIC_MAX_IMAGES = 100
ANTHROPIC_MAX_REQUEST_BYTES = 32 * 1024 * 1024
ANTHROPIC_MANY_MAX_SIDE = 2000
OPENAI_MAX_BYTES = 20 * 1024 * 1024
DATA_URL = re.compile(r"^data:([^;,]+);base64,(.*)$", re.DOTALL)


def decode(data: str) -> bytes | None:
    """The bytes of strict base64 ``data``, or None when it is not base64."""
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None


def identify(raw: bytes) -> tuple[str, int, int] | None:
    """(media type, width, height) Pillow reads from ``raw``'s header, or None when it is none of the four."""
    found = _identify(raw)
    if found is None and raw.startswith(b"\x89PNG\r\n\x1a\n"):
        return _identify(_without_ancillary_chunks(raw))
    return found


def _without_ancillary_chunks(raw: bytes) -> bytes:
    kept, at = [raw[:8]], 8
    while at + 12 <= len(raw):
        end = at + 12 + int.from_bytes(raw[at : at + 4], "big")
        if not raw[at + 4 : at + 5].islower():
            kept.append(raw[at:end])
        at = end
    return b"".join(kept)


def _identify(raw: bytes) -> tuple[str, int, int] | None:
    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with Image.open(io.BytesIO(raw)) as image:
                media_type = PILLOW_FORMATS.get(str(image.format))
                width, height = image.size
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        return None
    return (media_type, width, height) if media_type else None


def anthropic_image_count(body: Any) -> int:
    """How many ``image`` blocks ``body`` holds (user turns and tool results)."""
    return sum(1 for _ in _anthropic_images(body))


def _anthropic_images(value: Any) -> Any:
    if isinstance(value, dict):
        if value.get("type") == "image":
            yield value
        for item in value.values():
            yield from _anthropic_images(item)
    elif isinstance(value, list):
        for item in value:
            yield from _anthropic_images(item)


def anthropic_image_problem(where: str, block: Any, max_side: int) -> str | None:
    """What the Messages API answers for the ``image`` block at ``where`` (``messages.2.content.0``), or None."""
    source = block.get("source") if isinstance(block, dict) else None
    if not isinstance(source, dict):
        return f"{where}.image.source: Field required"
    if source.get("type") != "base64":
        return f"{where}.image.source: Input tag {source.get('type')!r} found using 'type' does not match any of the expected tags: 'base64', 'url', 'file'"
    media_type, data = source.get("media_type"), source.get("data")
    if media_type not in MEDIA_TYPES:
        return f"{where}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"
    if not isinstance(data, str) or not data:
        return f"{where}.image.source.base64.data: Field required"
    if len(data) > ANTHROPIC_MAX_BASE64:
        return f"{where}.image.source.base64: image exceeds 5 MB maximum: {len(data)} bytes > {ANTHROPIC_MAX_BASE64} bytes"
    raw = decode(data)
    if raw is None:
        return f"{where}.image.source.base64.data: Invalid base64 data"
    found = identify(raw)
    if found is None:
        return f"{where}.image.source.base64.data: Could not process image"
    if found[0] != media_type:
        return f"{where}.image.source.base64.data: Image does not match the provided media type {media_type}"
    if max(found[1], found[2]) > max_side:
        many = " for many-image requests" if max_side < ANTHROPIC_MAX_SIDE else ""
        return f"{where}.image.source.base64.data: At least one of the image dimensions exceed max allowed size{many}: {max_side} pixels"
    return None


def openai_data_url_problem(url: Any) -> tuple[str, str] | None:
    """(message, code) of the 400 OpenAI answers for an image URL, or None. Only ``data:`` URLs are
    accepted here: the agent never sends a remote URL, so any other is a bug."""
    if not isinstance(url, str):
        return "Invalid type for 'image_url': expected a string.", "invalid_type"
    match = DATA_URL.match(url)
    if match is None:
        return "Invalid image URL: expected a base64 data URL ('data:image/png;base64,...').", "invalid_image_url"
    media_type, data = match.group(1), match.group(2)
    if media_type not in MEDIA_TYPES:
        return _unsupported(), "invalid_image_format"
    raw = decode(data)
    if raw is None:
        return "Invalid base64 image_url.", "invalid_base64"
    if len(raw) > OPENAI_MAX_BYTES:
        return "You uploaded an unsupported image. Please make sure your image is below 20 MB in size.", "image_too_large"
    found = identify(raw)
    if found is None:
        return "You uploaded an unsupported image. Please make sure your image is valid.", "image_parse_error"
    if found[0] != media_type:
        return f"The image data does not match the declared media type {media_type}.", "invalid_image_format"
    return None


def _unsupported() -> str:
    return "You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp']."


def anthropic_tokens(width: int, height: int) -> int:
    """Anthropic's published count, of the image as the service resizes it (long edge 1568, ~1.15 MP)."""
    scale = min(1.0, 1568 / max(width, height, 1), math.sqrt(1_150_000 / max(1, width * height)))
    return max(1, math.ceil((width * scale) * (height * scale) / 750))


def openai_tokens(width: int, height: int, detail: str = "high") -> int:
    """OpenAI's published count: 85 (low detail), else 85 + 170 per 512-pixel tile of the fitted image."""
    if detail == "low" or width <= 0 or height <= 0:
        return 85
    scale = min(1.0, 2048 / max(width, height))
    w, h = width * scale, height * scale
    scale = min(1.0, 768 / min(w, h))
    return 85 + 170 * math.ceil(w * scale / 512) * math.ceil(h * scale / 512)


def strip_images(value: Any) -> tuple[Any, int]:
    """(``value`` with every image's base64 replaced by its SHA-256, the images' tokens).

    The fakes count text as JSON bytes / 4; an image is billed by its pixels,
    not by the length of its base64, so token counts and cache prefixes use this.
    A neutral image (``Image.to_dict``, in the in-process provider's bodies) is
    billed by its pixels too, at Anthropic's rate.
    """
    if isinstance(value, list):
        pairs = [strip_images(item) for item in value]
        return [item for item, _ in pairs], sum(tokens for _, tokens in pairs)
    if not isinstance(value, dict):
        return value, 0
    kind = value.get("type")
    if kind == "image" and isinstance(value.get("source"), dict) and isinstance(value["source"].get("data"), str):
        data = value["source"]["data"]
        return {**value, "source": {**value["source"], "data": _digest(data)}}, _cost(data, "anthropic", "high")
    if kind == "image_url" and isinstance(value.get("image_url"), dict) and isinstance(value["image_url"].get("url"), str):
        url, detail = value["image_url"]["url"], str(value["image_url"].get("detail") or "high")
        return {**value, "image_url": {**value["image_url"], "url": _digest(url)}}, _url_cost(url, detail)
    if kind == "input_image" and isinstance(value.get("image_url"), str):
        url, detail = value["image_url"], str(value.get("detail") or "high")
        return {**value, "image_url": _digest(url)}, _url_cost(url, detail)
    if _is_neutral_image(value):
        return value, anthropic_tokens(int(value["width"]), int(value["height"]))
    out: dict[str, Any] = {}
    total = 0
    for key, item in value.items():
        out[key], tokens = strip_images(item)
        total += tokens
    return out, total


def _is_neutral_image(value: dict[str, Any]) -> bool:
    """An image as ``Image.to_dict`` names it (the in-process ``ScriptedProvider``'s bodies): billed by its pixels."""
    return (
        value.get("media_type") in MEDIA_TYPES
        and isinstance(value.get("sha256"), str)
        and isinstance(value.get("width"), int)
        and isinstance(value.get("height"), int)
        and value["width"] > 0
        and value["height"] > 0
    )


def _digest(data: str) -> str:
    return "sha256:" + hashlib.sha256(data.encode("ascii", "replace")).hexdigest()


def _url_cost(url: str, detail: str) -> int:
    match = DATA_URL.match(url)
    return _cost(match.group(2), "openai", detail) if match else 85


def _cost(data: str, provider: str, detail: str) -> int:
    raw = decode(data)
    found = identify(raw) if raw is not None else None
    if found is None:
        return 0
    if provider == "anthropic":
        return anthropic_tokens(found[1], found[2])
    return openai_tokens(found[1], found[2], "low" if detail == "low" else "high")
