"""The permission policy: may this tool call run?

Checks run in this order, and the first that decides wins:

1. the hard-deny list (``run_command`` only) — every mode, bypass included;
2. deny rules — every mode, bypass included;
3. plan mode — only tools that are in ``READ_ONLY_TOOLS`` AND declare
   ``read_only=True`` run; everything else is refused;
4. bypass mode — everything else runs;
5. read-only tools (both checks again) run;
6. allow rules (settings, ``--allowed-tools``, "always" answers this session);
7. accept-edits mode — the edit tools run (the tools' path sandbox still applies);
8. ask the approver; with none (headless), deny with a reason naming the flags.

The policy only decides; it never runs, prints or sandboxes anything.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from pseudoclaude.tools.base import Tool
from pseudoclaude.tools.permissions.approval import ApprovalRequest, Approver, Decision
from pseudoclaude.tools.permissions.hard_deny import hard_deny_reason
from pseudoclaude.tools.permissions.modes import (
    EDIT_TOOLS,
    READ_ONLY_TOOLS,
    PermissionMode,
    mode_instructions,
)
from pseudoclaude.tools.permissions.rules import (
    COMMAND_TOOL,
    Call,
    Rule,
    Rules,
    first_match,
)

_READ_ONLY_LIST = ", ".join(sorted(READ_ONLY_TOOLS))


class PermissionPolicy:
    def __init__(
        self,
        *,
        mode: PermissionMode | str,
        workspace: Path,
        rules: Rules = Rules(),
        approver: Approver | None = None,
        home: Path | None = None,
        allowed_tools: Sequence[str] = (),
        rule_sink: Callable[[Rule], None] | None = None,
    ) -> None:
        self.mode = mode
        self.workspace = workspace
        self.home = home if home is not None else Path.home()
        self.rules = rules.with_allow(Rule.parse(text) for text in allowed_tools)
        self.approver = approver
        self.rule_sink = rule_sink
        self._session_allow: list[Rule] = []

    @property
    def mode(self) -> PermissionMode:
        return self._mode

    @mode.setter
    def mode(self, value: PermissionMode | str) -> None:
        self._mode = PermissionMode(value)

    @property
    def session_rules(self) -> tuple[Rule, ...]:
        """Rules saved by "always" answers in this session."""
        return tuple(self._session_allow)

    def mode_instructions(self) -> str:
        return mode_instructions(self.mode)

    async def check(self, tool: Tool, args: Mapping[str, Any]) -> Decision:
        name = tool.name
        if name == COMMAND_TOOL:
            refusal = self._hard_deny(args)
            if refusal:
                return Decision(False, refusal, "hard-deny")
        call = Call(name, args, self.workspace, self.home)
        denied = first_match(self.rules.deny, call, deny=True)
        if denied is not None:
            return Decision(False, f"Denied by the permission rule `{denied}` in the settings (applies in every mode).", "rule")
        reads_only = name in READ_ONLY_TOOLS and bool(tool.read_only)
        if self.mode is PermissionMode.PLAN:
            return Decision(True, "", "plan") if reads_only else Decision(False, _plan_refusal(tool), "plan")
        if self.mode is PermissionMode.BYPASS or reads_only:
            return Decision(True, "", "mode")
        allowed = first_match((*self.rules.allow, *self._session_allow), call, deny=False)
        if allowed is not None:
            return Decision(True, f"allowed by the rule `{allowed}`", "rule")
        if self.mode is PermissionMode.ACCEPT_EDITS and name in EDIT_TOOLS:
            return Decision(True, "", "mode")
        return await self._ask(tool, args)

    def _hard_deny(self, args: Mapping[str, Any]) -> str | None:
        command = args.get("command")
        if not isinstance(command, str) or not command.strip():
            return "run_command needs a non-empty string `command` argument."
        cwd = args.get("cwd")
        directory = Path(os.path.normpath(self.workspace / cwd)) if isinstance(cwd, str) and cwd else self.workspace
        return hard_deny_reason(command, workspace=self.workspace, home=self.home, cwd=directory)

    async def _ask(self, tool: Tool, args: Mapping[str, Any]) -> Decision:
        suggested = _suggested_rule(tool.name, args)
        if self.approver is None:
            return Decision(False, _headless_refusal(tool.name, suggested), "headless")
        request = ApprovalRequest(tool.name, args, _summary(tool.name, args), suggested)
        answer = await self.approver.ask(request)
        if answer.choice == "once":
            return Decision(True, "approved once by the user", "approval")
        if answer.choice == "always":
            if suggested is not None:
                self._session_allow.append(suggested)
                if self.rule_sink is not None:
                    self.rule_sink(suggested)
            return Decision(True, f"approved by the user; `{suggested}` is allowed from now on", "approval")
        why = answer.reason.strip()
        return Decision(False, f"The user denied this call: {why}" if why else "The user denied this call.", "approval")


def _plan_refusal(tool: Tool) -> str:
    if tool.name in READ_ONLY_TOOLS:
        detail = f"`{tool.name}` does not declare itself read-only"
    elif tool.read_only:
        detail = f"`{tool.name}` is not on plan mode's read-only list ({_READ_ONLY_LIST})"
    else:
        detail = f"`{tool.name}` can change files or run commands"
    return (
        f"Plan mode: {detail}, so it was not run. Do not try to change anything in plan mode: "
        f"investigate with {_READ_ONLY_LIST}, then present your plan and stop. "
        "The user will leave plan mode to carry it out."
    )


def _headless_refusal(name: str, suggested: Rule | None) -> str:
    rule = str(suggested) if suggested is not None else name
    modes = "--permission-mode accept-edits (file edits) or --permission-mode bypass"
    if name == COMMAND_TOOL:
        modes = "--permission-mode bypass"
    return (
        f"`{name}` needs the user's approval, but this run is headless and cannot ask. "
        f"To allow it, re-run with {modes}, or with --allowed-tools '{rule}'."
    )


def _suggested_rule(name: str, args: Mapping[str, Any]) -> Rule | None:
    if name == COMMAND_TOOL:
        command = args.get("command")
        return Rule(COMMAND_TOOL, command.strip()) if isinstance(command, str) and command.strip() else None
    return Rule(name)


def _summary(name: str, args: Mapping[str, Any]) -> str:
    if name == COMMAND_TOOL:
        return str(args.get("command", ""))
    path = args.get("path")
    return f"{name} {path}" if isinstance(path, str) else name
