"""What the model saw of a benchmark run, and at which prices (``bench_session_cost.py``'s server side).

Under a provider's own compaction the requests the client sent are not what the model read: the server
summarized the prompt (a request of its own, at the prompt's cache share, its summary as output), then
sampled the reply from the compacted prompt. ``server_view`` (Anthropic's fake) and ``openai_view``
(OpenAI's Responses fake, which renders every request: from the latest compaction item on) rebuild that
sequence for the analysis. ``Prices``: Sonnet's for the Anthropic runs, the model table's for OpenAI's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from bench.compaction_checks import SERVER_ITERATION, as_messages
from bench.session_scripts import tokens
from pseudoclaude.llm import cache_prices, model_info
from pseudoclaude.llm.providers import OPENAI
from tests.fakes.anthropic_context_rules import Applied
from tests.fakes.prompt_cache import OpenAIPromptCache
from tests.fakes.responses_compaction import Compacted
from tests.fakes.script import SUMMARY_PREAMBLE

CACHED_PER_M = 0.30
UNCACHED_PER_M = 3.75
OUTPUT_PER_M = 15.0
OPENAI_MODEL = OPENAI.default_model
"""The OpenAI runs' model: the table's default, a Responses model that takes server-side compaction."""
CACHE_MIN_TOKENS = 1024


@dataclass(frozen=True)
class Prices:
    """Dollars per million tokens: read from the cache, not read from it (a cache write), output."""

    cached: float = CACHED_PER_M
    uncached: float = UNCACHED_PER_M
    output: float = OUTPUT_PER_M

    def cost(self, prompt: float, cached: float, output: float) -> float:
        return (cached * self.cached + (prompt - cached) * self.uncached + output * self.output) / 1e6


SONNET = Prices()
"""The Anthropic runs' prices: Sonnet's, a cache write counted as uncached input (the runs committed before)."""


def table_prices(model: str) -> Prices:
    """``model``'s prices from the model table: its cached-input price, its cache-write price for the uncached
    input (every prompt here is over the cache's minimum, so every uncached token is written), its output price."""
    info = model_info(model)
    if info is None or not info.input_per_mtok:
        raise SystemExit(f"no published price for {model} in the model table")
    cache = cache_prices(model)
    return Prices(info.input_per_mtok * cache.read, info.input_per_mtok * max(1.0, cache.write), info.output_per_mtok)


@dataclass(frozen=True)
class ServerView:
    """The requests as the model saw them under the native engine: each compaction the server made is a summary
    request of its own (the body it summarized, marked as one, its summary as output), then the reply's own prompt."""

    bodies: tuple[Mapping[str, Any], ...]
    output_log: tuple[float, ...]
    compactions: int
    summary_output: float
    served: tuple[tuple[float, float], ...] | None = None
    """Each body's (prompt, cached) tokens when the provider's cache rule was applied to what it rendered (OpenAI)."""


def server_view(applied: Sequence[Applied], outputs: Sequence[float]) -> ServerView:
    bodies: list[Mapping[str, Any]] = []
    log: list[float] = []
    compactions, summary_output = 0, 0.0
    for index, seen in enumerate(applied):
        if seen.summarized is not None and seen.compaction is not None:
            spent = tokens(str(seen.compaction.get("content", "")))
            marker = {"role": "user", "content": [{"type": "text", "text": SUMMARY_PREAMBLE}]}
            bodies.append({**seen.summarized, "messages": [*seen.summarized["messages"], marker]})
            log.append(spent)
            compactions, summary_output = compactions + 1, summary_output + spent
        bodies.append({**seen.body, SERVER_ITERATION: True} if seen.compaction is not None else seen.body)
        log.append(outputs[index] if index < len(outputs) else 0.0)
    return ServerView(tuple(bodies), tuple(log), compactions, summary_output)


def openai_view(applied: Sequence[Compacted], outputs: Sequence[float]) -> ServerView:
    """The Responses requests as the fake rendered them (``responses_compaction``; the Messages shape the checks
    read, ``as_messages``), each compaction a summary request of its own as in ``server_view``, priced from the
    renderings by OpenAI's cache rule (``OpenAIPromptCache``)."""
    cache = OpenAIPromptCache(tokens=tokens, min_tokens=CACHE_MIN_TOKENS)
    bodies: list[Mapping[str, Any]] = []
    served: list[tuple[float, float]] = []
    log: list[float] = []
    compactions, summary_output = 0, 0.0
    for index, seen in enumerate(applied):
        if seen.summarized is not None:
            spent = tokens(seen.summary)
            shaped = as_messages(seen.summarized)
            marker = {"role": "user", "content": [{"type": "text", "text": SUMMARY_PREAMBLE}]}
            bodies.append({**shaped, "messages": [*shaped["messages"], marker]})
            served.append(cache.serve(seen.summarized))
            log.append(spent)
            compactions, summary_output = compactions + 1, summary_output + spent
        shaped = as_messages(seen.seen)
        bodies.append({**shaped, SERVER_ITERATION: True} if seen.summarized is not None else shaped)
        served.append(cache.serve(seen.seen))
        log.append(outputs[index] if index < len(outputs) else 0.0)
    return ServerView(tuple(bodies), tuple(log), compactions, summary_output, tuple(served))
