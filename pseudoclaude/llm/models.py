"""Questions about a model name, answered from the provider table: window, provider, prices, tokenizer.

The rows themselves live on the provider entries (``providers.py``). Where the
provider's models endpoint described the model to this process
(``model_facts.py``: Anthropic's ``GET /v1/models/{id}``), its window, output
limit, reasoning style and vision are laid over the row; the prices are always
the table's (``table_info`` is the row alone). Unknown
models fall back to 128,000 tokens (the seed's rule). Local servers often run
much smaller windows than the model supports: the window they run is asked of
the server at the first call (``probe.py``, applied by the context engine), and
``--context-window`` / ``PSEUDOCLAUDE_CONTEXT_WINDOW`` caps it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

from pseudoclaude.llm.gateway import openai_api
from pseudoclaude.llm.messages import Usage
from pseudoclaude.llm.model_facts import SOURCE as FACTS_SOURCE, ModelFacts, learned_facts, recorded_facts
from pseudoclaude.llm.providers import PROVIDERS, LongPrompt, ProviderEntry, ReasoningStyle

DEFAULT_FALLBACK_CONTEXT_WINDOW = 128_000


@dataclass(frozen=True)
class ModelInfo:
    context_window: int
    provider: str
    input_per_mtok: float = 0.0
    output_per_mtok: float = 0.0
    encoding: str | None = None
    reasoning: ReasoningStyle = ""
    max_output_tokens: int = 0
    vision: bool = True
    cache_read_per_mtok: float | None = None
    cache_write_per_mtok: float | None = None
    long_prompt: LongPrompt | None = None
    context_management: tuple[str, ...] = ()
    """The server-side context strategies the model takes (Anthropic's edit types)."""

    @property
    def priced(self) -> bool:
        """Whether the table has a published price for the model (0.0 in both: unknown, not free)."""
        return bool(self.input_per_mtok or self.output_per_mtok)


def model_info(model: str, providers: Sequence[ProviderEntry] = PROVIDERS) -> ModelInfo | None:
    """What is known of ``model``: the table's row (first match, entries in table order) under the facts its
    provider's models endpoint gave this process (``model_facts``: window, output limit, reasoning, vision), or None.

    A test's own ``providers`` table is read alone."""
    info = table_info(model, providers)
    known = learned_facts(model) if providers is PROVIDERS else None
    return _with_facts(info, *known) if known is not None else info


def _with_facts(info: ModelInfo | None, provider: str, facts: ModelFacts) -> ModelInfo:
    base = info if info is not None else ModelInfo(DEFAULT_FALLBACK_CONTEXT_WINDOW, provider)
    return replace(
        base,
        context_window=facts.context_window or base.context_window,
        max_output_tokens=facts.max_output_tokens or base.max_output_tokens,
        reasoning=facts.reasoning if facts.reasoning is not None else base.reasoning,
        vision=facts.vision if facts.vision is not None else base.vision,
        context_management=facts.context_management if facts.context_management is not None else base.context_management,
    )


def window_source(model: str, override: int | None = None) -> str:
    """Where ``context_window(model, override)`` comes from: "your setting", "models endpoint", "model table" or "default"."""
    if override and override > 0:
        return "your setting"
    known = learned_facts(model)
    if known is not None and known[1].context_window:
        return FACTS_SOURCE
    return "model table" if table_info(model) is not None else "default"


def table_info(model: str, providers: Sequence[ProviderEntry] = PROVIDERS) -> ModelInfo | None:
    """What the table alone says about ``model`` (the prices always come from here), or None."""
    for entry in providers:
        row = entry.model_row(model)
        if row is not None:
            priced = row.prices(model.lower().split("/")[-1])
            return ModelInfo(
                row.context_window,
                entry.name,
                row.input_per_mtok if priced else 0.0,
                row.output_per_mtok if priced else 0.0,
                row.encoding,
                row.reasoning,
                row.max_output_tokens,
                row.vision,
                row.cache_read_per_mtok if priced else None,
                row.cache_write_per_mtok if priced else None,
                row.long_prompt if priced else None,
                row.context_management,
            )
    return None


def context_window(model: str, override: int | None = None, providers: Sequence[ProviderEntry] = PROVIDERS) -> int:
    """The window to budget against: the override, else the table, else 128,000."""
    if override and override > 0:
        return override
    info = model_info(model, providers)
    return info.context_window if info else DEFAULT_FALLBACK_CONTEXT_WINDOW


def provider_for_model(model: str, providers: Sequence[ProviderEntry] = PROVIDERS) -> str | None:
    """The name of the provider whose table knows ``model``, else None."""
    info = model_info(model, providers)
    return info.provider if info else None


def encoding_for(model: str, providers: Sequence[ProviderEntry] = PROVIDERS) -> str | None:
    """The tiktoken encoding of ``model``; None when the estimator should count bytes."""
    info = model_info(model, providers)
    return info.encoding if info else None


def reasoning_style(model: str, providers: Sequence[ProviderEntry] = PROVIDERS) -> ReasoningStyle:
    """How ``model`` takes the effort setting; ``""`` (it does not) for unknown models."""
    info = model_info(model, providers)
    return info.reasoning if info else ""


OPENAI_EFFORT_STYLES: tuple[ReasoningStyle, ...] = ("effort", "effort_xhigh", "effort_max")
"""The styles of OpenAI's reasoning models: the effort is ``reasoning.effort`` (Responses) or ``reasoning_effort``
(Chat Completions), the output cap is ``max_output_tokens`` / ``max_completion_tokens``, and it counts the reasoning."""


def openai_reasoning_model(model: str, providers: Sequence[ProviderEntry] = PROVIDERS) -> bool:
    """Whether the table says ``model`` is one of OpenAI's reasoning models (gpt-5, o1, o3, o4-mini...)."""
    return reasoning_style(model, providers) in OPENAI_EFFORT_STYLES


def openai_effort(model: str, effort: str, providers: Sequence[ProviderEntry] = PROVIDERS) -> str:
    """The OpenAI effort value ``effort`` is sent as: ``max`` itself where the model takes it, else ``xhigh`` where
    the model takes that, else ``high``."""
    if effort != "max":
        return effort
    return {"effort_max": "max", "effort_xhigh": "xhigh"}.get(reasoning_style(model, providers), "high")


def effort_notice(
    model: str,
    effort: str | None,
    providers: Sequence[ProviderEntry] = PROVIDERS,
    *,
    base_url: str | None = None,
    api: str = "auto",
) -> str | None:
    """The one line to show when the route cannot carry ``effort`` as set, else None.

    Said, never dropped silently: a model that does not take an effort (the
    setting is ignored), ``max`` on a model whose highest is ``high``, and an
    OpenAI reasoning model sent through Chat Completions at a base URL (where
    ``reasoning_effort`` may be ignored by the server and the reasoning is not
    carried between turns). ``base_url`` and ``api``: the route (the settings'
    ``base_url`` and ``openai_api``); without them the service itself is assumed.
    """
    if effort is None:
        return None
    style = reasoning_style(model, providers)
    if not style:
        return f"{model} does not take an effort setting: effort {effort} is ignored"
    if style not in OPENAI_EFFORT_STYLES:
        return None
    notes: list[str] = []
    sent = openai_effort(model, effort, providers)
    if effort == "max" and sent not in ("xhigh", "max"):
        notes.append(f"effort {effort} is sent as {sent}, the most {model} takes")
    if openai_api(True, base_url, api) == "chat":
        where = f"the server at {base_url}" if base_url else "Chat Completions"
        notes.append(
            f"{where} gets effort {sent} as Chat Completions' reasoning_effort, which it may ignore, and the reasoning "
            "is not carried between turns (PSEUDOCLAUDE_OPENAI_API=responses if it speaks the Responses API)"
        )
    return f"{model}: {'; '.join(notes)}" if notes else None


@dataclass(frozen=True)
class CachePrices:
    """What a provider charges for its prompt cache, as multiples of the model's uncached input price.

    ``read``: a token served from the cache; ``write``: a token that enters it
    (the uncached price when the provider has no write premium).
    ``lookback_blocks``: how far back from a cache breakpoint the provider
    looks for a prefix it has cached (None: any common prefix is found). A
    change further back than that from the end is served only up to an
    earlier breakpoint (the system prompt and tools).
    """

    read: float
    write: float
    lookback_blocks: int | None = None


CACHE_PRICES: dict[str, CachePrices] = {
    "anthropic": CachePrices(read=0.1, write=1.25, lookback_blocks=20),
    "openai": CachePrices(read=0.1, write=1.0),
}
"""Anthropic: reads at 10%, writes at 125% (the 5-minute cache), 20 blocks of lookback from each breakpoint;
OpenAI: cached input discounted (10% for the GPT-5 family, the table's default price), no write premium (writes
are uncached input), the longest common prefix served. A row's own published cache prices replace these
multiples for that model (``ModelRow.cache_read_per_mtok``: Opus 5.5 reads at 5%; the GPT-5.6 and GPT-6 rows
charge cache writes at 125%)."""
UNKNOWN_CACHE_PRICES = CACHE_PRICES["anthropic"]
"""An unknown provider's (a local server's): the dearest break the table knows, so nothing is cleared on a guess."""


def cache_prices(model: str, providers: Sequence[ProviderEntry] = PROVIDERS) -> CachePrices:
    """The prompt-cache prices of ``model``: its provider's multiples (``UNKNOWN_CACHE_PRICES`` when the table does
    not know it), with the row's own published cache-read and cache-write prices where it has them."""
    info = model_info(model, providers)
    if info is None:
        return UNKNOWN_CACHE_PRICES
    base = CACHE_PRICES.get(info.provider, UNKNOWN_CACHE_PRICES)
    if not info.input_per_mtok:
        return base
    read = info.cache_read_per_mtok / info.input_per_mtok if info.cache_read_per_mtok is not None else base.read
    write = info.cache_write_per_mtok / info.input_per_mtok if info.cache_write_per_mtok is not None else base.write
    return replace(base, read=read, write=write)


def price_known(model: str, providers: Sequence[ProviderEntry] = PROVIDERS) -> bool:
    """Whether a published price is known for ``model`` (an unknown model, or a row without one: its cost is unknown)."""
    info = model_info(model, providers)
    return info is not None and info.priced


def price_notice(model: str, providers: Sequence[ProviderEntry] = PROVIDERS) -> str | None:
    """The words for a model whose cost cannot be estimated (what ``/cost`` says instead of $0), else None."""
    if price_known(model, providers):
        return None
    if model_info(model, providers) is None:
        return f"no price is known for {model}: it is not in the model table"
    return f"no price is known for {model}: the model table has no confirmed published price for it (docs/models.md)"


def cost_usd(model: str, input_tokens: int, output_tokens: int, cache_read: int = 0, cache_write: int = 0) -> float:
    """Estimated cost at the model's standard prices; cache reads and writes at its ``cache_prices``. 0.0 for a model
    without a known price: callers that show it ask ``price_known`` first (``request_cost`` answers None). Summed
    tokens cannot say which requests were long: ``request_cost`` prices one call with its long-prompt surcharge."""
    info = model_info(model)
    if info is None:
        return 0.0
    per_in = info.input_per_mtok / 1_000_000
    prices = cache_prices(model)
    return input_tokens * per_in + cache_read * per_in * prices.read + cache_write * per_in * prices.write + output_tokens * info.output_per_mtok / 1_000_000


def request_cost(model: str, usage: Usage) -> float | None:
    """The estimated cost of one call served by ``model``, with the row's long-prompt surcharge when the call's prompt
    passed it; None when no price is known for it (unknown, not free)."""
    info = model_info(model)
    if info is None or not info.priced:
        return None
    long = info.long_prompt
    factor_in, factor_out = (long.input_factor, long.output_factor) if long and usage.prompt_tokens > long.above_tokens else (1.0, 1.0)
    reading = cost_usd(model, usage.input_tokens, 0, usage.cache_read_tokens, usage.cache_write_tokens)
    return reading * factor_in + cost_usd(model, 0, usage.output_tokens) * factor_out


def unknown_model_notice(model: str, providers: Sequence[ProviderEntry] = PROVIDERS) -> str | None:
    """The one-line warning for a model name the table does not know (a typo looks exactly like this), else None."""
    if model_info(model, providers) is not None:
        return None
    recorded = recorded_facts(model) if providers is PROVIDERS else None
    if recorded is not None and recorded.context_window:
        return None  # an endpoint described it on an earlier run: its window is used, not a guess
    return (
        f"{model} is not a model PseudoClaude knows: its context window is assumed to be "
        f"{DEFAULT_FALLBACK_CONTEXT_WINDOW:,} tokens (--context-window sets it) and its cost is unknown"
    )


def supports_vision(model: str, providers: Sequence[ProviderEntry] = PROVIDERS) -> bool:
    """Whether ``model`` may be sent images: False only when its table row says it has no vision.

    An unknown model (a local server's) is sent them: a text-only local model
    answers the request with an error that names the cause, while guessing
    "no" would hide screenshots from every vision model the table lacks.
    """
    info = model_info(model, providers)
    return info.vision if info else True
