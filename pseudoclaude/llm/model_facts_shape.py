"""The facts a models endpoint gives about one model, read from the shape of Anthropic's ``ModelInfo``.

``GET /v1/models/{id}`` answers (SDK: ``anthropic.types.ModelInfo``) with
``max_input_tokens`` (the window), ``max_tokens`` (the most ``max_tokens``
may be) and ``capabilities``, an object whose keys are always present when it
is: ``thinking.types.{adaptive,enabled,...}.supported``, ``effort.{low,...,
xhigh}.supported``, ``context_management.{clear_tool_uses_20250919,...}``,
``image_input.supported`` and more. Every field may be missing or null (an
older gateway, another service speaking the API): a missing field is "not
said", and the table answers it. Nothing here trusts the answer beyond its
types: a wrong type is "not said" too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from pseudoclaude.llm.providers import ReasoningStyle

THINKING_TYPES = ("adaptive", "enabled")
EFFORT_LEVELS = ("low", "medium", "high", "max", "xhigh")
CONTEXT_STRATEGIES = ("clear_tool_uses_20250919", "clear_thinking_20251015", "compact_20260112")


@dataclass(frozen=True)
class ModelFacts:
    """What the endpoint said; None in a field: it did not say (the table's value stands).

    ``thinking``: the ``thinking.type`` values the model accepts among ``THINKING_TYPES``
    (``()``: it does not think); ``efforts``: the effort levels it takes; ``context_management``:
    the server-side strategies it supports (what a native context engine may send).
    """

    model: str
    context_window: int | None = None
    max_output_tokens: int | None = None
    thinking: tuple[str, ...] | None = None
    efforts: tuple[str, ...] | None = None
    context_management: tuple[str, ...] | None = None
    vision: bool | None = None

    @property
    def reasoning(self) -> ReasoningStyle | None:
        """The table's reasoning style these capabilities amount to (None: the endpoint did not say)."""
        if self.thinking is None:
            return None
        if "adaptive" in self.thinking:
            return "adaptive" if "enabled" in self.thinking else "adaptive_only"
        return "budget" if "enabled" in self.thinking else ""


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _supported(value: Any) -> bool | None:
    if isinstance(value, Mapping) and isinstance(value.get("supported"), bool):
        return bool(value["supported"])
    return None


def _which(capability: Any, names: tuple[str, ...]) -> tuple[str, ...] | None:
    """The ``names`` whose ``{supported: true}`` the capability carries; () when it is unsupported as a whole."""
    whole = _supported(capability)
    if whole is None:
        return None
    if not whole:
        return ()
    return tuple(name for name in names if _supported(capability.get(name)))


def _thinking(capability: Any) -> tuple[str, ...] | None:
    """The accepted ``thinking.type`` values: read from ``types``, each key on its own (as the SDK's docstring says)."""
    whole = _supported(capability)
    if whole is None or not isinstance(capability.get("types"), Mapping):
        return None
    types = capability["types"]
    return tuple(name for name in THINKING_TYPES if _supported(types.get(name))) if whole else ()


def facts_from_model_info(body: Any, model: str) -> ModelFacts | None:
    """The facts in a ``ModelInfo``-shaped answer; None when it says nothing we use (or is not one)."""
    if not isinstance(body, Mapping):
        return None
    capabilities = body.get("capabilities")
    caps: Mapping[str, Any] = capabilities if isinstance(capabilities, Mapping) else {}
    facts = ModelFacts(
        model=str(body.get("id") or model),
        context_window=_positive(body.get("max_input_tokens")),
        max_output_tokens=_positive(body.get("max_tokens")),
        thinking=_thinking(caps.get("thinking")),
        efforts=_which(caps.get("effort"), EFFORT_LEVELS),
        context_management=_which(caps.get("context_management"), CONTEXT_STRATEGIES),
        vision=_supported(caps.get("image_input")),
    )
    return facts if facts != ModelFacts(model=facts.model) else None


def facts_from_dict(raw: Any) -> ModelFacts | None:
    """A ``ModelFacts`` written by ``dataclasses.asdict`` (the cache's form); ValueError when it is not one."""
    if not isinstance(raw, Mapping) or not isinstance(raw.get("model"), str):
        raise ValueError("not a model facts entry")

    def names(key: str) -> tuple[str, ...] | None:
        value = raw.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ValueError(f"{key} is not a list of names")
        return tuple(value)

    vision = raw.get("vision")
    return ModelFacts(
        model=raw["model"],
        context_window=_positive(raw.get("context_window")),
        max_output_tokens=_positive(raw.get("max_output_tokens")),
        thinking=names("thinking"),
        efforts=names("efforts"),
        context_management=names("context_management"),
        vision=vision if isinstance(vision, bool) else None,
    )
