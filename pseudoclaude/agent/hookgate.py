"""``PreToolUse`` and ``PostToolUse`` around the tool round, without changing it.

A ``ToolRound`` asks a permission gate before each call and then runs the tool;
wrapping both is all the tool hooks need:

- ``HookedGate.check`` runs ``PreToolUse`` first. ``deny`` (or exit 2) refuses the
  call with the hook's reason, which the model reads. ``allow`` skips only the
  approval question: the hard deny list, deny rules and plan mode still hold (the
  policy runs with ``PREAPPROVED`` set, which ``HookAwareApprover`` answers
  "once", and a headless refusal becomes an allow). ``ask`` asks the user even
  where the policy would not (a headless run refuses).
- ``HookedTool.run`` runs the tool, then ``PostToolUse``; exit 2, ``decision:
  "block"`` or ``additionalContext`` append the hook's words to the result.

Hook warnings are emitted as they happen through the round's ``emit``.
"""

from __future__ import annotations

import dataclasses
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping

from pseudoclaude.agent.toolexec import Emit, PermissionGate, preview_diff
from pseudoclaude.tools import Tool, ToolContext, ToolOutput
from pseudoclaude.tools.permissions import ApprovalAnswer, ApprovalRequest, Approver, Decision, Preview

if TYPE_CHECKING:
    from pseudoclaude.agent.hooks import SessionHooks

PREAPPROVED: ContextVar[bool] = ContextVar("pseudoclaude_hook_preapproved", default=False)


class HookAwareApprover:
    """An approver that says "once" without asking while a PreToolUse hook's ``allow`` is in force."""

    def __init__(self, inner: Approver) -> None:
        self.inner = inner

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        if PREAPPROVED.get():
            return ApprovalAnswer("once")
        return await self.inner.ask(request)


@dataclass
class HookedGate:
    hooks: SessionHooks
    inner: PermissionGate | None
    emit: Emit

    async def check(self, tool: Tool, args: Mapping[str, Any], preview: Preview | None = None) -> Decision:
        outcome = await self.hooks.pre_tool(tool.name, args, tool.traits)
        for event in outcome.events:
            await self.emit(event)
        if outcome.blocked or outcome.halt:
            why = outcome.reason or outcome.halt or "no reason given"
            return Decision(False, f"blocked by a PreToolUse hook: {why}", "hook")
        if outcome.permission == "allow":
            token = PREAPPROVED.set(True)
            try:
                decision = await self._inner_check(tool, args, preview)
            finally:
                PREAPPROVED.reset(token)
            if decision.source == "headless":
                return Decision(True, "allowed by a PreToolUse hook", "hook", outside_sandbox=decision.outside_sandbox)
            return decision
        decision = await self._inner_check(tool, args, preview)
        if outcome.permission == "ask" and decision.allowed and decision.source != "approval":
            asked = await self._ask(tool, args, outcome.reason, preview)
            return dataclasses.replace(asked, outside_sandbox=decision.outside_sandbox) if asked.allowed else asked
        return decision

    async def escalate(self, tool: Tool, args: Mapping[str, Any], blocked: str) -> Decision:
        """Running outside the sandbox is the user's call alone: no hook's ``allow`` answers it."""
        if self.inner is None:
            return Decision(False, f"Blocked by the sandbox: {blocked}.", "sandbox")
        return await self.inner.escalate(tool, args, blocked)

    async def _inner_check(self, tool: Tool, args: Mapping[str, Any], preview: Preview | None) -> Decision:
        if self.inner is None:
            return Decision(True, "", "mode")
        return await self.inner.check(tool, args, preview)

    async def _ask(self, tool: Tool, args: Mapping[str, Any], reason: str, preview: Preview | None) -> Decision:
        approver = self.hooks.approver
        if approver is None:
            return Decision(False, f"a PreToolUse hook asked for the user's approval, but this run is headless and cannot ask{': ' + reason if reason else ''}", "hook")
        summary = f"{tool.name} (a PreToolUse hook asks you to confirm{': ' + reason if reason else ''})"
        answer = await approver.ask(ApprovalRequest(tool.name, args, summary, None, diff=preview() if preview is not None else ""))
        if answer.choice in ("once", "always"):
            return Decision(True, "approved by the user", "approval", updated_args=answer.updated_input)
        return Decision(False, f"The user denied this call: {answer.reason}" if answer.reason else "The user denied this call.", "approval")


class HookedTool:
    """``inner`` (same name, schema and traits) with ``PostToolUse`` after every completed run."""

    def __init__(self, inner: Tool, hooks: SessionHooks, emit: Emit) -> None:
        self.inner = inner
        self.hooks = hooks
        self.emit = emit
        self.name = inner.name
        self.description = inner.description
        self.input_schema = inner.input_schema
        self.traits = inner.traits

    def preview(self, args: Mapping[str, Any], ctx: ToolContext) -> str | None:
        return preview_diff(self.inner, args, ctx)

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        output = await self.inner.run(args, ctx)
        response = {"content": output.content, "is_error": output.is_error, "summary": output.summary}
        outcome = await self.hooks.post_tool(self.inner.name, args, response, self.traits)
        for event in outcome.events:
            await self.emit(event)
        notes = [f"PostToolUse hook feedback: {outcome.reason}"] if outcome.blocked and outcome.reason else []
        notes += [f"PostToolUse hook context: {outcome.context}"] if outcome.context else []
        if not notes:
            return output
        content = "\n\n".join([output.content.rstrip("\n"), *notes])
        return dataclasses.replace(output, content=content)


def wrap_tools(tools: Mapping[str, Tool], hooks: SessionHooks, emit: Emit) -> Mapping[str, Tool]:
    """``tools`` with ``PostToolUse`` hooks, or ``tools`` itself when no such hook is configured."""
    if "PostToolUse" not in hooks.config.groups:
        return tools
    return {name: HookedTool(tool, hooks, emit) for name, tool in tools.items()}


def wrap_gate(gate: PermissionGate | None, hooks: SessionHooks, emit: Emit) -> PermissionGate | None:
    """``gate`` behind ``PreToolUse`` hooks, or ``gate`` itself when no such hook is configured."""
    if "PreToolUse" not in hooks.config.groups:
        return gate
    return HookedGate(hooks, gate, emit)
