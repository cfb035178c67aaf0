"""``/context``: what fills the context window, estimated with the compaction runtime's own estimator."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from pseudoclaude.llm.messages import Message


@dataclass(frozen=True)
class ContextBreakdown:
    system_tokens: int
    tools_tokens: int
    message_tokens: int
    messages: int
    estimated_tokens: int
    context_window: int
    auto_threshold: int
    offloaded_results: int
    offloaded_bytes: int
    estimator: str


def context_breakdown(agent: Any) -> ContextBreakdown:
    runner = agent.runner
    count = runner.context.count
    system = runner.config.system + "\n" + runner.config.system_suffix
    tools = json.dumps([{"name": s.name, "description": s.description, "input_schema": s.input_schema} for s in runner.tool_specs])
    status = runner.context.status(runner.conversation)
    return ContextBreakdown(
        system_tokens=count([Message.user(system)]),
        tools_tokens=count([Message.user(tools)]),
        message_tokens=count(runner.conversation),
        messages=len(runner.conversation),
        estimated_tokens=status.estimated_tokens,
        context_window=status.context_window,
        auto_threshold=status.auto_threshold,
        offloaded_results=status.replaced_results,
        offloaded_bytes=_folder_bytes(agent.session.spill_dir),
        estimator=status.estimator,
    )


def render_context(console: Console, agent: Any) -> None:
    b = context_breakdown(agent)
    window = max(1, b.context_window)
    table = Table(box=None, pad_edge=False, show_header=False)
    table.add_column(style="bold")
    table.add_column(justify="right")
    table.add_column(style="dim")
    table.add_row("system prompt", f"{b.system_tokens:,}", "tokens")
    table.add_row("tools", f"{b.tools_tokens:,}", "tokens")
    table.add_row("messages", f"{b.message_tokens:,}", f"tokens in {b.messages} messages")
    table.add_row("offloaded", f"{b.offloaded_bytes:,}", f"bytes on disk ({b.offloaded_results} tool results replaced by previews)")
    table.add_row("estimated total", f"{b.estimated_tokens:,}", f"tokens = {100 * b.estimated_tokens / window:.1f}% of {b.context_window:,}")
    table.add_row("auto-compaction at", f"{b.auto_threshold:,}", f"tokens = {100 * b.auto_threshold / window:.0f}% (estimator: {b.estimator})")
    console.print(table)
    files = agent.loaded_instruction_files() if hasattr(agent, "loaded_instruction_files") else ()
    for file in files:
        console.print(f"[dim]  instructions: {file.path} ({file.size:,} bytes)[/]")


def _folder_bytes(folder: Path | None) -> int:
    if folder is None or not folder.is_dir():
        return 0
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())
