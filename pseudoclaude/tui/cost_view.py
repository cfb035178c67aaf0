"""What ``/cost`` says: the session's tokens and estimated cost, and plainly when a price is unknown.

A model without a confirmed published price (a row the table keeps with no
price, or a model the table does not know) is never shown as costing $0: the
line says the estimate is unknown, names the model, and gives what the priced
calls cost. The prices themselves, and where each came from, are the model
table's (``llm.models``, ``docs/models.md``).
"""

from __future__ import annotations

from pseudoclaude.agent import AgentStatus
from pseudoclaude.llm import price_notice


def cost_line(status: AgentStatus) -> str:
    """The one line ``/cost`` prints for ``status``."""
    thinking = " (thinking included)" if status.effort else ""
    tokens = f"Tokens this session: {status.tokens_in:,} in, {status.tokens_out:,} out{thinking}"
    notice = price_notice(status.model)
    if status.cost_usd is None:
        why = notice or "no price is known for a model used earlier in this session"
        return f"{tokens} · estimated cost unknown: {why} (${status.priced_usd:.4f} for the calls with a price)"
    if notice is not None:
        return f"{tokens} · estimated cost unknown: {notice} (${status.cost_usd:.4f} for the calls with a price)"
    return f"{tokens} · estimated cost ${status.cost_usd:.4f} ({status.model})"
