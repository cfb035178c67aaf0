"""What the policy asks a human, and what comes back.

The ``Approver`` is the seam to the TUI (a prompt) or to tests (a script). A
headless run has no approver; the policy then denies with a reason that
names the flags that would have allowed the call.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Callable, Literal, Mapping, Protocol

from pseudoclaude.tools.permissions.rules import Rule


@dataclass(frozen=True)
class ApprovalRequest:
    """One call awaiting a decision; ``suggested_rule`` is what "always" would save; ``diff`` what an edit would change.

    ``kind`` "plan": the model asks to leave plan mode with the plan in
    ``summary``; "always" then means accept-edits, "once" default, and a
    denial's reason is the user's comments (``plan_exit.py``).

    ``kind`` "sandbox": the command in ``summary`` ran confined and failed
    because of it (``reason``: the sandbox's one line); "once" runs it again
    outside the sandbox, "always" does so for every command matching
    ``suggested_rule`` in this session.

    ``kind`` "question": not a call but a question to answer in words (an MCP
    server's elicitation, ``tui/elicitation.py``); the typed line is ``reason``.
    """

    tool: str
    args: Mapping[str, Any]
    summary: str
    suggested_rule: Rule | None
    diff: str = ""
    kind: Literal["call", "plan", "sandbox", "question"] = "call"
    reason: str = ""
    """Why the question is asked when it is not the usual one (an ask rule, a protected path, the sandbox's block)."""
    rule_words: str = ""
    """What ``suggested_rule`` allows, in words ("`npm test` commands in this folder", ``suggest.in_words``)."""


@dataclass(frozen=True)
class ApprovalAnswer:
    """What came back. ``updated_input`` (our argument names): run the call with these arguments instead.

    Only a program answers with one (the Agent SDK's ``can_use_tool`` that
    sanitizes a command); the REPL's approver never does. ``rule``: the REPL's
    ``e`` key lets the user edit the suggested rule before "always" saves it."""

    choice: Literal["once", "always", "deny"]
    reason: str = ""
    updated_input: Mapping[str, Any] | None = None
    rule: Rule | None = None
    """"always" with the rule the user edited before it is saved (None: the request's ``suggested_rule``)."""


REJUDGING: ContextVar[bool] = ContextVar("rejudging_rewrite", default=False)
"""Set while the policy judges the input an approver rewrote a call to: that approver answers "once" without asking again
(the hard deny list, the deny rules and the mode still refuse what they refuse)."""

CURRENT_CALL: ContextVar[str] = ContextVar("current_call", default="")
"""The id of the tool call whose permission is being decided (set by the tool round, read by an approver that names it)."""


Preview = Callable[[], str]
"""The change a call would make (a unified diff), computed only when a question shows it; raises ``ToolError`` if the tool would refuse the call."""


class Approver(Protocol):
    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer: ...


@dataclass(frozen=True)
class Decision:
    """Whether a call may run; ``source`` says who decided.

    Sources: ``hard-deny``, ``rule``, ``plan``, ``mode``, ``sandbox``, ``read-only``, ``approval``, ``headless``.
    ``reason`` is written for the model when the call is refused.
    """

    allowed: bool
    reason: str = ""
    source: str = ""
    saved_rule: Rule | None = None
    """The rule an "always" answer saved (shown in the transcript, so the user sees what they allowed)."""
    outside_sandbox: bool = False
    """Run this command unconfined (``ToolContext.sandbox`` None): the user excluded its prefix, or approved it."""
    updated_input: Mapping[str, Any] | None = None
    """Run the call with these arguments instead (a hook's ``updatedInput``, or the approver's ``ApprovalAnswer.updated_input``: what runs, is shown and is recorded)."""
