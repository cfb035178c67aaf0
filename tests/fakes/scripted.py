"""An in-process provider that plays a script, for fast runner tests.

It reads the same steps as the wire-level fakes (``tests/fakes/script.py``)
and checks each request's conversation with the rules both services enforce,
raising the 400 the real service would send when a history is invalid.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any, AsyncGenerator, Sequence

from pseudoclaude.llm.errors import (
    AuthError,
    BadRequest,
    Overloaded,
    PromptTooLong,
    RateLimited,
    ServerError,
    StreamCut,
)
from pseudoclaude.llm.messages import Message, ToolCall, Usage
from pseudoclaude.llm.provider import (
    Completed,
    Request,
    StreamEvent,
    TextChunk,
    ToolCallStart,
)
from tests.fakes.script import (
    Call,
    CutStream,
    HttpError,
    Reply,
    Script,
    ScriptCursor,
    StreamError,
    approx_tokens,
    split_text,
)


def validate_conversation(messages: Sequence[Message]) -> str | None:
    """The first rule a provider would reject ``messages`` for, or None."""
    if not messages:
        return "messages: at least one message is required"
    if messages[0].role != "user":
        return "messages.0: the first message must use the user role"
    pending: set[str] = set()
    previous_role = ""
    for index, message in enumerate(messages):
        if message.role == "tool":
            call_id = message.tool_result.call_id if message.tool_result else ""
            if call_id not in pending:
                return f"messages.{index}: tool result {call_id!r} does not answer a call of the previous assistant message"
            pending.discard(call_id)
            previous_role = "tool"
            continue
        if pending:
            return f"messages.{index}: tool calls without results: {sorted(pending)}"
        if message.role == previous_role:
            return f"messages.{index}: roles must alternate ({message.role} after {previous_role})"
        if message.role == "assistant":
            if not message.text and not message.tool_calls:
                return f"messages.{index}: assistant message is empty"
            pending = {call.id for call in message.tool_calls}
        previous_role = message.role
    if pending:
        return f"tool calls without results at the end: {sorted(pending)}"
    return None


@dataclass
class ScriptedProvider:
    """Plays ``script``; ``requests`` holds every ``Request`` it was given."""

    script: Script
    model: str = "scripted-model"
    context_window: int | None = None
    delay: float = 0.0
    name: str = "scripted"
    requests: list[Request] = field(default_factory=list)
    _cursor: ScriptCursor = field(init=False)
    _call_counter: int = 0

    def __post_init__(self) -> None:
        self._cursor = ScriptCursor(self.script)

    async def aclose(self) -> None:
        return None

    async def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        self.requests.append(request)
        body = _as_body(request)
        step = self._cursor.next_step(body)
        problem = validate_conversation(request.messages)
        if problem:
            raise BadRequest(problem, status=400)
        if self.context_window is not None and approx_tokens(body) > self.context_window:
            raise PromptTooLong(f"prompt is too long: {approx_tokens(body)} tokens > {self.context_window} maximum", status=400)
        if isinstance(step, HttpError):
            raise _http_error(step)
        if isinstance(step, StreamError):
            async for event in self._play(step.reply, body, limit=step.after_deltas):
                yield event
            raise Overloaded(f"{step.error_type} in stream")
        if isinstance(step, CutStream):
            async for event in self._play(step.reply, body, cut_call=step.call_index):
                yield event
            raise StreamCut("stream ended before the message completed")
        async for event in self._play(step, body):
            yield event

    async def _play(self, reply: Reply, body: dict[str, Any], limit: int | None = None, cut_call: int | None = None) -> AsyncGenerator[StreamEvent, None]:
        sent = 0
        for piece in split_text(reply.text, reply.text_chunks):
            if limit is not None and sent >= limit:
                return
            if self.delay:
                await asyncio.sleep(self.delay)
            sent += 1
            yield TextChunk(piece)
        calls: list[ToolCall] = []
        for index, call in enumerate(reply.calls):
            call_id = call.id or self._next_id()
            yield ToolCallStart(index, call_id, call.name)
            if cut_call is not None and index == cut_call:
                return
            calls.append(ToolCall(call_id, call.name, call.arguments))
        if limit is not None or cut_call is not None:
            return
        usage = Usage(
            input_tokens=reply.input_tokens if reply.input_tokens is not None else approx_tokens(body),
            output_tokens=reply.output_tokens,
            cache_read_tokens=reply.cache_read_tokens,
            cache_write_tokens=reply.cache_write_tokens,
        )
        stop = reply.stop_reason or ("tool_use" if calls else "end_turn")
        yield Completed(Message.assistant(reply.text, calls), usage, stop)

    def _next_id(self) -> str:
        self._call_counter += 1
        return f"call_{self._call_counter}"


def _as_body(request: Request) -> dict[str, Any]:
    return {
        "model": request.model,
        "system": request.system,
        "system_suffix": request.system_suffix,
        "tools": [spec.name for spec in request.tools],
        "tool_choice": request.tool_choice,
        "messages": [message.to_dict() for message in request.messages],
    }


def _http_error(step: HttpError) -> Exception:
    message = step.message or f"HTTP {step.status} {step.kind}"
    if step.kind == "context_length":
        return PromptTooLong(message, status=step.status)
    if step.status in (401, 403):
        return AuthError(message, status=step.status)
    if step.status == 429:
        return RateLimited(message, status=429, retry_after=step.retry_after)
    if step.status == 529 or step.kind == "overloaded":
        return Overloaded(message, status=step.status, retry_after=step.retry_after)
    if step.status >= 500:
        return ServerError(message, status=step.status)
    return BadRequest(message, status=step.status)


def call(name: str, **arguments: Any) -> Call:
    """A scripted call with JSON-encoded ``arguments``."""
    return Call(name=name, arguments=json.dumps(arguments))
