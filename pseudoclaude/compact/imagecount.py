"""How many images the next request shows, what they cost, and how many became notes (``/context``'s image line).

It reads the ledger through ``ImageLedger`` (``ContextState`` satisfies it), so
the ledger can count its images in ``status`` without a circle; the notes themselves are
written by ``imagenotes``, which shares the two markers below.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

from pseudoclaude.compact.estimate import one_image_tokens
from pseudoclaude.compact.resultkey import result_id
from pseudoclaude.compact.seam import Ledger
from pseudoclaude.llm import Image, Message

NOTE_START = "[image "
NOTE_REMOVED = " removed from the context"


class ImageLedger(Ledger, Protocol):
    """What the count reads of the ledger: its image rule and which results lost their images to notes."""

    @property
    def image_rule(self) -> str: ...

    def drops_images(self, call_id: str) -> bool: ...

    @property
    def replacements(self) -> dict[str, str]: ...

    @property
    def images_dropped(self) -> frozenset[str]: ...


@dataclass(frozen=True)
class ImageUsage:
    """The images in the context (``/context``'s image line; ``image_usage`` counts them).

    ``images``: what the next request shows the model (user attachments and
    tool results whose images were not replaced by notes); ``tokens``: their
    estimate under ``rule`` (the one the estimator counts by, ``estimate.image_rule``);
    ``notes``: images replaced by a note naming their file so far (this session, resumes included).
    """

    images: int = 0
    tokens: int = 0
    notes: int = 0
    rule: str = ""


def image_usage(conversation: Sequence[Message], state: ImageLedger) -> ImageUsage:
    """The images the next request shows the model, what they cost, and how many became notes (see ``ImageUsage``).

    A result the ledger says lost its images counts as notes even before
    ``manage_context`` applied the ledger (a resumed conversation holds the
    originals until the first request), so ``/context`` says the same before and after it.
    """
    rule = state.image_rule
    seen: list[Image] = []
    for i, message in enumerate(conversation):
        seen.extend(message.images)
        result = message.tool_result
        if result is not None and result.images and not state.drops_images(result_id(message, i, state)):
            seen.extend(result.images)
    previews = state.replacements
    notes = sum(_note_count(previews.get(call_id, "")) for call_id in state.images_dropped)
    return ImageUsage(len(seen), sum(one_image_tokens(image, rule) for image in seen), notes, rule)


def _note_count(preview: str) -> int:
    return sum(1 for line in preview.splitlines() if line.startswith(NOTE_START) and NOTE_REMOVED in line)
