"""A resumed conversation, redrawn as it looked live (``--continue``, ``--resume``, ``/resume``).

The user's messages are echoed as the REPL echoes them (``❯``), answers go
through the same ``MarkdownStream`` as a streamed answer (headings, bold and
fences rendered, never the raw source), and each tool call is the
``tool_block`` a live turn prints, built from the call and its saved result.
Only the end of a long conversation is drawn: whole messages (never half an
answer, never a cut inside a code block) that fit in ``rows`` terminal rows,
with the number of earlier ones above. A compaction boundary is one line.

Everything shown is untrusted (the model's text, tools' results): the
renderers used here pass it through ``textsafe.for_terminal``.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from rich.console import Console, Group, RenderableType
from rich.text import Text

from pseudoclaude.llm import Message, ToolResult
from pseudoclaude.textsafe import for_terminal
from pseudoclaude.tui.markdown import MarkdownStream
from pseudoclaude.tui.toolview import tool_block

_SUMMARY_LIMIT = 100


class _Collector(Console):
    """A console that keeps what is printed to it as renderables (so ``MarkdownStream``'s output is measured, then printed)."""

    def __init__(self, width: int) -> None:
        super().__init__(width=width)
        self.printed: list[RenderableType] = []

    def print(self, *objects: Any, **options: Any) -> None:
        self.printed.extend(objects)


def render_transcript(
    console: Console, session_id: str, conversation: Sequence[Message], *, summarized: bool = False, rows: int | None = None
) -> None:
    """Print the end of ``conversation`` (``Agent.transcript``) that fits in ``rows`` rows (two screens by default)."""
    budget = rows if rows is not None else 2 * (console.height or 24)
    units = message_views(conversation, width=console.width)
    shown: list[RenderableType] = []
    used = 0
    for unit in reversed(units):
        height = len(console.render_lines(unit, console.options, pad=False))
        if shown and used + height > budget:
            break
        shown.append(unit)
        used += height
    console.print(Text(f"Resumed session {session_id} ({count(len(conversation), 'message')})", style="bold"))
    if summarized:
        console.print(Text("⟳ … earlier conversation summarized (compacted)", style="dim"))
    if len(units) > len(shown):
        console.print(Text(f"… {count(len(units) - len(shown), 'earlier message')}", style="dim"))
    for unit in reversed(shown):
        console.print(unit)
    console.rule(style="dim")


def message_views(conversation: Sequence[Message], *, width: int = 80) -> list[RenderableType]:
    """One renderable per user or assistant message (an assistant's tool calls with their results in it)."""
    results = {m.tool_result.call_id: m.tool_result for m in conversation if m.role == "tool" and m.tool_result is not None}
    views: list[RenderableType] = []
    for message in conversation:
        if message.role == "user":
            echo = Text("❯ ", style="bold cyan") + Text(for_terminal(message.text.strip()))
            views.append(Group(Text(""), echo) if views else echo)
        elif message.role == "assistant":
            parts = answer(message.text, width) if message.text.strip() else []
            parts += [call_view(call.name, _arguments(call), results.get(call.id)) for call in message.tool_calls]
            if parts:
                views.append(Group(*parts))
    return views


def answer(text: str, width: int) -> list[RenderableType]:
    """The answer as the live view printed it: the same streaming Markdown renderer, fed the whole text at once."""
    collector = _Collector(width)
    stream = MarkdownStream(collector)
    stream.feed(text)
    stream.finish()
    return collector.printed


def call_view(name: str, arguments: Mapping[str, Any], result: ToolResult | None) -> RenderableType:
    """A finished call's block from what the session kept: its arguments and its result's text."""
    if result is None:
        return tool_block(name, arguments, is_error=True, summary="no result (interrupted)", display={})
    display: dict[str, Any] = {}
    plan = arguments.get("plan")
    if name == "exit_plan_mode" and isinstance(plan, str) and not result.is_error:
        display["plan"] = plan
    return tool_block(name, arguments, is_error=result.is_error, summary=result_summary(result.content), display=display)


def result_summary(content: str) -> str:
    """The result's first line (and how many follow): the saved result has no live summary, so it speaks for itself."""
    lines = [line for line in content.strip().splitlines() if line.strip()]
    if not lines:
        return "done"
    first = " ".join(lines[0].split())
    first = first if len(first) <= _SUMMARY_LIMIT else first[: _SUMMARY_LIMIT - 1] + "…"
    return first if len(lines) == 1 else f"{first} (+{count(len(lines) - 1, 'line')})"


def _arguments(call: Any) -> Mapping[str, Any]:
    try:
        parsed = call.parsed_arguments()
    except ValueError:
        return {}
    return parsed if isinstance(parsed, Mapping) else {}


def count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
