"""A resumed conversation, redrawn as it looked live (``--continue``, ``--resume``, ``/resume``).

The user's messages are echoed as the REPL echoes them (``❯``), answers go
through the same ``MarkdownStream`` as a streamed answer (headings, bold and
fences rendered, never the raw source), and each tool call is the
``tool_block`` a live turn prints, built from the call and its saved result.
Only the end of a long conversation is drawn: whole messages (never half an
answer, never a cut inside a code block) that fit in ``rows`` terminal rows,
with the number of earlier ones above. A compaction boundary is one line.
A run of explore calls is folded into one line, as it was live.
``expanded_messages`` draws all of it with every call's whole result under
its block (the transcript pager, ``transcript_pager``).

Everything shown is untrusted (the model's text, tools' results): the
renderers used here pass it through ``textsafe.for_terminal``.
"""

from __future__ import annotations

import difflib
import re
from typing import Any, Mapping, Sequence

from rich.console import Console, Group, RenderableType
from rich.text import Text

from pseudoclaude.llm import Message, ToolCall, ToolResult
from pseudoclaude.textsafe import for_terminal
from pseudoclaude.agent import ToolCallFinished
from pseudoclaude.tui.blocks import ExploreRun, FinishedCall, builtin_explore_kinds, fold_view
from pseudoclaude.tui.fit import Indented
from pseudoclaude.tui.markdown import MarkdownStream
from pseudoclaude.tui.toolview import tool_block

_SUMMARY_LIMIT = 100
_INTERRUPT = re.compile(r"^\[Request interrupted(?: by user|(: [^\]\n]+))\]$")


class _Collector(Console):
    """A console that keeps what is printed to it as renderables (so ``MarkdownStream``'s output is measured, then printed)."""

    def __init__(self, width: int) -> None:
        super().__init__(width=width)
        self.printed: list[RenderableType] = []

    def print(self, *objects: Any, **options: Any) -> None:
        self.printed.extend(objects)


def render_transcript(console: Console, session_id: str, conversation: Sequence[Message], *, summarized: bool = False, rows: int | None = None) -> None:
    """Print the end of ``conversation`` (``Agent.transcript``) that fits in ``rows`` rows (two screens by default).

    Messages are rendered from the last one back and only until the budget is
    spent, so resuming a session of thousands of messages costs what two
    screens cost. The last message is drawn whole, however tall.
    """
    budget = rows if rows is not None else 2 * (console.height or 24)
    results = {m.tool_result.call_id: m.tool_result for m in conversation if m.role == "tool" and m.tool_result is not None}
    messages = [m for m in conversation if shown_in_transcript(m)]
    views: list[RenderableType] = []
    used = 0
    for index in range(len(messages) - 1, -1, -1):
        view = message_view(messages[index], results, width=console.width, first=index == 0)
        height = len(console.render_lines(view, console.options, pad=False))
        if views and used + height > budget:
            break
        views.append(view)
        used += height
    console.print(Text(f"Resumed session {session_id} ({count(len(conversation), 'message')})", style="bold"))
    if summarized:
        console.print(Text("⟳ … earlier conversation summarized (compacted)", style="dim"))
    if len(messages) > len(views):
        console.print(Text(f"… {count(len(messages) - len(views), 'earlier message')}", style="dim"))
    for view in reversed(views):
        console.print(view)
    console.rule(style="dim")


def expanded_messages(conversation: Sequence[Message], *, width: int = 80) -> list[RenderableType]:
    """Every message as ``message_view`` draws it, each tool call followed by the whole result the model read."""
    results = {m.tool_result.call_id: m.tool_result for m in conversation if m.role == "tool" and m.tool_result is not None}
    messages = [m for m in conversation if shown_in_transcript(m)]
    return [message_view(m, results, width=width, first=index == 0, expanded=True) for index, m in enumerate(messages)]


def shown_in_transcript(message: Message) -> bool:
    """A user's message, or an answer with text or tool calls (tool results are drawn inside their call's block)."""
    if message.role == "user":
        return True
    return message.role == "assistant" and (bool(message.text.strip()) or bool(message.tool_calls))


def message_view(message: Message, results: Mapping[str, ToolResult], *, width: int = 80, first: bool = False, expanded: bool = False) -> RenderableType:
    """One message as the live REPL drew it: the user's echoed with ``❯`` (a blank line above), an answer with its calls' blocks.

    ``expanded``: each block is followed by its call's whole result, under the block's indent.
    """
    if message.role == "user":
        marker = _INTERRUPT.match(message.text.strip())
        if marker is not None:  # the runner's note of an interrupt, not something the user typed: drawn as the live view drew it
            return Text(f"■ Interrupted{for_terminal(marker.group(1) or '')}", style="yellow")
        echo = Text("❯ ", style="bold cyan") + Text(for_terminal(message.text.strip()))
        return echo if first else Group(Text(""), echo)
    parts: list[RenderableType] = []
    if any(part.text.strip() for part in message.thinking):
        parts.append(Text("✻ Thought", style="dim italic"))  # folded, as the live view left it (its duration was not kept)
    parts += answer(message.text, width) if message.text.strip() else []
    if not expanded:
        return Group(*parts, *folded_calls(message, results))
    for call in message.tool_calls:
        result = results.get(call.id)
        parts.append(call_view(call.name, _arguments(call), result))
        if result is not None:
            parts += [Indented("    ", Text(row, style="dim")) for row in for_terminal(result.content).rstrip("\n").splitlines()]
    return Group(*parts)


def folded_calls(message: Message, results: Mapping[str, ToolResult]) -> list[RenderableType]:
    """The answer's calls as the live view printed them: a run of two or more explore calls folded into one line."""
    run = ExploreRun(builtin_explore_kinds())
    parts: list[RenderableType] = []

    def close() -> None:
        block = run.close()
        if block is not None and block.folded:
            parts.append(fold_view(block.calls, block.kinds))
        elif block is not None:
            only = block.calls[0]
            parts.append(call_view(only.name, only.arguments, results.get(only.finished.call_id)))

    for call in message.tool_calls:
        arguments, result = _arguments(call), results.get(call.id)
        finished = ToolCallFinished(call.id, call.name, result is None or result.is_error, "", {}, result.content if result else "")
        if not run.take(FinishedCall(call.name, arguments, finished)):
            close()
            parts.append(call_view(call.name, arguments, result))
    close()
    return parts


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
    summary = result.summary or result_summary(result.content, is_error=result.is_error)
    plan = arguments.get("plan")
    command = arguments.get("command")
    if name == "exit_plan_mode" and isinstance(plan, str) and not result.is_error:
        display["plan"] = plan
    elif name == "read_file" and isinstance(arguments.get("path"), str) and summary.startswith("lines ") and not result.summary:
        summary = f"Read {arguments['path']} {summary}"
    elif name == "edit_file" and not result.is_error:
        display = edit_display(arguments)
    elif name == "run_command" and isinstance(command, str) and not result.is_error:
        display = command_display(result.content)
        summary = result.summary or f"$ {' '.join(command.split())[:80]}"
    return tool_block(name, arguments, is_error=result.is_error, summary=summary, display=display)


def edit_display(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """An edit's change as a diff of its own strings (the live diff had the file's line numbers; the session keeps only the call)."""
    old, new = arguments.get("old_string"), arguments.get("new_string")
    if not isinstance(old, str) or not isinstance(new, str):
        return {}
    rows = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=2)
    return {"diff": "\n".join(row for row in rows if not row.startswith("@@"))}


def command_display(content: str) -> dict[str, Any]:
    """How a saved command result ended (``[exit code N]``, a signal, a timeout) and its output, as the live block shows them."""
    display: dict[str, Any] = {"tail": content}
    ending = _ENDING.search(content)
    if ending is not None and ending.group(1) is not None:
        display["exit_code"] = int(ending.group(1))
    elif ending is not None and ending.group(2) is not None:
        display["exit_code"] = -int(ending.group(2))
    elif ending is not None:
        display["timed_out"] = True
    return display


_ENDING = re.compile(r"^\[(?:exit code (-?\d+)|killed by signal (\d+)|(timed out))", re.MULTILINE)


def result_summary(content: str, *, is_error: bool = False) -> str:
    """What a saved result says, standing in for the live summary the session does not keep.

    A one-line result (an edit's confirmation, an error) is shown as it is;
    a longer one (a file's lines, search hits) by its size, never by its
    first line, which is just content.
    """
    lines = [line for line in content.strip().splitlines() if line.strip()]
    if not lines:
        return "done"
    if len(lines) > 1 and not is_error:
        note = lines[-1].strip()
        if note.startswith("… "):  # a tool's closing line ("… lines 1-40 of 120 (end of file)"); what follows ";" is for the model
            return note[2:].split(";")[0]
        return count(len(lines), "line")
    first = " ".join(lines[0].split())
    return first if len(first) <= _SUMMARY_LIMIT else first[: _SUMMARY_LIMIT - 1] + "…"


def _arguments(call: ToolCall) -> Mapping[str, Any]:
    try:
        parsed = call.parsed_arguments()
    except ValueError:
        return {}
    return parsed if isinstance(parsed, Mapping) else {}


def count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
