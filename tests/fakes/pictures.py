"""Test images made with Pillow on the fly (no binary files in the repository).

``noisy`` images barely compress, so their base64 is far longer than what
they cost in tokens: a fake that counted base64 as text would be caught.
"""

from __future__ import annotations

import io
import random

from pseudoclaude.llm import Image


def picture_bytes(width: int = 64, height: int = 48, fmt: str = "PNG", *, noisy: bool = False, seed: int = 7) -> bytes:
    from PIL import Image as PILImage

    if noisy:
        rng = random.Random(seed)
        canvas = PILImage.frombytes("RGB", (width, height), bytes(rng.getrandbits(8) for _ in range(width * height * 3)))
    else:
        canvas = PILImage.new("RGB", (width, height), (30, 120, 200))
    out = io.BytesIO()
    canvas.save(out, format=fmt)
    return out.getvalue()


MEDIA = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}


def picture(name: str = "shot.png", width: int = 64, height: int = 48, fmt: str = "PNG", *, noisy: bool = False, seed: int = 7) -> Image:
    """An ``Image`` as the product sends it: real bytes of ``fmt``, named, with its dimensions."""
    data = picture_bytes(width, height, fmt, noisy=noisy, seed=seed)
    return Image(MEDIA[fmt], data, name, width, height)


def missing(name: str = "gone.png", width: int = 640, height: int = 480) -> Image:
    """An image a resumed session names but whose bytes are not in its folder."""
    return Image("image/png", b"", name, width, height, sha256="ab" * 32)
