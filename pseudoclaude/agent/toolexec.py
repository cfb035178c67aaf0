"""Running the tool calls of one assistant turn.

Every call ends as exactly one ``Message.tool`` result, in call order, no
matter what happens: unknown tool, malformed arguments, a denied permission, a
tool error, an unexpected exception, or cancellation (calls that did not
finish get an "interrupted" result, kept in order with the ones that did).
Calls run concurrently only when every call of the turn is read-only.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Mapping, Protocol, Sequence

from pseudoclaude.agent.closure import INTERRUPTED_RESULT
from pseudoclaude.agent.events import Event, ToolCallFinished, ToolCallStarted
from pseudoclaude.llm.messages import Message, ToolCall
from pseudoclaude.tools.base import Tool, ToolContext, ToolError, ToolOutput


class PermissionGate(Protocol):
    """What the runner needs of the permission policy."""

    async def check(self, tool: Tool, args: Mapping[str, Any]) -> Any:
        """An object with ``allowed: bool`` and ``reason: str``."""
        ...

    def mode_instructions(self) -> str:
        """What the current mode tells the model (plan mode: present a plan)."""
        ...


@dataclass
class RoundOutcome:
    """The results of one round, in call order, and whether any call's arguments were malformed."""

    results: list[Message] = field(default_factory=list)
    format_errors: int = 0


Emit = Callable[[Event], Awaitable[None]]


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
    if gate is not None:
        decision = await gate.check(tool, args)
        if not decision.allowed:
            return ToolOutput(f"Permission denied: {decision.reason}", is_error=True, summary="denied"), False
    try:
        return await tool.run(args, context), False
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


async def run_round(
    calls: Sequence[ToolCall],
    tools: Mapping[str, Tool],
    context: ToolContext,
    gate: PermissionGate | None,
    emit: Emit,
    outcome: RoundOutcome,
) -> None:
    """Run ``calls``, filling ``outcome.results`` in call order (also when cancelled)."""
    for call in calls:
        await emit(ToolCallStarted(call_id=call.id, name=call.name, arguments=_preview_args(call)))
    finished: dict[str, ToolOutput] = {}

    async def one(call: ToolCall) -> None:
        output, format_error = await run_one(call, tools, context, gate)
        finished[call.id] = output
        outcome.format_errors += int(format_error)
        await emit(ToolCallFinished(call.id, call.name, output.is_error, output.summary or _first_line(output.content), output.display))

    concurrent = len(calls) > 1 and all((t := tools.get(c.name)) is not None and t.traits.read_only for c in calls)
    try:
        if concurrent:
            await asyncio.gather(*(one(call) for call in calls))
        else:
            for call in calls:
                await one(call)
    finally:
        outcome.results = [
            Message.tool(call.id, finished[call.id].content, finished[call.id].is_error)
            if call.id in finished
            else Message.tool(call.id, INTERRUPTED_RESULT, is_error=True)
            for call in calls
        ]


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:120]
