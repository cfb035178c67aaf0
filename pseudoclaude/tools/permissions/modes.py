"""Permission modes, the order Shift+Tab cycles them in, and what each tells the model.

Which tools a mode lets through is not listed here: it follows from each
tool's declared kind (see ``ToolTraits``), and the plan-mode text names the
read-only tools of the session it is written for.
"""

from __future__ import annotations

from typing import Sequence

from pseudoclaude.config import PermissionMode as PermissionMode


_CYCLE = (PermissionMode.DEFAULT, PermissionMode.ACCEPT_EDITS, PermissionMode.PLAN)

_INSTRUCTIONS = {
    PermissionMode.DEFAULT: (
        "Permission mode: default. Read-only tools and shell commands that only read (ls, cat, grep, "
        "git status/diff/log, with no redirection into a file and no $(...)) run freely; file edits and other "
        "shell commands need the user's approval, and a refused call comes back as an error with the reason."
    ),
    PermissionMode.ACCEPT_EDITS: (
        "Permission mode: accept-edits. File edits inside the workspace run without asking; "
        "shell commands that do more than read still need the user's approval, and so do writes to protected "
        "paths (.git/, the agent's settings, shell start-up files)."
    ),
    PermissionMode.PLAN: (
        "Permission mode: plan. You may only investigate with read-only tools "
        "({read_only}). Do not change anything: no file writes or edits, "
        "no shell commands. When you understand the task, present a concise step-by-step plan and stop; "
        "the user will leave plan mode when they approve it."
    ),
    PermissionMode.BYPASS: (
        "Permission mode: bypass. Tools run without asking, except commands on the hard-deny list, "
        "calls matching the user's deny rules (refused) and ask rules (asked). Be careful: nothing else but the sandbox, "
        "when there is one, stands between you and the user's files."
    ),
}


_PRESENT_PLAN = (
    " When you understand the task, present your plan by calling {tool} with it (Markdown: the steps, the files "
    "to change, how to verify). The user approves it, and plan mode ends, or sends it back with comments to revise."
)


def mode_instructions(mode: PermissionMode, read_only_tools: Sequence[str], plan_tool: str | None = None) -> str:
    """Text for the system prompt describing what ``mode`` allows (``read_only_tools``: the session's, in order).

    ``plan_tool``: the session's tool that presents a plan for approval (plan mode ends through it).
    """
    text = _INSTRUCTIONS[mode]
    if mode is not PermissionMode.PLAN:
        return text
    text = text.format(read_only=", ".join(name for name in read_only_tools if name != plan_tool))
    if plan_tool is None:
        return text
    return text.replace(
        " When you understand the task, present a concise step-by-step plan and stop; the user will leave plan mode when they approve it.",
        _PRESENT_PLAN.format(tool=plan_tool),
    )


def next_mode(mode: PermissionMode, *, include_bypass: bool = False) -> PermissionMode:
    """The mode after ``mode`` when the user cycles modes (bypass only if it was enabled at start)."""
    cycle = (*_CYCLE, PermissionMode.BYPASS) if include_bypass else _CYCLE
    if mode not in cycle:
        return cycle[0]
    return cycle[(cycle.index(mode) + 1) % len(cycle)]
