"""What a session has spent, call by call, at the price of the model that served each call.

A total recomputed from summed tokens at the current model's price is wrong
as soon as the model changes (switching to a dearer model would reprice
every earlier call), and a model without a known price would show $0.0000 as
if it were free. So each call is priced when it is answered, and calls with
no known price are counted apart: the cost is then "unknown", not zero.
"""

from __future__ import annotations

from dataclasses import dataclass

from pseudoclaude.llm import Usage, request_cost


@dataclass(frozen=True)
class Spent:
    """The estimated cost of the priced calls, and how many calls had no known price."""

    usd: float = 0.0
    unpriced_calls: int = 0

    def plus(self, model: str, usage: Usage) -> "Spent":
        cost = request_cost(model, usage)
        if cost is None:
            return Spent(self.usd, self.unpriced_calls + 1)
        return Spent(self.usd + cost, self.unpriced_calls)

    @property
    def known(self) -> bool:
        """Whether every call had a price (so ``usd`` is the whole estimate)."""
        return self.unpriced_calls == 0
