"""The seams below the ledger: what compaction needs of the session store, and of the ledger itself.

``state`` (the ledger), ``preview``, ``resultkey`` and ``imagecount`` all name
these; they live here, importing nothing of ``compact``, so none of those
modules needs another to say what it talks to.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Protocol, Sequence

from pseudoclaude.llm import Image, Message

LedgerDecision = Literal["keep", "replace"]


class CompactSession(Protocol):
    """What context governance needs of the session store (``pseudoclaude.session.Session`` satisfies it).

    Spill files and decisions go through this seam, so ``compact`` never
    imports a store and a different store implements five methods.
    ``append_replacement`` records any layer's replacement of one result:
    ``layer`` names it, ``path`` is the spill file (None when nothing was
    saved), and ``resets_anchor`` says the replacement rewrote text the
    provider had already counted, so a replay must drop the usage anchor;
    ``drops_images`` that the result's images were replaced by the notes in
    ``preview`` (for good: a later replacement of the same result keeps them
    dropped). ``append_calibration`` records what the estimator learned
    (``estimate.py``). ``keep_image`` makes sure an image's bytes are in the
    session folder and returns the absolute path a note can name; ``OSError``
    when they cannot be saved.
    """

    def write_spill(self, call_id: str, content: str) -> Path: ...

    def append_replacement(
        self,
        call_id: str,
        preview: str,
        *,
        layer: str,
        original_bytes: int,
        path: str | None = None,
        resets_anchor: bool = False,
        drops_images: bool = False,
    ) -> None: ...

    def keep_image(self, image: Image) -> Path: ...

    def append_compaction(self, *, summary: str, messages: Sequence[Message], trigger: str, before_tokens: int, after_tokens: int) -> None: ...

    def append_window(self, context_window: int) -> None: ...

    def append_calibration(self, bytes_per_token: float, samples: int) -> None: ...


class Ledger(Protocol):
    """The ledger as the result key reads it (``ContextState`` satisfies it)."""

    def decision(self, call_id: str) -> tuple[LedgerDecision, str] | None: ...
