"""What one runner is told (``RunConfig``) and the limits it stops at: turns and estimated cost, per run.

A limit is checked before each model call, so a run never starts a call it
may not pay for; a cost limit on a model with no known price says so once
instead of silently never stopping.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pseudoclaude.agent import events as ev
from pseudoclaude.llm import Effort, RetryPolicy, ThinkingMode, Usage, cost_usd, model_info


@dataclass(frozen=True)
class RunConfig:
    """What one runner is told; ``max_turns`` and ``max_budget_usd`` are per run (one prompt), None: no limit."""

    model: str
    system: str
    system_suffix: str = ""
    max_turns: int | None = None
    max_budget_usd: float | None = None
    max_tokens: int = 8192
    max_format_errors: int = 3
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    effort: Effort | None = None
    max_thinking_tokens: int | None = None
    thinking: ThinkingMode | None = None


def limit_stop(config: RunConfig, turns: int, run_usage: Usage, last_text: str) -> ev.Stop | None:
    """The Stop before the next model call when this run reached its turn limit or passed its cost limit."""
    limit, budget = config.max_turns, config.max_budget_usd
    if limit is not None and turns >= limit:
        return ev.Stop("max_turns", last_text, turns, f"stopped after {turns} turns (the --max-turns / maxTurns limit)")
    if budget is not None and (spent := run_cost_usd(config, run_usage)) >= budget:
        text = f"stopped after {turns} turns: the estimated cost of this run, ${spent:.2f}, reached the --max-budget-usd / maxBudgetUsd limit of ${budget:.2f}"
        return ev.Stop("max_budget", last_text, turns, text)
    return None


def limit_warnings(config: RunConfig) -> list[ev.Event]:
    """A cost limit on a model without a known price cannot stop anything: say so instead of pretending."""
    info = model_info(config.model)
    if config.max_budget_usd is None or (info is not None and (info.input_per_mtok or info.output_per_mtok)):
        return []
    return [ev.Progress("warning", f"no price is known for {config.model}: its estimated cost stays $0 and the cost limit cannot stop the run")]


def run_cost_usd(config: RunConfig, run_usage: Usage) -> float:
    """The estimated cost of this run's model calls (cache reads and writes at their prices)."""
    used = run_usage
    return cost_usd(config.model, used.input_tokens, used.output_tokens, used.cache_read_tokens, used.cache_write_tokens)
