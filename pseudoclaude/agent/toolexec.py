"""Running the tool calls of one assistant turn.

Every call ends as exactly one ``Message.tool`` result, in call order, no
matter what happens: unknown tool, malformed arguments, a denied permission, a
tool error, an unexpected exception, or cancellation (calls that did not
finish get an "interrupted" result, kept in order with the ones that did).
Calls run concurrently only when every call of the turn is read-only.

A command the sandbox confined may come back blocked by it (its output's
``display["sandbox_blocked"]``: a read-only path, a refused connection). The
round then asks the gate once whether it may run outside (``escalate``); yes
runs the same call again unconfined, and that result, saying so, is what the
model gets; no (headless: always no) keeps the blocked result, with the
reason, as a denial (``ToolCallFinished.denied``, stream-json's
``permission_denials``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any, Mapping, Protocol, Sequence

from pseudoclaude.agent.closure import interrupted_result
from pseudoclaude.agent.events import ImageShown, ToolCallFinished, ToolCallStarted
from pseudoclaude.agent.redacting import redacted_output
from pseudoclaude.agent.streaming import Emit as Emit
from pseudoclaude.llm import Message, ToolCall
from pseudoclaude.tools import Tool, ToolContext, ToolError, ToolOutput
from pseudoclaude.tools.permissions import CURRENT_CALL, REJUDGING, Decision, Preview


class PermissionGate(Protocol):
    """What a tool round needs of the permission policy: a decision for each call, and for a sandbox's block."""

    async def check(self, tool: Tool, args: Mapping[str, Any], preview: Preview | None = None) -> Decision: ...

    async def escalate(self, tool: Tool, args: Mapping[str, Any], blocked: str) -> Decision:
        """May this command, which the sandbox blocked (``blocked``: its one line), run again outside it?"""
        ...


class Permissions(PermissionGate, Protocol):
    """What the runner needs of the permission policy: decisions, and what the current mode tells the model."""

    def mode_instructions(self) -> str: ...


def _parse_arguments(call: ToolCall) -> dict[str, Any]:
    try:
        return call.parsed_arguments()
    except (ValueError, json.JSONDecodeError) as error:
        raise _FormatError(
            f"The arguments of this {call.name} call are not a valid JSON object ({error}). "
            "Nothing was run. Call the tool again with a complete JSON object matching its schema."
        ) from None


class _FormatError(Exception):
    pass


def preview_diff(tool: Tool, args: Mapping[str, Any], context: ToolContext) -> str | None:
    """The change a tool with a ``preview`` (edit_file, write_file) would make; raises ``ToolError`` when it would refuse.

    Run before the permission question, so the question shows the change and
    a call the tool would refuse (not read first, text not found) is never
    offered for approval only to fail after it.
    """
    preview = getattr(tool, "preview", None)
    if not callable(preview):
        return None
    diff = preview(args, context)
    return diff if isinstance(diff, str) else None


async def run_one(
    call: ToolCall,
    tools: Mapping[str, Tool],
    context: ToolContext,
    gate: PermissionGate | None,
) -> tuple[ToolOutput, bool]:
    """Run one call; return its output and whether the failure was a format error. Never raises ToolError."""
    tool = tools.get(call.name)
    if tool is None:
        names = ", ".join(sorted(tools))
        return ToolOutput(f"Unknown tool {call.name!r}. Available tools: {names}.", is_error=True, summary="unknown tool"), True
    try:
        args = _parse_arguments(call)
    except _FormatError as error:
        return ToolOutput(str(error), is_error=True, summary="malformed arguments"), True
    token = CURRENT_CALL.set(call.id)  # an approver or hook callback that names the call reads it
    try:
        return await _decided(call, tool, args, context, gate)
    finally:
        CURRENT_CALL.reset(token)


async def _decided(call: ToolCall, tool: Tool, args: dict[str, Any], context: ToolContext, gate: PermissionGate | None) -> tuple[ToolOutput, bool]:
    """Run ``call`` as the gate decides (no gate: run it)."""
    if gate is None:
        return await _run(call, tool, args, context)
    try:
        decision = await gate.check(tool, args, lambda: preview_diff(tool, args, context) or "")
    except ToolError as error:  # the tool would refuse the call: never offered for approval
        return ToolOutput(f"Error: {error}", is_error=True, summary=str(error).splitlines()[0][:120] if str(error) else "error"), False
    if not decision.allowed:
        return ToolOutput(f"Permission denied: {decision.reason}", is_error=True, summary="denied", display={"denied": decision.reason}), False
    rewritten = decision.updated_input is not None and dict(decision.updated_input) != args
    if decision.updated_input is not None:
        args = dict(decision.updated_input)
    if rewritten and decision.source == "approval":
        refused = await _rejudged(tool, args, gate)
        if refused is not None:
            return refused, False
    if decision.outside_sandbox:
        context = dataclasses.replace(context, sandbox=None)
    output, format_error = await _run(call, tool, args, context)
    blocked = output.display.get("sandbox_blocked")
    if context.sandbox is not None and isinstance(blocked, str) and blocked:
        output = await _escalated(call, tool, args, context, gate, output, blocked)
    if decision.saved_rule is not None:
        output = dataclasses.replace(output, display={**output.display, "rule_saved": str(decision.saved_rule)})
    return (_rewritten(output, args) if rewritten else output), format_error


async def _rejudged(tool: Tool, args: Mapping[str, Any], gate: PermissionGate) -> ToolOutput | None:
    """The policy's word on the input an approver rewrote a call to (not asking it again); the refusal, or None to run it."""
    token = REJUDGING.set(True)
    try:
        again = await gate.check(tool, args, None)
    except ToolError as error:
        return ToolOutput(f"Error: {error}", is_error=True, summary=str(error).splitlines()[0][:120] if str(error) else "error")
    finally:
        REJUDGING.reset(token)
    if again.allowed:
        return None
    why = f"the input the permission callback rewrote this call to is refused: {again.reason}"
    return ToolOutput(f"Permission denied: {why}", is_error=True, summary="denied", display={"denied": why})


def _rewritten(output: ToolOutput, args: Mapping[str, Any]) -> ToolOutput:
    """The result of a call a hook or the approver rewrote: the arguments that ran head the content (the model, the session and the display see them)."""
    note = f"(This call's input was changed before it ran (a hook or the permission callback); it ran with: {json.dumps(args, ensure_ascii=False)[:2000]})"
    return dataclasses.replace(output, content=f"{note}\n{output.content}", display={**output.display, "updated_input": dict(args)})


async def _escalated(
    call: ToolCall, tool: Tool, args: Mapping[str, Any], context: ToolContext, gate: PermissionGate, blocked_output: ToolOutput, blocked: str
) -> ToolOutput:
    """The result of a call the sandbox blocked: run again outside it if the gate says yes, else the block as a denial."""
    decision = await gate.escalate(tool, args, blocked)
    if not decision.allowed:
        content = f"{blocked_output.content.rstrip()}\n\n{decision.reason}"
        return dataclasses.replace(blocked_output, content=content, is_error=True, display={**blocked_output.display, "denied": decision.reason})
    output, _ = await _run(call, tool, args, dataclasses.replace(context, sandbox=None))
    note = f"(Ran outside the sandbox, as the user approved; inside it: {blocked.strip().removeprefix('sandbox: ')})"
    return dataclasses.replace(output, content=f"{note}\n{output.content}", display={**output.display, "outside_sandbox": blocked})


async def _run(call: ToolCall, tool: Tool, args: Mapping[str, Any], context: ToolContext) -> tuple[ToolOutput, bool]:
    try:
        return await tool.run(args, context.at(call_id=call.id)), False
    except ToolError as error:
        return ToolOutput(f"Error: {error}", is_error=True, summary=str(error).splitlines()[0][:120] if str(error) else "error"), False
    except (asyncio.CancelledError, KeyboardInterrupt):
        raise
    except Exception as error:  # a tool bug must not kill the session
        return ToolOutput(f"Error: {call.name} failed unexpectedly: {type(error).__name__}: {error}", is_error=True, summary="internal error"), False


def _preview_args(call: ToolCall) -> Mapping[str, Any]:
    try:
        return call.parsed_arguments()
    except ValueError:
        return {"_raw": call.arguments[:200]}


class ToolRound:
    """The calls of one assistant message, run once; ``results()`` answers every call, also after a cancel."""

    def __init__(self, calls: Sequence[ToolCall], tools: Mapping[str, Tool], context: ToolContext, gate: PermissionGate | None, emit: Emit) -> None:
        self.calls = tuple(calls)
        self.tools = tools
        self.context = context
        self.gate = gate
        self.emit = emit
        self._finished: dict[str, ToolOutput] = {}

    async def run(self) -> int:
        """Run the calls (concurrently when all are read-only); returns how many had malformed arguments."""
        for call in self.calls:
            await self.emit(ToolCallStarted(call_id=call.id, name=call.name, arguments=_preview_args(call)))
        concurrent = len(self.calls) > 1 and all((t := self.tools.get(c.name)) is not None and t.traits.read_only for c in self.calls)
        if concurrent:
            return sum(await asyncio.gather(*(self._one(call) for call in self.calls)))
        return sum([await self._one(call) for call in self.calls])

    async def _one(self, call: ToolCall) -> int:
        output, format_error = await run_one(call, self.tools, self.context, self.gate)
        output = redacted_output(output, self.context.child_env.redactor)
        self._finished[call.id] = output
        summary, denied = output.summary or _first_line(output.content), "denied" in output.display
        images = tuple(ImageShown.of(image) for image in output.images)
        await self.emit(ToolCallFinished(call.id, call.name, output.is_error, summary, output.display, output.content, denied, images))
        return int(format_error)

    def results(self, cause: str = "user") -> list[Message]:
        """One result per call, in call order; calls that did not finish are "interrupted" by ``cause``."""
        finished = self._finished
        return [
            _result_message(call.id, finished[call.id]) if call.id in finished else Message.tool(call.id, interrupted_result(cause), is_error=True)
            for call in self.calls
        ]


def _result_message(call_id: str, output: ToolOutput) -> Message:
    return Message.tool(
        call_id, output.content, output.is_error, shaped=output.shaped, full_output=output.full_output, images=output.images, summary=output.summary
    )


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:120]
