"""The price of a shrink batch: what its cache break costs against what it saves (the arithmetic is in ``shrink.py``).

All figures are tokens at the model's uncached input price, with the
provider's cache prices and lookback (``llm.cache_prices``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from pseudoclaude.compact.budget import SHRINK_GROWTH_ROUNDS, SHRINK_MIN_ROUNDS
from pseudoclaude.compact.clear import cache_is_cold
from pseudoclaude.compact.state import ContextState
from pseudoclaude.compact.summarize import meta_prefix_length
from pseudoclaude.llm import CachePrices, Message, cache_prices, model_info

DEFAULT_OUTPUT_PRICE_RATIO = 5.0
"""Output tokens against input tokens when the table has no price (Anthropic's and OpenAI's usual ratio)."""


@dataclass(frozen=True)
class BatchPrice:
    """The arithmetic of the module docstring for one possible batch, in tokens at the uncached input price."""

    tokens: int
    prefix: int
    removed: int
    growth: float
    threshold: int
    prices: CachePrices
    summary_cost: float
    after_summary: int
    cold: bool = False

    @property
    def after(self) -> int:
        return self.tokens - self.removed

    @property
    def cache_break(self) -> float:
        """What the next request pays more for the rewritten suffix than it would have paid to read it."""
        if self.cold:
            return (self.after - self.tokens) * self.prices.write
        return (self.after - self.prefix) * self.prices.write - (self.tokens - self.prefix) * self.prices.read

    @property
    def rounds_left(self) -> float:
        """Requests expected before the summary would run without the batch."""
        return max(0.0, (self.threshold - self.tokens) / self.growth)

    @property
    def saving(self) -> float:
        return self.rounds_left * self.removed * self.prices.read

    @property
    def avoids_summary(self) -> bool:
        """A summary is due now, the batch leaves room for a few rounds, and the room it buys costs less a round than a summary's."""
        if self.tokens < self.threshold or self.after > self.threshold - SHRINK_MIN_ROUNDS * self.growth:
            return False
        return self.rate(self.cache_break, self.after) < self.rate(self.summary_cost, self.after_summary)

    def rate(self, cost: float, start: int) -> float:
        """What a round costs after a break of ``cost`` that leaves ``start`` tokens: the break spread over the rounds until
        the threshold again, plus reading the prompt, on average halfway from ``start`` to the threshold."""
        rounds = max(1.0, (self.threshold - start) / self.growth)
        return cost / rounds + (start + self.threshold) / 2 * self.prices.read

    @property
    def clears_enough(self) -> bool:
        """It removes a few rounds' growth at once, so the next rounds do not fire again."""
        return self.removed >= SHRINK_MIN_ROUNDS * self.growth

    @property
    def pays(self) -> bool:
        return self.clears_enough and (self.avoids_summary or self.saving > self.cache_break)


def growth_per_round(conversation: Sequence[Message], state: ContextState) -> float:
    """Tokens a round (an assistant turn and its results) adds, over the newest ``SHRINK_GROWTH_ROUNDS`` rounds (at least 1).

    The newest rounds, because older ones may be previews already: what the
    conversation will add next is what it has just been adding.
    """
    history = conversation[meta_prefix_length(conversation) :]
    starts = [i for i, message in enumerate(history) if message.role == "assistant"][-SHRINK_GROWTH_ROUNDS:]
    if not starts:
        return 1.0
    return max(1.0, state.estimator.count(history[starts[0] :]) / len(starts))


def summary_price(state: ContextState, tokens: int) -> tuple[float, int]:
    """What a summary now would cost (the cached summary request, its output, the new prefix written) and the size after it."""
    prices = cache_prices(state.model)
    info = model_info(state.model)
    output_ratio = info.output_per_mtok / info.input_per_mtok if info is not None and info.input_per_mtok else DEFAULT_OUTPUT_PRICE_RATIO
    budget = state.budget
    output = budget.summary_max_output_tokens // 4
    after = state.overhead_tokens + budget.recent_keep_tokens + budget.pinned_max_tokens + output
    return tokens * prices.read + output * output_ratio + after * prices.write, after


def batch_price(conversation: Sequence[Message], state: ContextState, tokens: int, removed: int, first: int) -> BatchPrice:
    """The price of a batch that removes ``removed`` tokens, rewriting from message ``first`` on, the estimate being ``tokens``."""
    cold = cache_is_cold(state, state.clock())
    prices = cache_prices(state.model)
    reach = prices.lookback_blocks
    if cold:
        prefix = 0
    elif reach is not None and sum(1 + len(m.tool_calls) for m in conversation[first:]) > reach:
        prefix = state.overhead_tokens  # further back than the provider looks: only the system prompt and tools stay cached
    else:
        prefix = state.overhead_tokens + state.estimator.count(conversation[:first])
    summary_cost, after_summary = summary_price(state, tokens)
    return BatchPrice(
        tokens, prefix, min(removed, tokens), growth_per_round(conversation, state), state.auto_threshold, prices,
        summary_cost, after_summary, cold,
    )
