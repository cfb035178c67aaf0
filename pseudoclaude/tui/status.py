"""The status line: model, context meter, tokens, cost, permission mode, session.

It renders an ``AgentStatus`` (``pseudoclaude.agent.facade``), a snapshot taken
at turn boundaries: estimating the context costs a tokenizer pass, so the
toolbar never computes it on a redraw. Before an agent exists the snapshot
comes from the settings alone.
"""

from __future__ import annotations

from pseudoclaude.agent import AgentStatus
from pseudoclaude.config import Settings


def format_status(info: AgentStatus) -> str:
    from pseudoclaude.tui.render import compact_number

    parts = [
        info.model + (f" · effort {info.effort}" if info.effort else ""),
        f"ctx {info.context_percent}% (compacts at {info.threshold_percent}%)" + (f" of {compact_number(info.context_window)} from {info.window_source}" if info.window_source not in ("", "model table", "default") else ""),
        f"↑ {compact_number(info.tokens_in)} ↓ {compact_number(info.tokens_out)}",
        f"${info.cost_usd:.3f}" if info.cost_usd is not None else "cost unknown",
        info.mode,
        info.session_id or "new session",
    ]
    return " · ".join(parts)


def initial_status(settings: Settings) -> AgentStatus:
    """Before any agent exists: nothing used yet."""
    from pseudoclaude.compact import Budget
    from pseudoclaude.llm import context_window

    budget = Budget.for_window(context_window(settings.model, settings.context_window))
    return AgentStatus(
        model=settings.model,
        context_tokens=0,
        context_window=budget.context_window,
        auto_threshold=budget.auto_threshold,
        mode=settings.permission_mode,
        effort=settings.effort,
    )
