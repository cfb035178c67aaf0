"""Stream-json image content blocks (``{"type": "image", "source": {"type": "base64", ...}}``) as fitted ``Image``s.

A ``user`` line is untrusted JSON: the block is checked field by field and a
block that cannot be sent is one ``ImageBlockError`` naming which and why, so
the driver refuses the prompt instead of sending it half-attached.
"""

from __future__ import annotations

import base64
import binascii

from pseudoclaude.llm import Image


class ImageBlockError(ValueError):
    """A stream-json image content block that cannot be sent; the message says which and why."""


def image_from_block(block: object, number: int) -> Image:
    """A stream-json ``{"type": "image", "source": {"type": "base64", ...}}`` block as an ``Image`` (fitted)."""
    from pseudoclaude.imaging import ImageError, fit_image

    label = f"image {number}"
    source = block.get("source") if isinstance(block, dict) else None
    if not isinstance(source, dict):
        raise ImageBlockError(f"{label}: an image block needs a 'source' object")
    if source.get("type") != "base64":
        raise ImageBlockError(f"{label}: only base64 image sources are supported, not {str(source.get('type'))!r}")
    data = source.get("data")
    if not isinstance(data, str) or not data:
        raise ImageBlockError(f"{label}: the source has no base64 'data'")
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as error:
        raise ImageBlockError(f"{label}: its data is not valid base64 ({error})") from None
    try:
        return fit_image(raw, label)
    except ImageError as error:
        raise ImageBlockError(str(error)) from None
