"""``/context``: what fills the context window, rendered from the agent's ``ContextBreakdown`` view."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from pseudoclaude.agent import ContextBreakdown
from pseudoclaude.llm import IMAGE_RULES

if TYPE_CHECKING:
    from pseudoclaude.compact import PinnedParts


def render_context(console: Console, b: ContextBreakdown) -> None:
    window = max(1, b.context_window)
    table = Table(box=None, pad_edge=False, show_header=False)
    table.add_column(style="bold")
    table.add_column(justify="right")
    table.add_column(style="dim")
    table.add_row("system prompt", f"{b.system_tokens:,}", "tokens")
    table.add_row("tools", f"{b.tools_tokens:,}", "tokens")
    table.add_row("messages", f"{b.message_tokens:,}", f"tokens in {b.messages} messages")
    pinned = "user messages, files touched and the newest ones' text, todos, plan, last failure" if b.pinned_tokens else "none until a summary"
    table.add_row("  pinned block", f"{b.pinned_tokens:,}", f"tokens of them ({pinned})")
    if b.pinned_tokens and b.pinned is not None:
        for row in _pinned_rows(b.pinned):
            table.add_row(*row)
    if b.images or b.image_notes:
        table.add_row("  images", f"{b.image_tokens:,}", f"tokens of them: {_images(b)}")
    table.add_row("offloaded", f"{b.offloaded_bytes:,}", _offloaded(b))
    table.add_row(
        "estimated total",
        f"{b.estimated_tokens:,}",
        f"tokens = {100 * b.estimated_tokens / window:.1f}% of {b.context_window:,}" + (f" (window: {b.window_source})" if b.window_source else ""),
    )
    table.add_row("auto-compaction at", f"{b.auto_threshold:,}", f"tokens = {100 * b.auto_threshold / window:.0f}% (estimator: {b.estimator})")
    if b.engine:
        table.add_row("context engine", "", b.engine)
    console.print(table)
    for file in b.instruction_files:
        console.print(f"[dim]  instructions: {file.path} ({file.size:,} bytes)[/]")


def _offloaded(b: ContextBreakdown) -> str:
    """What the offloaded bytes are, and how many results the context now holds as previews (said only when some are).

    The bytes are the session's saved full outputs (long command outputs the tool
    saved itself, and results a layer replaced): their count and the number of
    previews in the context now are different things, so a zero is not printed as if it were the count.
    """
    if not b.offloaded_bytes and not b.offloaded_results:
        return "bytes: nothing offloaded yet"
    said = "bytes of full tool output saved on disk"
    if b.offloaded_results:
        one = b.offloaded_results == 1
        said += f"; {b.offloaded_results} tool result{'' if one else 's'} in the context replaced by {'a preview naming its file' if one else 'previews naming their files'}"
    return said


def _images(b: ContextBreakdown) -> str:
    """Images seen now, by which rule, and how many older ones became notes (``/context`` shows it only when there are any)."""
    plural = "" if b.images == 1 else "s"
    if b.image_rule == "no-vision":
        seen = f"{b.images} image{plural}, each sent as a short note (the model has no vision)"
    else:
        seen = f"{b.images} image{plural} the model sees ({IMAGE_RULES.get(b.image_rule, b.image_rule)})"
    return seen + (
        f", {b.image_notes} older one{'' if b.image_notes == 1 else 's'} replaced by a note naming {'its' if b.image_notes == 1 else 'their'} file"
        if b.image_notes
        else ""
    )


def _pinned_rows(p: PinnedParts) -> list[tuple[str, str, str]]:
    """The pinned block's parts, one row each, and a line saying what had to be reduced to fit (only when something was)."""
    tail = f"; {p.in_tail} more verbatim in the kept tail" if p.in_tail else ""
    shown = p.user_messages - p.in_tail
    rows = [("    user messages", f"{p.user_tokens:,}", f"tokens: {shown} message{'' if shown == 1 else 's'}, {p.verbatim} verbatim{tail}")]
    reduced = p.by_rules + p.summarized
    if reduced:
        rows.append(
            ("    rules extracted", f"{p.rules:,}", f"instructions pinned verbatim from {reduced} message{'' if reduced == 1 else 's'} not carried whole")
        )
    rows.append(("    files touched", f"{p.files_tokens:,}", f"tokens: {p.files} path{'' if p.files == 1 else 's'}, grouped by directory"))
    if p.failure_tokens:
        rows.append(("    last failure", f"{p.failure_tokens:,}", "tokens"))
    if p.todo_tokens:
        rows.append(("    todo list", f"{p.todo_tokens:,}", "tokens"))
    if p.attached_tokens:
        rows.append(("    file text, plan", f"{p.attached_tokens:,}", "tokens read from disk at the compaction"))
    if p.reduced:
        what = []
        if p.by_rules:
            what.append(f"{p.by_rules} by their instructions")
        if p.summarized:
            what.append(f"{p.summarized} oldest summarized (instructions kept)")
        if p.bare:
            what.append(f"{p.bare} to their opening words only")
        if p.collapsed:
            what.append(f"{p.collapsed} left out for space")
        rows.append(("    reduced to fit", "", f"user messages: {', '.join(what)}; whole in the session, recall finds them"))
    return rows
