"""The permission policy's ``Approver`` for the REPL.

The policy calls ``ask`` from inside a running turn; the question goes to the
keys of that turn (``TurnKeys.ask``), which show it in the live footer and
resolve it on y / a / n+reason. Outside a turn nobody can answer, so the call
is denied with a reason the model can read.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Protocol

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.text import Text

from pseudoclaude.textsafe import for_terminal
from pseudoclaude.tools.permissions import ApprovalAnswer, ApprovalRequest, Rule
from pseudoclaude.tui.pending import PendingApproval
from pseudoclaude.tui.toolview import diff_lines


class ApprovalKeys(Protocol):
    """What the approver needs of a turn's keys (``keys.TurnKeys``): ask there, and the question being answered."""

    approval: PendingApproval | None

    def ask(self, request: ApprovalRequest) -> asyncio.Future[ApprovalAnswer]: ...


class TerminalApprover:
    """Satisfies ``pseudoclaude.tools.permissions.Approver``; ``keys`` is set while a turn runs."""

    def __init__(self) -> None:
        self.keys: ApprovalKeys | None = None

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        if self.keys is None:
            return ApprovalAnswer("deny", "no one was at the terminal to approve it")
        return await self.keys.ask(request)

    async def ask_text(self, question: str) -> str | None:
        """A line the user types in answer to ``question`` (an MCP server's elicitation); None outside a turn."""
        keys = self.keys
        if keys is None:
            return None
        future = keys.ask(ApprovalRequest(tool="question", args={}, summary=question, suggested_rule=None, kind="question"))
        if keys.approval is not None:
            keys.approval.typing_reason = True  # the answer is typed at once, as a denial's reason is
        while not future.done():  # the asking task is the server's, not the turn's: a turn that ends (Esc) must end the question
            await asyncio.wait({future}, timeout=0.25)
            if self.keys is not keys and not future.done():
                future.cancel()
                return None
        return None if future.cancelled() else future.result().reason


APPROVAL_DIFF_LINES = 20


def editable_rule(request: ApprovalRequest) -> str | None:
    """The text the ``e`` key starts editing: the suggested rule's pattern (None: nothing to edit, "always" saves nothing)."""
    rule = request.suggested_rule
    return rule.pattern if request.kind == "call" and rule is not None and rule.pattern else None


def edited_answer(request: ApprovalRequest, text: str) -> ApprovalAnswer:
    """ "Always" with the edited pattern (Enter); an empty or multi-line edit keeps the suggestion."""
    pattern = text.strip()
    if not pattern or "\n" in pattern:
        return ApprovalAnswer("always")
    return ApprovalAnswer("always", rule=Rule(request.tool, pattern))


def question_lines(request: ApprovalRequest, *, typing_reason: bool, reason: str, editing_rule: bool = False) -> list[RenderableType]:
    """The approval question: what would run, the change an edit would make (coloured, bounded), then the keys.

    The diff comes before the question so an edit is judged on what it
    changes, not on its path; the rule "always" would save is named in full.
    """
    if request.kind == "sandbox":
        return _outside_lines(request, typing_reason=typing_reason, reason=reason)
    if request.kind == "question":
        return [
            Text("? ", style="bold yellow") + Text(for_terminal(request.summary), style="bold"),
            Text("  › ", style="yellow") + Text(for_terminal(reason)) + Text("▌", style="dim"),
            Text("  Enter answers (an empty first answer declines)   [esc] stop", style="yellow"),
        ]
    summary = request.summary or request.tool
    named = summary == request.tool or summary.startswith(request.tool + " ")
    lines: list[RenderableType] = [
        Text("? ", style="bold yellow") + Text("Allow " if named else f"Allow {request.tool}: ", style="bold") + Text(for_terminal(summary)),
    ]
    if request.diff:
        lines.extend(Text("    ") + row for row in diff_lines(request.diff, APPROVAL_DIFF_LINES))
    if typing_reason:
        lines.append(Text("  Why not? (Enter sends the reason to the model) › ", style="yellow") + Text(for_terminal(reason)) + Text("▌", style="dim"))
        return lines
    if editing_rule:
        lines.append(
            Text(f"  Don't ask again for {request.tool}(…) (Enter saves the rule) › ", style="yellow") + Text(for_terminal(reason)) + Text("▌", style="dim")
        )
        return lines
    lines.append(Choices((ONCE, _always(request), *_edit(request), DENY, STOP)))
    return lines


@dataclass(frozen=True)
class Choice:
    """One answer of a question: ``text`` in full, ``short`` when the full one cannot fit a row (``note`` then says the rest)."""

    text: str
    short: str = ""
    note: str = ""


ONCE = Choice("[y] yes, once")
DENY = Choice("[n] no, and say why")
STOP = Choice("[esc] stop")


class Choices:
    """The answers on one line, or when that is too wide, packed into rows without ever splitting one.

    A choice too wide for a row alone (an "always" naming its rule) shows
    its short form in the rows, and what it would save is said first, on
    lines of its own, so a narrow terminal still reads it.
    """

    def __init__(self, choices: tuple[Choice, ...], style: str = "yellow") -> None:
        self.choices = choices
        self.style = style
        self.plain = "  " + "   ".join(choice.text for choice in choices)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        if cell_len(self.plain) <= width:
            yield Text(self.plain, style=self.style)
            return
        shown = [choice.text if cell_len(choice.text) + 2 <= width or not choice.short else choice.short for choice in self.choices]
        for choice, text in zip(self.choices, shown):
            if text == choice.short and choice.note:
                note = Text(f"{choice.short}: {choice.note}", style=self.style)
                for number, line in enumerate(note.wrap(console, max(20, width - 4))):
                    line.rstrip()
                    yield Text("  " if number == 0 else "    ") + line
        row = ""
        for text in shown:
            if row and cell_len(row) + 3 + cell_len(text) > width:
                yield Text(row, style=self.style)
                row = ""
            row = f"{row}   {text}" if row else f"  {text}"
        if row:
            yield Text(row, style=self.style)


def _always(request: ApprovalRequest) -> Choice:
    """The "always" choice in words ("don't ask again for `npm test` commands in this folder"), then the rule it saves."""
    rule = request.suggested_rule
    if rule is None:
        return Choice("[a] always (this call only: no rule is saved)", "[a] always", "this call only: no rule is saved")
    words = f"don't ask again for {for_terminal(request.rule_words)}" if request.rule_words else ""
    saving = f"saving the rule {for_terminal(str(rule))}"
    if words:
        return Choice(f"[a] yes, and {words} ({saving})", "[a] always", f"{words} ({saving})")
    return Choice(f"[a] always ({saving})", "[a] always", saving)


def _edit(request: ApprovalRequest) -> tuple[Choice, ...]:
    return (Choice("[e] edit the rule"),) if editable_rule(request) is not None else ()


def _outside_lines(request: ApprovalRequest, *, typing_reason: bool, reason: str) -> list[RenderableType]:
    """A command the sandbox blocked: the command, the sandbox's one line, and whether to run it unconfined."""
    lines: list[RenderableType] = [
        Text("? ", style="bold yellow") + Text("Run outside the sandbox: ", style="bold") + Text(for_terminal(request.summary or request.tool)),
        Text("  blocked by the sandbox: ", style="dim") + Text(for_terminal(request.reason)),
    ]
    if typing_reason:
        lines.append(Text("  Why not? (Enter sends the reason to the model) › ", style="yellow") + Text(for_terminal(reason)) + Text("▌", style="dim"))
        return lines
    pattern = request.suggested_rule.pattern if request.suggested_rule is not None else None
    always = (
        Choice(f"[a] always for {for_terminal(pattern)} (this session)", "[a] always", f"for {for_terminal(pattern)} (this session)")
        if pattern
        else Choice("[a] always (this session)")
    )
    lines.append(Choices((ONCE, always, DENY, STOP)))
    return lines
