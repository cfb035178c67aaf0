"""The permission policy: may this tool call run?

Checks run in this order, and the first that decides wins:

1. the hard-deny list (``execute`` tools only) — every mode, bypass included;
2. deny rules — every mode, bypass included; they compare what a command
   means (:mod:`argv`) and see inner commands (:mod:`unwrap`, :mod:`hidden`);
3. plan mode — only tools whose declared kind is ``read`` run (after the ask
   rules); ``network`` tools (``web_fetch``) go on to the rules and the
   approver; everything else is refused;
4. ask rules (``permissions.ask``, Claude Code's) — every mode, bypass
   included: the user is asked, and "always" saves nothing; headless, denied;
5. bypass mode and ``read`` tools — everything else runs;
6. a command while a sandbox confines commands — it runs without a question
   in default and accept-edits mode: the kernel, not this policy, keeps it
   to the workspace (``.git`` hooks and config, the agent's settings and
   everything outside read-only, the network off). A command whose prefix
   the user excluded (``sandbox.excludedCommands`` in the user's settings, an
   "always" to run outside) runs unconfined and goes on like any other;
7. a write to a protected path (:mod:`protected`: ``.git/``, the agent's own
   settings, shell start-up files) asks, whatever the rules or mode say, and
   "always" saves no rule for it;
8. allow rules (settings, ``--allowed-tools``, "always" answers this session);
   a line hiding code (:mod:`hidden`) is matched only by a rule equal to the
   whole line;
9. a command line that only reads (:mod:`readonly`: ``ls``, ``git status``...) runs;
10. accept-edits mode — ``edit`` tools run (the tools' path sandbox still applies);
11. ask the approver; with none (headless), deny with a reason naming the flags.

When a confined command fails because of the sandbox (``escalate``), the
approver is asked once whether to run it outside: once, always for its prefix
(this session), or no; headless, no, with the flag and setting that allow it.
Without a sandbox (``--sandbox off``, none available) step 6 is absent and
everything not read-only asks, as before there was one.

What a tool is comes from one place, its own ``ToolTraits``. There used to be
a second, hand-kept list of read-only names that plan mode also required; it
is gone on purpose, because a list beside the declaration is exactly what
drifts unnoticed. The declaration is checked instead where it is made: a kind
outside the four known ones, an execute tool without a command argument or an
edit tool without path arguments is refused by ``ToolTraits`` itself, and a
declaration naming arguments its schema lacks is refused by ``ToolRegistry``.
What is left is a tool declaring ``read`` while writing, which no list could
catch either; whoever adds a tool (MCP tools included: their adapter must not
trust a server's read-only hint) answers for its kind.

The session's tools (a ``ToolRegistry``; the built-ins when not given) resolve
Claude Code names in rules (``Bash(npm test:*)``) and name the read-only tools
in the plan-mode instructions. The policy only decides; it never runs, prints
or sandboxes anything (``Decision.outside_sandbox`` tells the tool round to
run a command unconfined).
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

from pseudoclaude.sandbox import SandboxConfig
from pseudoclaude.tools import Tool, ToolRegistry, builtin_registry
from pseudoclaude.tools.permissions.approval import ApprovalRequest, Approver, Decision, Preview
from pseudoclaude.tools.permissions.hard_deny import hard_deny_reason
from pseudoclaude.tools.permissions.modes import PermissionMode, mode_instructions
from pseudoclaude.tools.permissions.plan_exit import review_plan
from pseudoclaude.tools.permissions.hidden import hidden_reason
from pseudoclaude.tools.permissions.protected import command_writes, first_protected
from pseudoclaude.tools.permissions.readonly import is_read_only, read_paths
from pseudoclaude.tools.permissions.rules import Call, Rule, Rules, first_match, paths_of
from pseudoclaude.tools.permissions.shell_parse import ShellParseError
from pseudoclaude.tools.permissions.suggest import in_words, suggested_rule
from pseudoclaude.tools.permissions.unwrap import CommandLine, analyze


@dataclass(frozen=True)
class PermissionView:
    """The permission mode and rules in force (``/permissions``)."""

    mode: PermissionMode
    allow: tuple[Rule, ...]
    deny: tuple[Rule, ...]
    session_rules: tuple[Rule, ...]


class PermissionPolicy:
    """One session's permission decisions; see the module docstring for the order of the checks."""

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
        tools: ToolRegistry | None = None,
        config_dir: Path | None = None,
        sandbox: SandboxConfig | None = None,
    ) -> None:
        """``sandbox``: the configuration commands run confined by (None, or mode ``off``: they run unconfined)."""
        self.mode = mode
        self.workspace = workspace
        self.home = home if home is not None else Path.home()
        self.config_dir = config_dir if config_dir is not None else self.home / ".pseudoclaude"
        self.tools = tools if tools is not None else builtin_registry()
        self.rules = rules.with_allow(Rule.parse(text) for text in allowed_tools).resolved(self.tools.canonical_name)
        self.approver = approver
        self.rule_sink = rule_sink
        self.sandbox = sandbox if sandbox is not None and sandbox.mode != "off" else None
        self._session_allow: list[Rule] = []
        self._outside: list[str] = [_prefix_pattern(text) for text in (self.sandbox.excluded_commands if self.sandbox else ()) if text.strip()]

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

    def view(self) -> PermissionView:
        """The mode and rules in force, as a frozen value (``/permissions``)."""
        return PermissionView(self.mode, self.rules.allow, self.rules.deny, self.session_rules)

    @contextmanager
    def allowing(self, allowed_tools: Sequence[str]) -> Iterator[None]:
        """Extra allow rules (a custom command's ``allowed-tools``) for the duration of one run, removed however it ends."""
        rules = self.rules
        if allowed_tools:
            self.rules = rules.with_allow(Rule.parse(text) for text in allowed_tools).resolved(self.tools.canonical_name)
        try:
            yield
        finally:
            self.rules = rules

    def mode_instructions(self) -> str:
        plan_tool = next((tool.name for tool in self.tools if tool.traits.exits_plan), None)
        text = mode_instructions(self.mode, self.tools.read_only_names(), plan_tool)
        if self.sandbox is None or self.mode in (PermissionMode.PLAN, PermissionMode.BYPASS):
            return text
        return text + _SANDBOXED

    async def check(self, tool: Tool, args: Mapping[str, Any], preview: Preview | None = None) -> Decision:
        """Decide one call; ``diff`` is the change an edit would make, shown with the question."""
        call = Call(tool.name, tool.traits, args, self.workspace, self.home)
        outside = self._runs_outside(call)
        decision = await self._decide(call, tool, preview, confined=call.traits.kind == "execute" and self.sandbox is not None and not outside)
        return replace(decision, outside_sandbox=True) if outside else decision

    async def _decide(self, call: Call, tool: Tool, preview: Preview | None, *, confined: bool) -> Decision:
        traits = call.traits
        if traits.kind == "execute":
            refusal = self._hard_deny(call)
            if refusal:
                return Decision(False, refusal, "hard-deny")
        denied = first_match(self.rules.deny, call, deny=True)
        if denied is not None:
            return Decision(False, f"Denied by the permission rule `{denied}` in the settings (applies in every mode).", "rule")
        if traits.exits_plan:
            decision, self.mode = await review_plan(self.mode, self.approver, call)
            return decision
        planning = self.mode is PermissionMode.PLAN and traits.kind != "network"
        if planning and not traits.read_only:
            return Decision(False, self._plan_refusal(tool), "plan")
        asked = first_match(self.rules.ask, call, deny=True)
        if asked is not None:
            return await self._ask(call, f"the ask rule `{asked}` asks every time", preview)
        if planning:
            return Decision(True, "", "plan")
        if self.mode is PermissionMode.BYPASS or traits.read_only:
            return Decision(True, "", "mode")
        if confined:
            return Decision(True, "", "sandbox")
        protected = self._protected(call)
        if protected is not None:
            return await self._ask(call, f"protected: {protected[0]}: {protected[1]}", preview, _protected_refusal(call, *protected))
        allowed = first_match((*self.rules.allow, *self._session_allow), call, deny=False)
        if allowed is not None:
            return Decision(True, f"allowed by the rule `{allowed}`", "rule")
        if traits.kind == "execute" and self._reads_only(call):
            return Decision(True, "", "read-only")
        if self.mode is PermissionMode.ACCEPT_EDITS and traits.kind == "edit":
            return Decision(True, "", "mode")
        return await self._ask(call, None, preview)

    async def escalate(self, tool: Tool, args: Mapping[str, Any], blocked: str) -> Decision:
        """The sandbox likely caused this command's failure (``blocked``): may it run again outside?

        Asks the approver once: "once" runs it unconfined this time, "always" every
        command of its prefix for the rest of the session; headless, the answer is
        no, with the flag and setting that allow it.
        """
        call = Call(tool.name, tool.traits, args, self.workspace, self.home)
        blocked = blocked.strip().removeprefix("sandbox: ")
        suggested = suggested_rule(call, self._line(call), self._hidden(call))
        pattern = suggested.pattern if suggested is not None and suggested.pattern else str(call.command() or "").strip()
        if self.approver is None:
            return Decision(False, _sandbox_refusal(blocked, pattern), "headless")
        request = ApprovalRequest(call.tool, call.args, _summary(call), Rule(call.tool, pattern), kind="sandbox", reason=blocked)
        answer = await self.approver.ask(request)
        if answer.choice == "deny":
            why = answer.reason.strip()
            return Decision(False, "The user declined to run it outside the sandbox" + (f": {why}" if why else "."), "approval")
        if answer.choice == "always":
            self._outside.append(pattern)
            self._session_allow.append(Rule(call.tool, pattern))
            return Decision(
                True, f"approved by the user to run outside the sandbox; `{pattern}` does from now on (this session)", "approval", outside_sandbox=True
            )
        return Decision(True, "approved once by the user to run outside the sandbox", "approval", outside_sandbox=True)

    def _runs_outside(self, call: Call) -> bool:
        """Whether this command runs unconfined although a sandbox is on: its prefix is excluded (the user's settings, an "always")."""
        if self.sandbox is None or call.traits.kind != "execute" or not self._outside:
            return False
        return first_match([Rule(call.tool, pattern) for pattern in self._outside], call, deny=True) is not None

    def _hard_deny(self, call: Call) -> str | None:
        command = call.command()
        if not isinstance(command, str) or not command.strip():
            return f"{call.tool} needs a non-empty string `{call.traits.key_argument}` argument."
        return hard_deny_reason(command, workspace=self.workspace, home=self.home, cwd=self._cwd(call))

    def _line(self, call: Call) -> CommandLine | None:
        command = call.command()
        if call.traits.kind != "execute" or not isinstance(command, str):
            return None
        try:
            return analyze(command)
        except ShellParseError:
            return None

    def _hidden(self, call: Call) -> str | None:
        line = self._line(call)
        return hidden_reason(line.source, line.effective) if line is not None else None

    def _reads_only(self, call: Call) -> bool:
        line = self._line(call)
        if line is None or not is_read_only(line, workspace=self.workspace, home=self.home, cwd=self._cwd(call)):
            return False
        return not self._read_denied(call, line)

    def _read_denied(self, call: Call, line: CommandLine) -> bool:
        """Whether a deny rule on a reading tool (``read_file(.env)``) names a file this read-only line reads:
        then the line is no longer run without asking (``cat .env`` reads what ``read_file`` may not)."""
        denies = self.rules.read_denials(self.tools)
        if not denies:
            return False
        paths = read_paths(line, workspace=self.workspace, home=self.home, cwd=self._cwd(call))
        real_workspace = Path(os.path.realpath(self.workspace))
        paths += [self.workspace / p.relative_to(real_workspace) for p in paths if p.is_relative_to(real_workspace) and real_workspace != self.workspace]
        return any(rule.matches_path(path, workspace=self.workspace, home=self.home) for rule in denies for path in paths)

    def _protected(self, call: Call) -> tuple[Path, str] | None:
        if call.traits.kind == "edit":
            paths = paths_of(call)
        elif call.traits.kind == "execute":
            line = self._line(call)
            paths = command_writes(line, workspace=self.workspace, home=self.home, cwd=self._cwd(call)) if line is not None else []
        else:
            return None
        return first_protected(paths, workspace=self.workspace, home=self.home, config_dir=self.config_dir)

    def _cwd(self, call: Call) -> Path:
        cwd = call.args.get("cwd")
        return Path(os.path.normpath(self.workspace / cwd)) if isinstance(cwd, str) and cwd else self.workspace

    async def _ask(self, call: Call, forced: str | None, preview: Preview | None, headless: str | None = None) -> Decision:
        """Ask the approver; ``forced``: why this call asks every time (a protected path, an ask rule), so "always" saves nothing."""
        suggested = suggested_rule(call, self._line(call), self._hidden(call)) if forced is None else None
        if self.approver is None:
            if forced is None:
                return Decision(False, _headless_refusal(call, suggested, self._hidden(call)), "headless")
            return Decision(False, headless or _forced_refusal(call, forced), "headless")
        summary = _summary(call) if forced is None else f"{_summary(call)}  [{forced}]"
        diff = preview() if preview is not None else ""
        words = in_words(suggested, kind=call.traits.kind) if suggested is not None else ""
        request = ApprovalRequest(call.tool, call.args, summary, suggested, diff=diff, reason=forced or "", rule_words=words)
        answer = await self.approver.ask(request)
        if answer.choice == "once" or (answer.choice == "always" and forced is not None):
            return Decision(True, "approved once by the user", "approval", updated_input=answer.updated_input)
        if answer.choice == "always":
            if suggested is not None and answer.rule is not None and answer.rule.tool == call.tool and answer.rule.pattern:
                suggested = answer.rule  # the user's own edit of the suggestion, saved as typed
            if suggested is not None:
                self._session_allow.append(suggested)
                if self.rule_sink is not None:
                    self.rule_sink(suggested)
            return Decision(True, f"approved by the user; `{suggested}` is allowed from now on", "approval", suggested, updated_input=answer.updated_input)
        why = answer.reason.strip()
        return Decision(False, f"The user denied this call: {why}" if why else "The user denied this call.", "approval")

    def _plan_refusal(self, tool: Tool) -> str:
        plan_tool = next((t.name for t in self.tools if t.traits.exits_plan), None)
        read_only = ", ".join(sorted(name for name in self.tools.read_only_names() if name != plan_tool))
        present = f"present your plan with {plan_tool}" if plan_tool else "present your plan and stop"
        return (
            f"Plan mode: `{tool.name}` can change files or run commands, so it was not run. "
            f"Do not try to change anything in plan mode: investigate with {read_only}, then {present}. "
            "The user will leave plan mode to carry it out."
        )


def _headless_refusal(call: Call, suggested: Rule | None, hidden: str | None = None) -> str:
    rule = str(suggested) if suggested is not None else call.tool
    modes = "--permission-mode accept-edits (file edits) or --permission-mode bypass"
    if call.traits.kind in ("execute", "network"):
        modes = "--permission-mode bypass"
    why = f" No prefix rule covers this line: {hidden}; write the command without it, or" if hidden else " To allow it,"
    return f"`{call.tool}` needs the user's approval, but this run is headless and cannot ask.{why} re-run with {modes}, or with --allowed-tools '{rule}'."


def _forced_refusal(call: Call, why: str) -> str:
    return f"`{call.tool}` needs the user's approval ({why}), but this run is headless and cannot ask; no flag but removing the rule allows it."


def _sandbox_refusal(blocked: str, pattern: str) -> str:
    return (
        f"Blocked by the sandbox: {blocked}. This run is headless, so it was not run outside the sandbox. "
        f'To allow it, re-run with --sandbox off, or list "{pattern}" under sandbox.excludedCommands in your user settings.'
    )


def _prefix_pattern(text: str) -> str:
    """An ``excludedCommands`` entry as a rule pattern: ``docker`` and ``docker:*`` both mean every ``docker`` command."""
    text = text.strip()
    return text if text.endswith(":*") else text + ":*"


def _protected_refusal(call: Call, path: Path, why: str) -> str:
    return (
        f"`{call.tool}` would write {path}, a protected path ({why}). Such writes need the user's approval every time, "
        "and this run is headless; no allow rule covers them. Only a user-chosen --permission-mode bypass allows it."
    )


def _summary(call: Call) -> str:
    if call.traits.kind == "execute":
        return str(call.command() or "")
    if call.traits.kind == "network":
        return f"{call.tool} {call.args.get(call.traits.key_argument or '', '')}"
    paths = [call.args.get(name) for name in call.traits.path_arguments]
    path = next((p for p in paths if isinstance(p, str)), None)
    return f"{call.tool} {path}" if path is not None else call.tool


_SANDBOXED = (
    " In this session shell commands run inside a sandbox, and so without asking (the user's ask rules aside): they can write the workspace and the temp "
    "directory, not .git hooks or config, the agent's settings or anything else on the machine, and have no network "
    "unless allowed. A command the sandbox blocked says so in its result; the user may be asked to run it outside."
)
