"""Images in the neutral conversation: what the model may look at, and what it costs.

An ``Image`` rides on a user message (an attached screenshot) or on a tool
result (``read_file`` of a PNG). It holds the exact bytes that are sent (already
fitted to the providers' limits by ``pseudoclaude.imaging``), so a replayed
session re-sends the same bytes and the prompt cache still matches. Sessions
never inline the bytes: ``to_dict`` names the image by its SHA-256 and the
session folder keeps the bytes under ``images/`` (``session.store``).

Three rules every adapter applies through ``images_for_model``: a model whose
table row says it has no vision gets a text note instead of the image; an image
whose bytes could not be loaded (a session folder missing the file) becomes a
note too; the note names the image so the model can still reason about it.

Token costs follow what the providers publish (not bytes / 3.5): Anthropic
bills about ``width * height / 750`` tokens; OpenAI's high-detail images are
scaled to fit 2048 x 2048, then to 768 on the short side, and cost 85 tokens
plus 170 for each 512-pixel tile.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping

MEDIA_TYPES: tuple[str, ...] = ("image/png", "image/jpeg", "image/gif", "image/webp")
EXTENSIONS: Mapping[str, str] = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}


def sniff_media_type(data: bytes) -> str | None:
    """The image type ``data`` holds, read from its magic bytes (never from a file name), else None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


@dataclass(frozen=True)
class Image:
    """One image as sent to a model.

    ``data``: the bytes sent (empty when a replayed session could not find
    them; ``available`` is then False). ``name``: what the user or the model
    called it (a path, as given). ``width``/``height``: pixels of ``data``.
    ``sha256`` is derived from ``data`` and is what equality and the session
    file use.
    """

    media_type: str
    data: bytes = field(default=b"", repr=False, compare=False)
    name: str = ""
    width: int = 0
    height: int = 0
    sha256: str = ""

    def __post_init__(self) -> None:
        if self.media_type not in MEDIA_TYPES:
            raise ValueError(f"unsupported image type {self.media_type!r}")
        if self.data and not self.sha256:
            object.__setattr__(self, "sha256", hashlib.sha256(self.data).hexdigest())

    @property
    def available(self) -> bool:
        return bool(self.data)

    @property
    def file_name(self) -> str:
        """The name the session folder keeps the bytes under (content-addressed)."""
        return f"{self.sha256}.{EXTENSIONS[self.media_type]}"

    def describe(self) -> str:
        """One line for people and notes: ``shot.png (1280x720 PNG, 84 KB)``."""
        kind = EXTENSIONS[self.media_type].upper()
        size = f", {_size(len(self.data))}" if self.data else ""
        return f"{self.name or 'image'} ({self.width}x{self.height} {kind}{size})"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"media_type": self.media_type, "sha256": self.sha256}
        if self.name:
            out["name"] = self.name
        out["width"] = self.width
        out["height"] = self.height
        out["bytes"] = len(self.data)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], load: ImageLoader | None = None) -> Image:
        """The image a session entry names; its bytes come from ``load`` (None or a miss: an unavailable image)."""
        sha = str(data.get("sha256", ""))
        media_type = str(data.get("media_type", ""))
        if media_type not in MEDIA_TYPES:
            media_type = "image/png"
        stub = cls(media_type, b"", str(data.get("name", "")), int(data.get("width", 0)), int(data.get("height", 0)), sha)
        payload = load(stub) if load is not None else None
        if payload is None or hashlib.sha256(payload).hexdigest() != sha:
            return stub
        return replace(stub, data=payload)


ImageLoader = Callable[[Image], "bytes | None"]
"""Finds the bytes of a recorded image (by ``Image.file_name``), or None."""


def _size(count: int) -> str:
    if count >= 1024 * 1024:
        return f"{count / (1024 * 1024):.1f} MB"
    return f"{max(1, round(count / 1024))} KB"


def anthropic_image_tokens(width: int, height: int) -> int:
    """Anthropic's published estimate: ``width * height / 750``."""
    return max(1, math.ceil(width * height / 750))


def openai_image_tokens(width: int, height: int) -> int:
    """OpenAI's high-detail rule: fit 2048 x 2048, short side 768, then 85 + 170 per 512-pixel tile."""
    if width <= 0 or height <= 0:
        return 85
    scale = min(1.0, 2048 / max(width, height))
    w, h = width * scale, height * scale
    scale = min(1.0, 768 / min(w, h))
    w, h = w * scale, h * scale
    return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)


IMAGE_RULES: dict[str, str] = {
    "anthropic": "Anthropic's rule, w×h/750",
    "openai": "OpenAI's rule, 85 + 170 per 512px tile",
    "": "the larger of Anthropic's and OpenAI's rules",
}
"""The published rules ``image_tokens`` knows, by the name a provider entry gives as its ``image_rule``, and what each is."""


def image_tokens(image: Image, provider: str = "anthropic") -> int:
    """What ``image`` costs under rule ``provider`` (an ``IMAGE_RULES`` name; the larger rule when unknown)."""
    if provider == "anthropic":
        return anthropic_image_tokens(image.width, image.height)
    if provider == "openai":
        return openai_image_tokens(image.width, image.height)
    return max(anthropic_image_tokens(image.width, image.height), openai_image_tokens(image.width, image.height))


def image_note(image: Image, reason: str) -> str:
    """The text a model gets in place of an image it cannot see."""
    return f"[image {image.describe()} not shown: {reason}]"


NO_VISION = "the current model cannot see images"
MISSING = "its bytes are missing from the session folder"
