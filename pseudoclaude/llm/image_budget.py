"""How many images one request may carry, and notes in place of the ones it may not.

Every image of a conversation is re-sent with every request, and the services
cap what one request holds: Anthropic documents up to 100 images per API
request and a 32 MB request size limit (docs.claude.com/en/docs/vision; over
it the answer is 413 ``request_too_large``); OpenAI documents up to 500 images
and 50 MB of image payload per request. A long session that has read many
screenshots would pass those limits and then be refused on every later
request, so the adapters send the newest images that fit and a text note in
place of each older one (compaction normally offloads old images long before
this; this is the guarantee at the wire).

Byte stability: what is left out depends only on the messages, and it is cut
in steps of a quarter of the budget, so the prefix (and the prompt cache)
stays the same for several requests after a cut instead of shifting by one
image each time a new one arrives.

``without_images`` is the other use of notes: a server that refused images
for a model (``openai.py``) is asked again with none.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence

from pseudoclaude.llm.images import Image, image_note
from pseudoclaude.llm.messages import Message


@dataclass(frozen=True)
class ImageBudget:
    """At most ``count`` images and ``encoded_bytes`` of base64 in one request."""

    provider: str
    count: int
    encoded_bytes: int

    def reason(self) -> str:
        megabytes = self.encoded_bytes // (1024 * 1024)
        return (
            f"an older image left out of the request ({self.provider} takes at most {self.count} images "
            f"and {megabytes} MB of them per request); read it again if you need it"
        )


ANTHROPIC_IMAGES = ImageBudget("Anthropic", 100, 24 * 1024 * 1024)
"""24 MB of base64 leaves the text of a full context window room under the 32 MB request limit."""
OPENAI_IMAGES = ImageBudget("OpenAI", 500, 40 * 1024 * 1024)


def encoded_size(image: Image) -> int:
    """The length of ``image``'s base64."""
    return 4 * -(-len(image.data) // 3)


def newest_images(messages: Sequence[Message], budget: ImageBudget) -> Sequence[Message]:
    """``messages`` with the oldest images turned into notes until the rest fit ``budget`` (the same list when all fit)."""
    sizes = [encoded_size(image) for message in messages for image in message.all_images()]
    count_excess = len(sizes) - budget.count
    byte_excess = sum(sizes) - budget.encoded_bytes
    if count_excess <= 0 and byte_excess <= 0:
        return messages
    drop_count = _round_up(count_excess, max(1, budget.count // 4))
    drop_bytes = _round_up(byte_excess, max(1, budget.encoded_bytes // 4))
    dropped, freed = 0, 0
    while dropped < len(sizes) and (dropped < drop_count or freed < drop_bytes):
        freed += sizes[dropped]
        dropped += 1
    seen = iter(range(len(sizes)))
    return _with_notes(messages, lambda _: next(seen) < dropped, budget.reason())


def without_images(messages: Sequence[Message], reason: str) -> list[Message]:
    """``messages`` with every image replaced by a text note giving ``reason``."""
    return _with_notes(messages, lambda _: True, reason)


def _round_up(value: int, step: int) -> int:
    return 0 if value <= 0 else -(-value // step) * step


def _with_notes(messages: Sequence[Message], drop: Callable[[Image], bool], reason: str) -> list[Message]:
    """``messages`` with the images ``drop`` picks (asked once each, in conversation order) replaced by notes."""
    out: list[Message] = []
    for message in messages:
        if message.images:
            kept, text = _split(message.images, drop, reason, message.text)
            message = replace(message, text=text, images=kept)
        result = message.tool_result
        if result is not None and result.images:
            kept, content = _split(result.images, drop, reason, result.content)
            message = replace(message, tool_result=replace(result, content=content, images=kept))
        out.append(message)
    return out


def _split(images: Sequence[Image], drop: Callable[[Image], bool], reason: str, text: str) -> tuple[tuple[Image, ...], str]:
    decisions = [(image, drop(image)) for image in images]
    notes = "\n".join(image_note(image, reason) for image, dropped in decisions if dropped)
    kept = tuple(image for image, dropped in decisions if not dropped)
    return kept, (f"{text}\n{notes}" if text and notes else text or notes)
