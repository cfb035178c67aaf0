"""Rendering sessions for ``pseudoclaude sessions list|show``.

Pure functions onto a given ``rich.console.Console``: they read a listing or a
replay and print nothing else, so tests capture them on a fixed-width console.
This module imports rich at import time: the CLI must import it lazily, inside
the ``sessions`` subcommands, never on the start-up path.

The transcript shows every recorded message (``Replay.transcript``), marks
where the conversation was compacted, and notes tool results that Layer 1
offloaded (the transcript keeps their full original content).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Sequence

from rich.console import Console
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from pseudoclaude.llm import Message
from pseudoclaude.session import Replay, SessionInfo, Subrun

_ARGUMENT_LIMIT = 120


def render_session_list(console: Console, sessions: Sequence[SessionInfo], *, now: datetime | None = None) -> None:
    """A table of sessions, as ``list_sessions`` returns them (most recent first)."""
    if not sessions:
        console.print("No sessions in this workspace yet.")
        return
    moment = now or datetime.now(timezone.utc)
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("ID", no_wrap=True)
    table.add_column("Updated", no_wrap=True)
    table.add_column("Turns", justify="right")
    table.add_column("Size", justify="right", no_wrap=True)
    table.add_column("Title", overflow="ellipsis", no_wrap=True)
    for info in sessions:
        table.add_row(
            info.id,
            relative_time(info.updated, moment),
            str(info.turns),
            human_size(info.size_bytes),
            info.title or Text("(untitled)", style="dim"),
        )
    console.print(table)


def render_transcript(console: Console, replay: Replay, *, max_result_lines: int = 6, subruns: Sequence[Subrun] = ()) -> None:
    """Every recorded message, compaction boundaries and replay warnings; then each sub-agent's run (issue 20)."""
    meta = replay.meta
    console.print(Text(f"Session {meta.id}", style="bold"))
    details = f"{meta.provider}/{meta.model}" if meta.provider else meta.model
    console.print(Text(f"{details}  created {meta.created:%Y-%m-%d %H:%M} UTC  {meta.cwd}", style="dim"))
    if meta.title:
        console.print(Text(meta.title, style="italic"))
    boundaries = set(replay.boundaries)
    for index, message in enumerate(replay.transcript):
        if index in boundaries:
            console.print(Rule("context compacted here", style="yellow"))
        _render_message(console, message, replay, max_result_lines)
    if len(replay.transcript) in boundaries:
        console.print(Rule("context compacted here", style="yellow"))
    total = replay.usage_total
    console.print(
        Text(f"tokens: {total.prompt_tokens:,} prompt, {total.output_tokens:,} output", style="dim")
    )
    for warning in replay.warnings:
        console.print(Text(f"warning: {warning}", style="yellow"))
    for subrun in subruns:
        sub = subrun.replay
        console.print(Rule(Text(f"sub-agent {sub.meta.title or '?'}  (task call {subrun.call_id}, {sub.meta.model})"), style="blue"))
        for message in sub.transcript:
            _render_message(console, message, sub, max_result_lines)
        used = sub.usage_total
        console.print(Text(f"sub-agent tokens: {used.prompt_tokens:,} prompt, {used.output_tokens:,} output", style="dim"))


def _render_message(console: Console, message: Message, replay: Replay, max_result_lines: int) -> None:
    if message.role == "user":
        console.print(Text("> ", style="bold cyan") + Text(message.text))
        return
    if message.role == "assistant":
        if message.text:
            console.print(Text(message.text))
        for call in message.tool_calls:
            arguments = _shorten(" ".join(call.arguments.split()), _ARGUMENT_LIMIT)
            console.print(Text("* ", style="bold green") + Text(f"{call.name}({arguments})", style="bold"))
        return
    result = message.tool_result
    if result is None:
        return
    lines = result.content.splitlines() or [""]
    shown = lines[:max_result_lines]
    style = "red" if result.is_error else "dim"
    for number, line in enumerate(shown):
        prefix = "  └ " if number == 0 else "    "
        console.print(Text(prefix) + Text(_shorten(line, 200), style=style))
    if len(lines) > len(shown):
        console.print(Text(f"    … +{len(lines) - len(shown)} lines", style="dim"))
    replacement = replay.replacements.get(result.call_id)
    if replacement is not None:
        console.print(
            Text(f"    offloaded ({human_size(replacement.original_bytes)}) to {replacement.path}", style="yellow")
        )


def relative_time(moment: datetime, now: datetime) -> str:
    seconds = (now - moment).total_seconds()
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)}m ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h ago"
    if seconds < 7 * 86400:
        return f"{int(seconds // 86400)}d ago"
    return f"{moment:%Y-%m-%d}"


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
