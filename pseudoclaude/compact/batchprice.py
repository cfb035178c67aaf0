"""The price of a shrink batch: what its cache break costs against what it saves, and whether it pays.

All figures are tokens at the model's uncached input price, with the
provider's cache prices and lookback (``llm.cache_prices``: Anthropic reads at
``r`` = 0.1 and writes at ``w`` = 1.25, 20 blocks back from a breakpoint; OpenAI
reads at 0.1, ``w`` = 1). ``T`` the estimate now, ``P`` the prefix before the
first rewritten result that stays cached, ``S`` the tokens removed, ``g`` the
growth a round, ``A`` the automatic summary threshold, ``m`` =
``SHRINK_BREAK_MARGIN`` (1.5)::

    break   = (T - S - P) * w  -  (T - P) * r      # the rewritten suffix written instead of read
    rounds  = (A - T) / g                           # requests left before the summary anyway
    saving  = rounds * S * r                        # each reads S fewer cached tokens
    rate(K, X) = K / ((A - X) / g) + (X + A) / 2 * r   # a round's cost after a break K leaving X

    pays = removes >= 3 rounds of growth  and  ( saving > m * break
           or (T >= A  and  T - S <= A - 3 g  and  rate(m * break, T - S) < rate(summary, C)) )

The break is the one cost paid at once; the saving accrues only if the session
runs the rounds it is counted over at the growth measured so far. So the break
counts ``m`` times: a batch must still pay when the rounds left or the growth
are a third less than estimated. Measured on the session-cost benchmark
(``bench/README.md``): the batches that paid back 1.0-1.2 times their break
saved at most $0.07 a run, at 60k nothing or less than nothing, and each cut the
prefix reuse between compactions by 0.02-0.03 (one request in 20-40 reading
only the system prompt); the one that paid 1.6 times (three requests at 200k)
saved $0.43. With the margin only the clear cases run. Worked examples
(Anthropic): at 200k, ``T`` = 100,000, ``P`` = 3,000, ``S`` = 80,000, ``g`` =
5,000: ``break = 17,000 * 1.25 - 97,000 * 0.1 = 11,550``, ``saving = 13.4 * 80,000
* 0.1 = 107,200`` > ``1.5 * 11,550``: it runs. At 200k with ``T`` = 103,500, ``S`` =
59,400, ``g`` = 8,300 (the exploration's first batch): ``break = 41,100``,
``saving = 45,500``: 1.1 times, not run. At the 60k threshold (``A`` = 47,600,
``g`` = 5,700) with ``T`` = 48,000, ``S`` = 32,000: ``break = 13,000 * 1.25 - 45,000 *
0.1 = 11,750``, ``rate(17,625, 16,000) = 17,625 / 5.54 + 31,800 * 0.1 = 6,360``
against a summary's ``rate(28,700, 10,946) = 7,392``: it runs; with ``S`` = 30,000
(``rate(21,375, 18,000) = 7,396``) the summary runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from pseudoclaude.compact.budget import SHRINK_BREAK_MARGIN, SHRINK_GROWTH_ROUNDS, SHRINK_MIN_ROUNDS
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
    def counted_break(self) -> float:
        """The break as the rules count it: ``SHRINK_BREAK_MARGIN`` times the estimate (a saving, when negative, as it is)."""
        return self.cache_break * SHRINK_BREAK_MARGIN if self.cache_break > 0 else self.cache_break

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
        return self.rate(self.counted_break, self.after) < self.rate(self.summary_cost, self.after_summary)

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
        return self.clears_enough and (self.avoids_summary or self.saving > self.counted_break)


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
        tokens,
        prefix,
        min(removed, tokens),
        growth_per_round(conversation, state),
        state.auto_threshold,
        prices,
        summary_cost,
        after_summary,
        cold,
    )
