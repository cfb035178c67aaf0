"""The status line: model, context meter, tokens, cost, permission mode, session.

``StatusInfo`` is a snapshot taken at turn boundaries (estimating the context
costs a tokenizer pass, so the toolbar never computes it on a redraw).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pseudoclaude.config import Settings


@dataclass(frozen=True)
class StatusInfo:
    model: str
    context_tokens: int
    context_window: int
    auto_threshold: int
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    mode: str = "default"
    session_id: str | None = None

    @property
    def context_percent(self) -> int:
        return round(100 * self.context_tokens / self.context_window) if self.context_window else 0

    @property
    def threshold_percent(self) -> int:
        return round(100 * self.auto_threshold / self.context_window) if self.context_window else 0


def format_status(info: StatusInfo) -> str:
    from pseudoclaude.tui.render import compact_number

    parts = [
        info.model,
        f"ctx {info.context_percent}% (compacts at {info.threshold_percent}%)",
        f"↑ {compact_number(info.tokens_in)} ↓ {compact_number(info.tokens_out)}",
        f"${info.cost_usd:.3f}",
        info.mode,
        info.session_id or "new session",
    ]
    return " · ".join(parts)


def initial_status(settings: Settings) -> StatusInfo:
    """Before any agent exists: nothing used yet."""
    from pseudoclaude.compact.budget import Budget
    from pseudoclaude.llm.models import context_window

    budget = Budget.for_window(context_window(settings.model, settings.context_window))
    return StatusInfo(
        model=settings.model,
        context_tokens=0,
        context_window=budget.context_window,
        auto_threshold=budget.auto_threshold,
        mode=settings.permission_mode,
    )


def agent_status(agent: Any) -> StatusInfo:
    """The status of a built agent (``pseudoclaude.agent.build.Agent``)."""
    from pseudoclaude.llm.models import cost_usd

    runner = agent.runner
    context = runner.context.status(runner.conversation)
    usage = runner.usage_total
    model = runner.config.model
    tokens = context.estimated_tokens if context is not None and runner.conversation else 0
    mode = runner.permissions.mode.value if runner.permissions is not None else agent.settings.permission_mode
    return StatusInfo(
        model=model,
        context_tokens=tokens,
        context_window=context.context_window if context is not None else 0,
        auto_threshold=context.auto_threshold if context is not None else 0,
        tokens_in=usage.prompt_tokens,
        tokens_out=usage.output_tokens,
        cost_usd=cost_usd(model, usage.input_tokens, usage.output_tokens, usage.cache_read_tokens, usage.cache_write_tokens),
        mode=mode,
        session_id=agent.session.id,
    )
