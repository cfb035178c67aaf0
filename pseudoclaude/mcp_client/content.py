"""What an MCP server sends back (a tool's result, a resource, a prompt's message) as text and image parts.

Text parts are joined; an image part is kept as an ``ImagePart`` (checked and
fitted later, by ``tool.images_of``); audio and binary resources are named,
not shown. ``structuredContent`` is the same result again in JSON (the spec
asks servers to send a text copy of it too), so it is used only when the
result has no content parts at all, and even then a long base64-looking
string in it (a screenshot's data) is replaced by a note: a browser server's
image result would otherwise reach the model twice, once as an image and once
as a megabyte of base64 text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Iterable

_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]+")
BASE64_NOTE_MIN = 256
"""A string at least this long made only of base64 characters is data, not text."""


@dataclass(frozen=True)
class ImagePart:
    """An image content part as the server sent it: its declared MIME type and base64 data, not yet checked."""

    mime_type: str
    data: str


@dataclass(frozen=True)
class CallResult:
    """A call's text (audio and binary resources named, not shown), its images, and whether the server flagged an error."""

    text: str
    is_error: bool
    images: tuple[ImagePart, ...] = ()


def parts_of(items: Iterable[Any]) -> tuple[list[str], list[ImagePart]]:
    """The text and the image parts of content blocks (a tool result's, a prompt message's)."""
    parts: list[str] = []
    images: list[ImagePart] = []
    for item in items:
        kind = getattr(item, "type", "")
        if kind == "text":
            parts.append(item.text)
        elif kind == "image":
            images.append(ImagePart(str(getattr(item, "mime_type", "") or ""), str(getattr(item, "data", "") or "")))
        elif kind == "audio":
            size = len(getattr(item, "data", "") or "") * 3 // 4
            parts.append(f"[{kind} {getattr(item, 'mime_type', '')}, about {size:,} bytes: not shown]")
        elif kind == "resource_link":
            parts.append(f"[resource: {getattr(item, 'uri', '')}]")
        elif kind == "resource":
            text, image = resource_contents(getattr(item, "resource", None))
            parts.extend([text] if text else [])
            images.extend([image] if image else [])
    return parts, images


def resource_contents(contents: Any) -> tuple[str, ImagePart | None]:
    """One resource's contents: its text, or an image, or a line naming a binary resource not shown."""
    text = getattr(contents, "text", None)
    if isinstance(text, str):
        return text, None
    mime = str(getattr(contents, "mime_type", "") or "")
    blob = getattr(contents, "blob", None)
    if mime.startswith("image/") and isinstance(blob, str):
        return "", ImagePart(mime, blob)
    size = len(blob) * 3 // 4 if isinstance(blob, str) else 0
    return f"[binary resource {getattr(contents, 'uri', '')} ({mime or 'no type'}, about {size:,} bytes): not shown]", None


def call_result(result: Any) -> CallResult:
    """A ``CallToolResult`` as text and images; ``structuredContent`` only when there is no content (see above)."""
    parts, images = parts_of(getattr(result, "content", None) or ())
    structured = getattr(result, "structured_content", None)
    if not parts and not images and structured is not None:
        parts.append(json.dumps(without_base64(structured), ensure_ascii=False, indent=1))
    text = "\n".join(parts) if parts or images else "(no content)"
    return CallResult(text, bool(getattr(result, "is_error", False)), tuple(images))


def without_base64(value: Any) -> Any:
    """``value`` with each long base64-looking string replaced by a note of its size."""
    if isinstance(value, str) and len(value) >= BASE64_NOTE_MIN and _BASE64.fullmatch(value):
        return f"[base64 data, about {len(value.strip().rstrip('=')) * 3 // 4:,} bytes: not shown]"
    if isinstance(value, dict):
        return {key: without_base64(item) for key, item in value.items()}
    if isinstance(value, list):
        return [without_base64(item) for item in value]
    return value
