"""The tool hooks (``PreToolUse``, ``PermissionRequest``, ``Notification``, ``PostToolUse``,
``PostToolUseFailure``) around the tool round, without changing it.

A ``ToolRound`` asks a permission gate before each call and then runs the tool;
wrapping both is all the tool hooks need:

- ``HookedGate.check`` runs ``PreToolUse`` first. ``deny`` (or exit 2) refuses the
  call with the hook's reason, which the model reads. ``allow`` skips only the
  approval question: the hard deny list, deny rules and plan mode still hold (the
  policy runs with ``PREAPPROVED`` set, which ``HookAwareApprover`` answers
  "once", and a headless refusal becomes an allow). ``ask`` asks the user even
  where the policy would not (a headless run refuses).
- ``PermissionRequest`` runs where the user would be asked, and only there:
  inside the policy's question (``HookAwareApprover``, which knows the call
  through ``ASKING``, set by ``HookedGate.check``), or, in a headless run, where
  the policy refused because it could not ask (``Decision.source ==
  "headless"``). ``allow`` approves the call once for the user, ``deny``
  refuses it with the hook's message (``interrupt: true`` also ends the run);
  no decision asks the user (headless: the refusal stands).
- An ``allow`` (``PreToolUse`` or ``PermissionRequest``) with an ``updatedInput``
  runs the call with that input (Claude Code's argument names read back to
  ours) once the policy has judged it again without asking
  (``Decision.updated_input``): a hook may rewrite a call, never past the hard
  deny list, deny rules or plan mode.
- ``Notification`` (``permission_prompt``) runs while the user is asked.
- ``HookedTool.run`` runs the tool, then ``PostToolUse`` (``PostToolUseFailure``
  when the call failed); exit 2, ``decision: "block"`` or ``additionalContext``
  append the hook's words to the result.

Hook warnings are emitted as they happen through the round's ``emit``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping

from pseudoclaude.agent.toolexec import Emit, PermissionGate, preview_diff
from pseudoclaude.tools import Tool, ToolContext, ToolError, ToolOutput
from pseudoclaude.tools.permissions import ApprovalAnswer, ApprovalRequest, Approver, Decision, Preview

if TYPE_CHECKING:
    from pseudoclaude.agent.hooks.session import HookOutcome, SessionHooks

PREAPPROVED: ContextVar[bool] = ContextVar("pseudoclaude_hook_preapproved", default=False)
TOOL_EVENTS = ("PreToolUse", "PermissionRequest", "Notification")
"""The events that need the gate wrapped (``wrap_gate``)."""


@dataclass
class _Asking:
    """The call whose permission the policy is deciding, for the approver's ``PermissionRequest``.

    ``updated_input``: what a ``PermissionRequest`` hook that approved the call asked it to run with.
    """

    hooks: SessionHooks
    tool: Tool
    emit: Emit
    updated_input: Mapping[str, Any] | None = None


ASKING: ContextVar[_Asking | None] = ContextVar("pseudoclaude_hook_asking", default=None)


class HookAwareApprover:
    """The user's approver behind the hooks: a PreToolUse ``allow`` says "once" without asking; otherwise
    ``PermissionRequest`` may answer for the user, and ``Notification`` runs while the user is asked."""

    def __init__(self, inner: Approver) -> None:
        self.inner = inner

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        if PREAPPROVED.get():
            return ApprovalAnswer("once")
        asking = ASKING.get()
        if asking is None or request.kind != "call":
            return await self.inner.ask(request)
        rule = str(request.suggested_rule) if request.suggested_rule is not None else None
        decided = await _permission_request(asking, request.args, rule)
        if decided is not None:
            asking.updated_input = decided.updated_input
            return ApprovalAnswer("once") if decided.allowed else ApprovalAnswer("deny", decided.reason)
        return await _ask_user(asking, self.inner, request)


async def _ask_user(asking: _Asking, approver: Approver, request: ApprovalRequest) -> ApprovalAnswer:
    """Ask the user, with the ``Notification`` hooks running meanwhile.

    The call goes on once both are done (a notification hook is bounded by its
    timeout), so the hooks' warnings are shown in their place; a cancelled
    question stops them.
    """
    message = f"PseudoClaude needs your permission to use {asking.tool.traits.claude_name(asking.tool.name)}"
    notified = asyncio.ensure_future(asking.hooks.notify(message, "permission_prompt"))
    try:
        answer = await approver.ask(request)
    except BaseException:
        notified.cancel()
        await asyncio.gather(notified, return_exceptions=True)
        raise
    for event in await notified:
        await asking.emit(event)
    return answer


async def _permission_request(asking: _Asking, args: Mapping[str, Any], rule: str | None) -> Decision | None:
    """The ``PermissionRequest`` hooks' decision for the user, or None when none decided."""
    tool = asking.tool
    outcome = await asking.hooks.permission_request(tool.name, args, tool.traits, rule)
    for event in outcome.events:
        await asking.emit(event)
    if outcome.permission == "deny" or outcome.blocked:
        return Decision(False, f"denied by a PermissionRequest hook: {outcome.reason or 'no reason given'}", "hook")
    if outcome.permission != "allow":
        return None
    return Decision(True, "allowed by a PermissionRequest hook", "hook", updated_input=_changed(tool, args, outcome.updated_input))


def _changed(tool: Tool, args: Mapping[str, Any], updated: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """A hook's ``updatedInput`` under our argument names, or None when it changes nothing."""
    if updated is None:
        return None
    ours = tool.traits.from_claude(updated)
    return None if ours == dict(args) else ours


@dataclass
class HookedGate:
    hooks: SessionHooks
    inner: PermissionGate | None
    emit: Emit

    async def check(self, tool: Tool, args: Mapping[str, Any], preview: Preview | None = None) -> Decision:
        asking = _Asking(self.hooks, tool, self.emit)
        token = ASKING.set(asking)
        try:
            decision = await self._check(tool, args, preview)
        finally:
            ASKING.reset(token)
        if decision.allowed and asking.updated_input is not None:
            decision = dataclasses.replace(decision, updated_input=asking.updated_input)
        if decision.source == "headless" and not decision.allowed:
            decided = await _permission_request(asking, args, None)
            if decided is not None:
                decision = dataclasses.replace(decided, outside_sandbox=decision.outside_sandbox) if decided.allowed else decided
        if decision.allowed and decision.updated_input is not None:
            return await self._rejudged(tool, decision)
        return decision

    async def _rejudged(self, tool: Tool, decision: Decision) -> Decision:
        """The policy's word on the input a hook rewrote the call to, without asking again."""
        updated = decision.updated_input or {}
        token = PREAPPROVED.set(True)
        try:
            again = await self._inner_check(tool, updated, None)
        finally:
            PREAPPROVED.reset(token)
        if not again.allowed and again.source != "headless":
            return Decision(False, f"the input a hook rewrote this call to is refused: {again.reason}", again.source)
        return dataclasses.replace(decision, updated_input=updated, outside_sandbox=again.outside_sandbox if again.allowed else decision.outside_sandbox)

    async def _check(self, tool: Tool, args: Mapping[str, Any], preview: Preview | None) -> Decision:
        outcome = await self.hooks.pre_tool(tool.name, args, tool.traits)
        for event in outcome.events:
            await self.emit(event)
        if outcome.blocked or outcome.halt:
            why = outcome.reason or outcome.halt or "no reason given"
            return Decision(False, f"blocked by a PreToolUse hook: {why}", "hook")
        if outcome.permission == "allow" and (updated := _changed(tool, args, outcome.updated_input)) is not None:
            return Decision(True, "allowed by a PreToolUse hook, with the input it gave", "hook", updated_input=updated)
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
        asking = _Asking(self.hooks, tool, self.emit)
        decided = await _permission_request(asking, args, None)
        if decided is not None:
            return decided
        approver = self.hooks.approver
        if approver is None:
            return Decision(
                False, f"a PreToolUse hook asked for the user's approval, but this run is headless and cannot ask{': ' + reason if reason else ''}", "hook"
            )
        summary = f"{tool.name} (a PreToolUse hook asks you to confirm{': ' + reason if reason else ''})"
        answer = await _ask_user(asking, approver, ApprovalRequest(tool.name, args, summary, None, diff=preview() if preview is not None else ""))
        if answer.choice in ("once", "always"):
            return Decision(True, "approved by the user", "approval", updated_input=answer.updated_input)
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
        started = time.monotonic()
        try:
            output = await self.inner.run(args, ctx)
        except ToolError as error:  # the tool refused: the error result the round would make, with the hooks' notes
            text = str(error)
            refused = ToolOutput(f"Error: {text}", is_error=True, summary=text.splitlines()[0][:120] if text else "error")
            return await self._failed(args, ctx, refused.content, started, refused)
        if output.is_error:
            return await self._failed(args, ctx, output.content, started, output)
        response = {"content": output.content, "is_error": output.is_error, "summary": output.summary}
        outcome = await self.hooks.post_tool(
            self.inner.name, args, response, self.traits, details=output.details, call_id=ctx.call_id, duration_ms=_ms(started)
        )
        return await self._noted("PostToolUse", outcome, output)

    async def _failed(self, args: Mapping[str, Any], ctx: ToolContext, error: str, started: float, output: ToolOutput | None = None) -> ToolOutput:
        outcome = await self.hooks.post_tool_failure(self.inner.name, args, error, self.traits, call_id=ctx.call_id, duration_ms=_ms(started))
        return await self._noted("PostToolUseFailure", outcome, output or ToolOutput(error, is_error=True))

    async def _noted(self, event: str, outcome: HookOutcome, output: ToolOutput) -> ToolOutput:
        for shown in outcome.events:
            await self.emit(shown)
        notes = [f"{event} hook feedback: {outcome.reason}"] if outcome.blocked and outcome.reason else []
        notes += [f"{event} hook context: {outcome.context}"] if outcome.context else []
        if not notes:
            return output
        content = "\n\n".join([output.content.rstrip("\n"), *notes])
        return dataclasses.replace(output, content=content)


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)


def wrap_tools(tools: Mapping[str, Tool], hooks: SessionHooks, emit: Emit) -> Mapping[str, Tool]:
    """``tools`` with ``PostToolUse``/``PostToolUseFailure`` hooks, or ``tools`` itself when no such hook is configured."""
    if not {"PostToolUse", "PostToolUseFailure"} & set(hooks.config.groups):
        return tools
    return {name: HookedTool(tool, hooks, emit) for name, tool in tools.items()}


def wrap_gate(gate: PermissionGate | None, hooks: SessionHooks, emit: Emit) -> PermissionGate | None:
    """``gate`` behind the ``PreToolUse``/``PermissionRequest``/``Notification`` hooks, or ``gate`` itself when none is configured."""
    if not set(TOOL_EVENTS) & set(hooks.config.groups):
        return gate
    return HookedGate(hooks, gate, emit)
