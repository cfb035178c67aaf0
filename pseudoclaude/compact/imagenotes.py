"""Old images become text notes naming the file that keeps them.

An image costs what its provider publishes (a 1568x735 screenshot is about
1,500 tokens), and a session that looks at screenshots for an hour re-sends
every one of them on every request. The bytes are already in the session
folder (``<session>/images/<sha256>.<ext>``, ``session/images.py``), so an
old image can leave the context for a one-line note with that absolute path:
the model can ``read_file`` it again if it must.

Which images (the shrink tier applies this, ``shrink.py``; so does cold-cache
clearing, ``clear.py``):

* only images of tool results: a user's attachment stays until a Layer 2
  summary replaces the message it came with;
* never the images of the latest ``IMAGE_KEEP_RECENT_ROUNDS`` tool rounds (the
  newest round's always: the model has not answered it yet);
* all the images of one result together, and only with the result itself: an
  image never leaves its tool call (it lives on the ``ToolResult``).

A Layer 2 summary asked as a transcript (not in place) names each image it
covers the same way, with its file (``summary_image_text``), so the summary
can point at a screenshot the conversation no longer holds.

A note is written once and recorded with the result's replacement
(``drops_images``), so a resumed session sends the same note, byte for byte.
"""

from __future__ import annotations

from typing import Callable, Sequence

from pseudoclaude.compact.estimate import one_image_tokens
from pseudoclaude.compact.imagecount import NOTE_REMOVED, NOTE_START
from pseudoclaude.compact.resultkey import result_id
from pseudoclaude.compact.seam import CompactSession
from pseudoclaude.compact.state import ContextState
from pseudoclaude.llm import Image, Message

IMAGE_KEEP_RECENT_ROUNDS = 3
"""Tool rounds, counted from the newest, whose images always stay in the context."""


def image_note_text(image: Image, session: CompactSession) -> str:
    """The note that replaces ``image``; ``OSError`` when its bytes cannot be kept in the session folder."""
    if not image.available:
        return f"{NOTE_START}{image.describe()}{NOTE_REMOVED}; its bytes were already missing from the session folder]"
    path = session.keep_image(image)
    return f"{NOTE_START}{image.describe()}{NOTE_REMOVED} to save room; its file is kept at {path} (read_file it to see it again)]"


def with_notes(content: str, images: Sequence[Image], session: CompactSession) -> str:
    """``content`` followed by one note per image, one a line; ``OSError`` as ``image_note_text``."""
    notes = "\n".join(image_note_text(image, session) for image in images)
    return f"{content}\n{notes}" if content else notes


def summary_image_text(session: CompactSession | None) -> Callable[[Image], str]:
    """How a summary transcript names an image: with the file that keeps it, when the session can say."""

    def text(image: Image) -> str:
        if session is not None and image.available:
            try:
                return f"[image {image.describe()}, kept at {session.keep_image(image)}]"
            except OSError:
                pass
        return f"[image {image.describe()}]"

    return text


def recent_rounds_start(conversation: Sequence[Message], rounds: int = IMAGE_KEEP_RECENT_ROUNDS) -> int:
    """The index of the assistant message that opened the ``rounds``-th newest tool round (0 when there are fewer)."""
    openers = [i for i, m in enumerate(conversation) if m.role == "assistant" and m.tool_calls]
    if len(openers) < max(1, rounds):
        return 0
    return openers[-max(1, rounds)]


def old_image_results(conversation: Sequence[Message], state: ContextState) -> list[int]:
    """Indices of tool results older than the kept rounds that still carry images, oldest first."""
    start = recent_rounds_start(conversation)
    out: list[int] = []
    for i in range(start):
        result = conversation[i].tool_result
        if result is None or not result.images or state.drops_images(result_id(conversation[i], i, state)):
            continue
        out.append(i)
    return out


def result_image_tokens(message: Message, provider: str) -> int:
    """What the images of a tool result cost."""
    result = message.tool_result
    return sum(one_image_tokens(image, provider) for image in result.images) if result is not None else 0
