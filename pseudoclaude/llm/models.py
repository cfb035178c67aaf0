"""What we know about models: context windows, provider, prices.

Unknown models fall back to 128,000 tokens (the seed's rule); local servers
(Ollama, llama.cpp) often run much smaller windows than the model supports, so
``--context-window`` / ``PSEUDOCLAUDE_CONTEXT_WINDOW`` always wins.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_FALLBACK_CONTEXT_WINDOW = 128_000


@dataclass(frozen=True)
class ModelInfo:
    context_window: int
    provider: str
    input_per_mtok: float = 0.0
    output_per_mtok: float = 0.0


_PREFIXES: tuple[tuple[str, ModelInfo], ...] = (
    ("claude-opus-4", ModelInfo(200_000, "anthropic", 15.0, 75.0)),
    ("claude-sonnet-4", ModelInfo(200_000, "anthropic", 3.0, 15.0)),
    ("claude-haiku-4", ModelInfo(200_000, "anthropic", 1.0, 5.0)),
    ("claude-3-7-sonnet", ModelInfo(200_000, "anthropic", 3.0, 15.0)),
    ("claude-3-5-sonnet", ModelInfo(200_000, "anthropic", 3.0, 15.0)),
    ("claude-3-5-haiku", ModelInfo(200_000, "anthropic", 0.8, 4.0)),
    ("claude", ModelInfo(200_000, "anthropic", 3.0, 15.0)),
    ("gpt-4.1", ModelInfo(1_047_576, "openai", 2.0, 8.0)),
    ("gpt-4o-mini", ModelInfo(128_000, "openai", 0.15, 0.6)),
    ("gpt-4o", ModelInfo(128_000, "openai", 2.5, 10.0)),
    ("gpt-5", ModelInfo(400_000, "openai", 1.25, 10.0)),
    ("o4-mini", ModelInfo(200_000, "openai", 1.1, 4.4)),
    ("o3", ModelInfo(200_000, "openai", 2.0, 8.0)),
    ("o1", ModelInfo(200_000, "openai", 15.0, 60.0)),
    ("gpt-", ModelInfo(128_000, "openai")),
)

DEFAULT_MODELS = {"anthropic": "claude-sonnet-4-5", "openai": "gpt-4.1"}


def model_info(model: str) -> ModelInfo | None:
    """The table entry whose prefix matches ``model`` (longest prefix first), or None."""
    name = model.lower().split("/")[-1]
    for prefix, info in _PREFIXES:
        if name.startswith(prefix):
            return info
    return None


def context_window(model: str, override: int | None = None) -> int:
    """The window to budget against: the override, else the table, else 128,000."""
    if override and override > 0:
        return override
    info = model_info(model)
    return info.context_window if info else DEFAULT_FALLBACK_CONTEXT_WINDOW


def provider_for_model(model: str) -> str | None:
    """``anthropic`` or ``openai`` when the name says so, else None."""
    info = model_info(model)
    return info.provider if info else None


def cost_usd(model: str, input_tokens: int, output_tokens: int, cache_read: int = 0, cache_write: int = 0) -> float:
    """Estimated cost; cache reads at 10% and writes at 125% of the input price."""
    info = model_info(model)
    if info is None:
        return 0.0
    per_in = info.input_per_mtok / 1_000_000
    return (
        input_tokens * per_in
        + cache_read * per_in * 0.1
        + cache_write * per_in * 1.25
        + output_tokens * info.output_per_mtok / 1_000_000
    )
