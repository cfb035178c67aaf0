"""Translation between the neutral model and the Anthropic Messages wire format.

No SDK import here: this module builds plain dicts (``to_wire_request``),
folds stream events (anything with the attributes of the SDK's raw event
models) into neutral ``StreamEvent``s (``StreamAssembler``) and maps error
objects to the error tree (``error_from_body``), so it stays cheap to import
and easy to read. ``openai_wire.py`` has the same three parts.

Invariants the request keeps:

* **Strict alternation.** Consecutive wire turns of the same role are merged
  (tool results become one user turn; a user text after tool results joins
  that turn after them), and ``tool_result`` blocks always lead their turn.
  Turns with nothing to say are dropped: the API rejects empty text blocks.
* **Byte stability.** The same ``Request`` always yields the same dicts in the
  same key order, so the JSON body (and with it the prompt cache) is stable.
* **``tool_choice`` only when it matters**: sent (``{"type": "none"}``) only
  with tools and when not "auto", so the main loop's body never changes.
* **At most three cache breakpoints** (the API allows four): the last tool, the
  stable system block, and the last content block of the latest turn. The
  changing ``system_suffix`` travels after the cached system block.
* **Images only where the model can take them.** ``images_for_model`` runs
  first (a no-vision model or bytes missing from the session get a text note).
  A user turn's images are ``image`` blocks with a base64 ``source``, placed
  before its text (Anthropic's advice: image first, then the question); a tool
  result's images go inside its ``tool_result`` as a ``content`` list (the text
  block, then the image blocks), so they never leave their call. A result
  without images keeps its plain string ``content``: the bytes of every
  image-free request are what they were before images existed. A request
  never holds more images than ``image_budget`` allows (100, 24 MB of base64:
  the 32 MB request limit less room for text); the oldest become notes.

Stream assembly: a ``tool_use`` block's arguments are the concatenated
``partial_json`` pieces, kept as raw text; ``Completed`` exists only once
``message_stop`` arrived, so a half-received call can never be executed.
``thinking`` blocks (text deltas, then the signature) and ``redacted_thinking``
blocks become the message's ``Thinking`` parts, in block order; the thinking
and its request parameters are in ``anthropic_thinking.py``. A ``compaction``
block (its start, then ``compaction_delta`` setting its content) becomes the
message's ``Compaction``, sent back first in that message; the edits the
server applied and what the compaction itself cost (``usage.iterations``,
billed apart from the response, added into its usage) become ``ServerWork``;
the ``context_management`` parameter and beta headers are in
``anthropic_context.py``.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from pseudoclaude.llm.errors import (
    AuthError,
    BadRequest,
    Overloaded,
    PromptTooLong,
    ProviderError,
    RateLimited,
    ServerError,
    StreamCut,
    error_for_status,
)
from pseudoclaude.llm.anthropic_context import applied_edits, betas_for, block_fields, compaction_block, compaction_of, context_params
from pseudoclaude.llm.anthropic_thinking import continues_unthought_tool_round, thinking_blocks, thinking_params
from pseudoclaude.llm.image_budget import ANTHROPIC_IMAGES, newest_images
from pseudoclaude.llm.images import Image
from pseudoclaude.llm.messages import Message, Thinking, ToolCall, ToolSpec, Usage
from pseudoclaude.llm.provider import (
    Completed,
    Request,
    ServerWork,
    StreamEvent,
    TextChunk,
    ThinkingChunk,
    ToolCallStart,
    ToolArgsChunk,
    UsageSoFar,
)
from pseudoclaude.llm.providers import ANTHROPIC
from pseudoclaude.llm.vision import images_for_model

WireMessage = dict[str, Any]

_BY_ERROR_TYPE: dict[str, type[ProviderError]] = {
    "overloaded_error": Overloaded,
    "api_error": ServerError,
    "rate_limit_error": RateLimited,
    "authentication_error": AuthError,
    "permission_error": AuthError,
    "request_too_large": PromptTooLong,
    "invalid_request_error": BadRequest,
    "not_found_error": BadRequest,
    "timeout_error": ServerError,
}


def _ephemeral() -> dict[str, str]:
    return {"type": "ephemeral"}


def to_wire_request(request: Request) -> dict[str, Any]:
    """The keyword arguments of ``messages.create`` for ``request`` (without ``stream``)."""
    thinking = thinking_params(request)
    messages = newest_images(images_for_model(request.messages, request.model), ANTHROPIC_IMAGES)
    turns = _wire_messages(messages, with_thinking=bool(thinking))
    if thinking.get("thinking", {}).get("type") == "enabled" and continues_unthought_tool_round(turns):
        thinking, turns = {}, _wire_messages(messages, with_thinking=False)
    params: dict[str, Any] = {"model": request.model, "max_tokens": thinking.pop("max_tokens", request.max_tokens)}
    system = _wire_system(request)
    if system:
        params["system"] = system
    params["messages"] = turns
    if request.tools:
        params["tools"] = _wire_tools(request.tools)
        if request.tool_choice != "auto":
            params["tool_choice"] = {"type": request.tool_choice}
    params.update(thinking)
    params.update(context_params(request.server_context, _server_strategies(request.model), thinking="thinking" in thinking))
    betas = betas_for(params, messages)
    if betas:
        params["betas"] = betas
    return params


def _server_strategies(model: str) -> tuple[str, ...]:
    from pseudoclaude.llm.models import model_info

    info = model_info(model)
    return info.context_management if info is not None else ()


def _wire_system(request: Request) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if request.system:
        blocks.append({"type": "text", "text": request.system, "cache_control": _ephemeral()})
    if request.system_suffix:
        blocks.append({"type": "text", "text": request.system_suffix})
    return blocks


def _wire_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"name": t.name, "description": t.description, "input_schema": _plain(t.input_schema)} for t in tools]
    if out:
        out[-1]["cache_control"] = _ephemeral()
    return out


def _wire_messages(messages: Sequence[Message], *, with_thinking: bool) -> list[WireMessage]:
    """Alternating user/assistant turns, the last content block marked for caching.

    Thinking blocks travel only in a request that asks for thinking: without
    it the API has no use for them, and an assistant turn holding nothing but
    thinking would be an empty one.
    """
    turns: list[WireMessage] = []
    for message in messages:
        role, blocks = _blocks_of(message, with_thinking)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"] = _merge(turns[-1]["content"], blocks)
        else:
            turns.append({"role": role, "content": blocks})
    if turns and turns[-1]["content"][-1]["type"] not in ("thinking", "redacted_thinking"):
        turns[-1]["content"][-1]["cache_control"] = _ephemeral()
    return turns


def _blocks_of(message: Message, with_thinking: bool) -> tuple[str, list[dict[str, Any]]]:
    if message.role == "tool":
        result = message.tool_result
        if result is None:
            return "user", []
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": result.call_id}
        if result.images:
            text = [{"type": "text", "text": result.content}] if result.content else []
            block["content"] = text + [image_block(image) for image in result.images]
        elif result.content:
            block["content"] = result.content
        if result.is_error:
            block["is_error"] = True
        return "user", [block]
    blocks: list[dict[str, Any]] = compaction_block(message.compaction) if message.role == "assistant" else []
    if with_thinking and message.role == "assistant":
        blocks.extend(thinking_blocks(message.thinking))
    if message.role == "user":
        blocks.extend(image_block(image) for image in message.images)
    if message.text:
        blocks.append({"type": "text", "text": message.text})
    if message.role == "assistant":
        blocks.extend(_tool_use_block(call) for call in message.tool_calls)
    if blocks and all(b["type"] in ("thinking", "redacted_thinking") for b in blocks):
        return message.role, []
    return message.role, blocks


def image_block(image: Image) -> dict[str, Any]:
    """An ``image`` content block carrying ``image``'s bytes as base64 (the same bytes give the same block)."""
    data = base64.b64encode(image.data).decode("ascii")
    return {"type": "image", "source": {"type": "base64", "media_type": image.media_type, "data": data}}


def _tool_use_block(call: ToolCall) -> dict[str, Any]:
    try:
        arguments: dict[str, Any] = call.parsed_arguments()
    except ValueError:
        arguments = {}
    return {"type": "tool_use", "id": call.id, "name": call.name, "input": arguments}


def _merge(existing: list[dict[str, Any]], added: list[dict[str, Any]]) -> list[dict[str, Any]]:
    combined = existing + added
    results = [b for b in combined if b["type"] == "tool_result"]
    others = [b for b in combined if b["type"] != "tool_result"]
    return results + others


def _plain(value: Any) -> Any:
    """A JSON-ready copy (mappings become dicts, tuples lists), key order preserved."""
    return json.loads(json.dumps(value))


def error_from_body(status: int | None, error: Mapping[str, Any] | None, *, retry_after: float | None = None, credential: str = "") -> ProviderError:
    """The normalized error for an HTTP status (None: an ``error`` event inside an open stream) and its error object.

    ``credential``: the variable whose value was sent (``ANTHROPIC_API_KEY`` unless said), named by an auth error.
    """
    error = error or {}
    error_type = error.get("type") if isinstance(error.get("type"), str) else None
    message = str(error.get("message") or "")
    if status is None:
        message = f"{error_type or 'error'} in the response stream: {message}"
    if status in (401, 403) or error_type in ("authentication_error", "permission_error"):
        what = "the token" if credential == ANTHROPIC.token_variable else "the API key"
        return AuthError(f"Anthropic rejected {what} ({message}); check {credential or ANTHROPIC.key_variable}", status=status)
    if "prompt is too long" in message.lower():
        return PromptTooLong(message, status=status)
    if status == 529 or error_type == "overloaded_error":
        return Overloaded(message, status=status, retry_after=retry_after)
    if status is not None:
        return error_for_status(status, message, retry_after)
    return _BY_ERROR_TYPE.get(error_type or "", ServerError)(message, retry_after=retry_after)


@dataclass
class _PendingCall:
    """A tool call still streaming: its arguments are the ``partial_json`` pieces so far."""

    ordinal: int
    id: str
    name: str
    pieces: list[str] = field(default_factory=list)


@dataclass
class _PendingThinking:
    """A thinking block still streaming: its text pieces and (arriving last) its signature."""

    kind: str
    pieces: list[str] = field(default_factory=list)
    opaque: str = ""

    def part(self) -> Thinking:
        return Thinking(provider=ANTHROPIC.name, kind=self.kind, text="".join(self.pieces), opaque=self.opaque)


@dataclass
class StreamAssembler:
    """Folds raw Messages stream events into neutral ``StreamEvent``s.

    ``feed`` returns the events to yield for one wire event; ``done`` turns
    true at ``message_stop``. ``finish`` then returns the single ``Completed``,
    or raises ``StreamCut`` when the stream ended before ``message_stop``.
    """

    text_parts: list[str] = field(default_factory=list)
    tools: dict[int, _PendingCall] = field(default_factory=dict)
    thinking: dict[int, _PendingThinking] = field(default_factory=dict)
    usage: dict[str, int] = field(default_factory=dict)
    stop_reason: str = "end_turn"
    done: bool = False
    compaction: dict[int, dict[str, Any]] = field(default_factory=dict)
    compaction_usage: dict[str, int] = field(default_factory=dict)
    edits: tuple[tuple[str, int], ...] = ()

    def feed(self, event: Any) -> list[StreamEvent]:
        kind = getattr(event, "type", None)
        if kind == "message_start":
            self._take_usage(getattr(event.message, "usage", None))
            return [UsageSoFar(self._usage())] if self.usage else []
        elif kind == "content_block_start":
            return self._block_start(event.index, event.content_block)
        elif kind == "content_block_delta":
            return self._block_delta(event.index, event.delta)
        elif kind == "message_delta":
            self._take_usage(getattr(event, "usage", None))
            self.edits = applied_edits(getattr(event, "context_management", None)) or self.edits
            reason = getattr(event.delta, "stop_reason", None)
            if reason:
                self.stop_reason = str(reason)
        elif kind == "message_stop":
            self.done = True
        return []

    def _block_start(self, index: int, block: Any) -> list[StreamEvent]:
        kind = getattr(block, "type", None)
        if kind == "thinking":
            pending = self.thinking[index] = _PendingThinking("thinking", opaque=str(getattr(block, "signature", "") or ""))
            text = str(getattr(block, "thinking", "") or "")
            if text:
                pending.pieces.append(text)
                return [ThinkingChunk(text)]
            return []
        if kind == "redacted_thinking":
            self.thinking[index] = _PendingThinking("redacted_thinking", opaque=str(getattr(block, "data", "") or ""))
            return []
        if kind == "compaction":
            self.compaction[index] = block_fields(block)
            return []
        if kind == "tool_use":
            tool = _PendingCall(ordinal=len(self.tools), id=str(block.id), name=str(block.name))
            self.tools[index] = tool
            return [ToolCallStart(index=tool.ordinal, id=tool.id, name=tool.name)]
        if getattr(block, "type", None) == "text" and getattr(block, "text", ""):
            self.text_parts.append(block.text)
            return [TextChunk(block.text)]
        return []

    def _block_delta(self, index: int, delta: Any) -> list[StreamEvent]:
        kind = getattr(delta, "type", None)
        if kind == "text_delta" and delta.text:
            self.text_parts.append(delta.text)
            return [TextChunk(delta.text)]
        if kind == "input_json_delta" and index in self.tools:
            tool, fragment = self.tools[index], delta.partial_json or ""
            tool.pieces.append(fragment)
            return [ToolArgsChunk(tool.ordinal, tool.id, fragment)] if fragment else []
        if kind == "thinking_delta" and index in self.thinking and delta.thinking:
            self.thinking[index].pieces.append(delta.thinking)
            return [ThinkingChunk(delta.thinking)]
        if kind == "signature_delta" and index in self.thinking:
            self.thinking[index].opaque += delta.signature or ""
        if kind == "compaction_delta" and index in self.compaction:
            for name in ("content", "encrypted_content"):
                value = getattr(delta, name, None)
                if value is not None:
                    self.compaction[index][name] = value
                else:
                    self.compaction[index].pop(name, None)
        return []

    def _take_usage(self, usage: Any) -> None:
        if usage is None:
            return
        for name in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
            value = getattr(usage, name, None)
            if value is not None:
                self.usage[name] = int(value)
        iterations = getattr(usage, "iterations", None)
        if iterations:
            self.compaction_usage = {}
            for item in iterations:
                if getattr(item, "type", None) == "compaction":
                    for name in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
                        self.compaction_usage[name] = self.compaction_usage.get(name, 0) + int(getattr(item, name, 0) or 0)

    def _usage(self, counts: dict[str, int] | None = None) -> Usage:
        counts = self.usage if counts is None else counts
        return Usage(
            input_tokens=counts.get("input_tokens", 0),
            output_tokens=counts.get("output_tokens", 0),
            cache_read_tokens=counts.get("cache_read_input_tokens", 0),
            cache_write_tokens=counts.get("cache_creation_input_tokens", 0),
        )

    def finish(self) -> list[StreamEvent]:
        """The closing ``Completed``; ``StreamCut`` if ``message_stop`` never came."""
        if not self.done:
            raise StreamCut("the response stream ended before message_stop")
        calls = tuple(ToolCall(id=t.id, name=t.name, arguments="".join(t.pieces) or "{}") for t in sorted(self.tools.values(), key=lambda t: t.ordinal))
        usage = self._usage()
        thinking = tuple(self.thinking[i].part() for i in sorted(self.thinking))
        summarized = [fields for _, fields in sorted(self.compaction.items()) if fields.get("content")]  # a null one failed: a no-op
        compaction = compaction_of(summarized[-1]) if summarized else None
        message = Message.assistant(text="".join(self.text_parts), tool_calls=calls, thinking=thinking, compaction=compaction)
        server = ServerWork(self._usage(self.compaction_usage), self.edits) if compaction is not None or self.edits else None
        return [Completed(message=message, usage=usage + server.usage if server else usage, stop_reason=self.stop_reason, server=server)]
