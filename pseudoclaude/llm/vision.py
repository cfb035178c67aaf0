"""What a model may be shown: every adapter passes its messages through ``images_for_model``.

Doing it at the adapter (not in the agent) means no path to a provider (a
summary request, a sub-agent, a retry after a model switch) can send an image
to a model that has no vision, or send an empty image block for bytes a
resumed session could not find.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from pseudoclaude.llm.images import MISSING, NO_VISION, Image, image_note
from pseudoclaude.llm.messages import Message
from pseudoclaude.llm.models import supports_vision


def images_for_model(messages: Sequence[Message], model: str) -> Sequence[Message]:
    """``messages`` with every image the model cannot take replaced by a text note (the same list when none is)."""
    vision = supports_vision(model)
    if all(_sendable(image, vision) for message in messages for image in message.all_images()):
        return messages
    return [_visible(message, vision) for message in messages]


def _sendable(image: Image, vision: bool) -> bool:
    return vision and image.available


def _reason(image: Image, vision: bool) -> str:
    return NO_VISION if not vision else MISSING


def _notes(images: Sequence[Image], vision: bool) -> str:
    return "\n".join(image_note(i, _reason(i, vision)) for i in images if not _sendable(i, vision))


def _join(text: str, notes: str) -> str:
    return f"{text}\n{notes}" if text and notes else text or notes


def _visible(message: Message, vision: bool) -> Message:
    kept = tuple(i for i in message.images if _sendable(i, vision))
    if len(kept) != len(message.images):
        message = replace(message, text=_join(message.text, _notes(message.images, vision)), images=kept)
    result = message.tool_result
    if result is not None and any(not _sendable(i, vision) for i in result.images):
        kept = tuple(i for i in result.images if _sendable(i, vision))
        result = replace(result, content=_join(result.content, _notes(result.images, vision)), images=kept)
        message = replace(message, tool_result=result)
    return message
