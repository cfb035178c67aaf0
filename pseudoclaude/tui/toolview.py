"""How one tool call looks in the transcript: a title line, then a short result.

Pure functions from event data to Rich renderables, so they are tested on a
fixed-width console. A result never floods the screen: the first (or, for
commands, the last) few lines are shown, with a count of the rest.

Which argument a title shows is each tool's declared ``key_argument``:
``keys`` maps tool names to it (``ToolRegistry.display_keys()`` of the
session's tools); without it, the built-in tools' declarations are used.
What a finished call shows below its summary follows from its ``display``
(a diff, a command's output tail, a todo list), whatever the tool. All of it
(arguments from the model, summaries, output, diffs of file content) is
untrusted and shown through ``textsafe.for_terminal``.

A block fits the width it is drawn at (``fit``): a long path in the title or
in the saved-output line is shortened in the middle, keeping the file name,
and a long result line wraps under its indent, never at column 0.
"""

from __future__ import annotations

from typing import Any, Mapping

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.text import Text

from pseudoclaude.textsafe import for_terminal
from pseudoclaude.tui.fit import Fitted, Indented, shorten_middle

DIFF_LINES = 12
OUTPUT_LINES = 6
_ARGUMENT_LIMIT = 90


def builtin_keys() -> Mapping[str, str]:
    """The display keys the built-in tools declare."""
    from pseudoclaude.tools import builtin_registry

    return builtin_registry().display_keys()


def key_argument(name: str, arguments: Mapping[str, Any], keys: Mapping[str, str] | None = None, *, limit: int = _ARGUMENT_LIMIT) -> str:
    """The one argument that says what a call does (its path, command or pattern), shortened in the middle to ``limit`` cells."""
    key = (builtin_keys() if keys is None else keys).get(name)
    value = arguments.get(key) if key else None
    if value is None:
        value = next((v for v in arguments.values() if isinstance(v, str)), "")
    text = for_terminal(" ".join(str(value).split()))
    return shorten_middle(text, max(8, limit))


def tool_title(
    name: str,
    arguments: Mapping[str, Any],
    *,
    bullet: str = "●",
    style: str = "green",
    keys: Mapping[str, str] | None = None,
    width: int | None = None,
) -> Text:
    """``● name(argument)``; with ``width``, the argument is shortened so the title fits on one line."""
    title = Text(f"{bullet} ", style=f"bold {style}") + Text(name, style="bold")
    room = _ARGUMENT_LIMIT if width is None else min(_ARGUMENT_LIMIT, width - title.cell_len - 2)
    argument = key_argument(name, arguments, keys, limit=room)
    if argument:
        title += Text(f"({argument})")
    return title


def tool_block(
    name: str,
    arguments: Mapping[str, Any],
    *,
    is_error: bool,
    summary: str,
    display: Mapping[str, Any],
    keys: Mapping[str, str] | None = None,
) -> RenderableType:
    """The finished call: title, summary, then a diff, a command's output tail or a todo list.

    A command that failed (non-zero exit, killed, timed out) is not a tool
    error, yet it must not look like one that passed: its title and summary
    take the error colour, and the summary says how it ended.
    """
    plan = display.get("plan")
    if isinstance(plan, str) and plan.strip() and not is_error:
        from pseudoclaude.tui.plan_view import approved_plan  # an approved plan stays in the scrollback, rendered

        return Group(*approved_plan(plan))
    failure = command_failure(display)
    failed = is_error or failure is not None
    colour = "red" if failed else "green"
    lines: list[RenderableType] = [Fitted(lambda width: tool_title(name, arguments, style=colour, keys=keys, width=width))]
    denied = display.get("denied")
    if isinstance(denied, str) and denied.strip():
        summary = f"Denied: {denied.strip()}"  # the reason (the user's words, a rule, plan mode) is what the model was told
    shown = for_terminal(summary) or ("failed" if is_error else "done")
    if failure is not None and failure not in shown:
        shown += f" ({failure})"
    body: list[RenderableType] = [fitted_summary(shown, key_argument(name, arguments, keys, limit=1 << 16), style="red" if failed else "dim")]
    diff = display.get("diff")
    if isinstance(diff, str) and diff and not is_error:
        body += diff_lines(diff)
    elif isinstance(display.get("tail"), str) and display["tail"]:
        path = display.get("output_path")
        body += output_tail(display["tail"], total_lines=int(display.get("output_lines") or 0), full_output=path if isinstance(path, str) else None)
    elif isinstance(display.get("todos"), list):
        body += [_todo_line(item) for item in display["todos"] if isinstance(item, Mapping)]
    if isinstance(display.get("rule_saved"), str):
        body.append(Text(f"✓ allowed from now on: {for_terminal(display['rule_saved'])}", style="yellow"))
    lines += [Indented("  ⎿ " if number == 0 else "    ", line) for number, line in enumerate(body)]
    return Group(*lines)


def fitted_summary(summary: str, argument: str, *, style: str) -> RenderableType:
    """The summary on one line where it names the call's argument (``Read <path> lines 1-40``): the path is shortened, not wrapped."""
    if len(argument) < 12 or argument not in summary:
        return Text(summary, style=style)

    def build(width: int) -> Text:
        room = width - (cell_len(summary) - cell_len(argument))
        return Text(summary if cell_len(summary) <= width or room < 12 else summary.replace(argument, shorten_middle(argument, room), 1), style=style)

    return Fitted(build)


def command_failure(display: Mapping[str, Any]) -> str | None:
    """How a finished command failed (``exit 1``, ``killed by signal 9``, ``timed out``), or None when it passed or still runs."""
    if display.get("timed_out") is True:
        return "timed out"
    if display.get("running") is True:
        return None
    code = display.get("exit_code")
    if not isinstance(code, int) or isinstance(code, bool) or code == 0:
        return None
    return f"killed by signal {-code}" if code < 0 else f"exit {code}"


def diff_lines(diff: str, limit: int = DIFF_LINES) -> list[Text]:
    """A unified diff, coloured, without its file headers, cut to ``limit`` lines."""
    rows = [row for row in for_terminal(diff).splitlines() if not row.startswith(("---", "+++"))]
    shown = [_diff_row(row) for row in rows[:limit]]
    if len(rows) > limit:
        shown.append(Text(f"… +{len(rows) - limit} lines", style="dim"))
    return shown


def _diff_row(row: str) -> Text:
    if row.startswith("+"):
        return Text(row, style="green")
    if row.startswith("-"):
        return Text(row, style="red")
    if row.startswith("@@"):
        return Text(row, style="cyan")
    return Text(row, style="dim")


def output_tail(content: str, limit: int = OUTPUT_LINES, total_lines: int = 0, full_output: str | None = None) -> list[RenderableType]:
    """The last lines of a command's output (a trailing ``[exit code ...]`` note dropped).

    ``total_lines``: how many lines the whole output had, when ``content`` is
    only its tail; ``full_output``: the file that holds all of it. The count
    line says how many of how many lines are hidden, so it adds up.
    """
    rows = for_terminal(content).rstrip("\n").splitlines()
    if rows and rows[-1].startswith("[") and rows[-1].endswith("]"):
        rows = rows[:-1]
    if rows == ["(no output)"] or not rows:
        return []
    shown: list[RenderableType] = [Text(row[:200], style="dim") for row in rows[-limit:]]
    total = max(len(rows), total_lines)
    hidden = total - len(shown)
    if hidden > 0:
        shown.insert(0, hidden_line(f"… {hidden:,} of {total:,} lines hidden", full_output))
    return shown


def hidden_line(count: str, full_output: str | None) -> RenderableType:
    """The count of hidden lines and, shortened to fit the line, the file that holds them all."""
    if not full_output:
        return Text(count, style="dim")
    path = for_terminal(full_output)

    def build(width: int) -> Text:
        room = width - len(count) - len(" (full output: )")
        if room >= min(len(path), 40):
            return Text(f"{count} (full output: {shorten_middle(path, room)})", style="dim")
        return Text(f"{count}, full output in\n{shorten_middle(path, width)}", style="dim")  # a narrow window: the path on its own line

    return Fitted(build)


def _todo_line(item: Mapping[str, Any]) -> Text:
    status = str(item.get("status", ""))
    mark = {"completed": "☒", "in_progress": "◐"}.get(status, "☐")
    style = "dim strike" if status == "completed" else ("bold" if status == "in_progress" else "")
    return Text(f"{mark} {for_terminal(str(item.get('content', '')))}", style=style)
