"""What one context layer did: the shape every layer returns to the pipeline.

A layer is a function of the conversation and the session's ``ContextState``
that returns a ``LayerStep``: the conversation to send from now on, what it
did (``LayerAction``: one line for the user and figures for scripts) and any
warnings. It records its own decisions in the session through
``ContextState.session``. ``manage.py`` runs the deterministic layers in
order (``DETERMINISTIC_LAYERS``), then the summary; adding a layer is one
module and one entry there, and the runner shows its action like any other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, Sequence

from pseudoclaude.compact.state import ContextState
from pseudoclaude.llm import Message


@dataclass(frozen=True)
class LayerAction:
    """``layer`` names the layer ("clear", "offload", "compact"); ``count`` is how many items it changed."""

    layer: str
    count: int
    message: str
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LayerStep:
    conversation: Sequence[Message]
    action: LayerAction | None = None
    warnings: tuple[str, ...] = ()


class Layer(Protocol):
    def __call__(self, conversation: Sequence[Message], state: ContextState) -> LayerStep: ...
