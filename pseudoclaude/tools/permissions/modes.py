"""Permission modes and the policy's own lists of tool names.

``READ_ONLY_TOOLS`` is deliberately separate from each tool's ``read_only``
flag: plan mode runs a tool only when both agree, so neither a mislabelled
tool nor a stale list alone can let a writer through.
"""

from __future__ import annotations

from enum import Enum


class PermissionMode(str, Enum):
    DEFAULT = "default"
    ACCEPT_EDITS = "accept-edits"
    PLAN = "plan"
    BYPASS = "bypass"


READ_ONLY_TOOLS: frozenset[str] = frozenset({"read_file", "glob", "grep", "list_dir", "todo_write"})
EDIT_TOOLS: frozenset[str] = frozenset({"write_file", "edit_file"})

_CYCLE = (PermissionMode.DEFAULT, PermissionMode.ACCEPT_EDITS, PermissionMode.PLAN)

_INSTRUCTIONS = {
    PermissionMode.DEFAULT: (
        "Permission mode: default. Read-only tools run freely; file edits and shell commands "
        "need the user's approval, and a refused call comes back as an error with the reason."
    ),
    PermissionMode.ACCEPT_EDITS: (
        "Permission mode: accept-edits. File edits inside the workspace run without asking; "
        "shell commands still need the user's approval."
    ),
    PermissionMode.PLAN: (
        "Permission mode: plan. You may only investigate with read-only tools "
        "(read_file, glob, grep, list_dir, todo_write). Do not change anything: no file writes or edits, "
        "no shell commands. When you understand the task, present a concise step-by-step plan and stop; "
        "the user will leave plan mode when they approve it."
    ),
    PermissionMode.BYPASS: (
        "Permission mode: bypass. Tools run without asking, except commands on the hard-deny list "
        "and calls matching the user's deny rules. Be careful: nothing else stands between you and the user's files."
    ),
}


def mode_instructions(mode: PermissionMode) -> str:
    """Text for the system prompt describing what ``mode`` allows."""
    return _INSTRUCTIONS[mode]


def next_mode(mode: PermissionMode, *, include_bypass: bool = False) -> PermissionMode:
    """The mode after ``mode`` when the user cycles modes (bypass only if it was enabled at start)."""
    cycle = (*_CYCLE, PermissionMode.BYPASS) if include_bypass else _CYCLE
    if mode not in cycle:
        return cycle[0]
    return cycle[(cycle.index(mode) + 1) % len(cycle)]
