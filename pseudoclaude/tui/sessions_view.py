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
from rich.text import Text

from pseudoclaude.llm import Message
from pseudoclaude.session import Replay, SessionInfo, Subrun
from pseudoclaude.textsafe import for_terminal

_ARGUMENT_LIMIT = 120


def render_session_list(console: Console, sessions: Sequence[SessionInfo], *, now: datetime | None = None, workspaces: bool = False) -> None:
    """A table of sessions, as ``list_sessions`` returns them (most recent first).

    The id is what a user copies for ``--resume``, so it is never cut: the
    fixed columns keep their full width and the title (then the workspace,
    with ``workspaces``) takes what is left, ending in "…" when it must.
    """
    if not sessions:
        console.print("No sessions in this workspace yet." if not workspaces else "No sessions yet.")
        return
    moment = now or datetime.now(timezone.utc)
    headers = ("ID", "Updated", "Turns", "Size", *(("Workspace",) if workspaces else ()), "Title")
    rows = [
        (
            info.id,
            relative_time(info.updated, moment),
            str(info.turns),
            human_size(info.size_bytes),
            *((for_terminal(info.cwd),) if workspaces else ()),
            for_terminal(info.title) or "(untitled)",
        )
        for info in sessions
    ]
    fixed = [max(len(headers[n]), *(len(row[n]) for row in rows)) for n in range(4)]
    room = max(8, console.width - sum(fixed) - 2 * (len(headers) - 1))
    flexible = [max(len(headers[n]), *(len(row[n]) for row in rows)) for n in range(4, len(headers))]
    if sum(flexible) + 2 * (len(flexible) - 1) > room:
        flexible = _share(flexible, room - 2 * (len(flexible) - 1))
    widths = fixed + flexible
    console.print(_line(headers, widths), style="bold", soft_wrap=True)
    for row in rows:
        console.print(_line(row, widths), soft_wrap=True)


def _share(wanted: list[int], room: int) -> list[int]:
    """Widths for the flexible columns within ``room``: the workspace gets a third at most, the title the rest."""
    if len(wanted) == 1:
        return [max(1, room)]
    first = min(wanted[0], max(len("Workspace"), room // 3))
    return [first, max(1, room - first)]


def _line(cells: Sequence[str], widths: Sequence[int]) -> Text:
    """One row: fixed columns padded (counts right-aligned), the last ones cut with "…" to fit."""
    parts = []
    for index, (cell, width) in enumerate(zip(cells, widths)):
        if len(cell) > width:  # a workspace keeps its end (the project's name), a title its start
            cell = "…" + cell[len(cell) - width + 1 :] if index == 4 and len(cells) == 6 else cell[: max(0, width - 1)] + "…"
        parts.append(cell.rjust(width) if index in (2, 3) else cell.ljust(width))
    return Text("  ".join(parts).rstrip())


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
    console.print(Text(f"tokens: {total.prompt_tokens:,} prompt, {total.output_tokens:,} output", style="dim"))
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
        console.print(Text(f"    offloaded ({human_size(replacement.original_bytes)}) to {replacement.path}", style="yellow"))


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
