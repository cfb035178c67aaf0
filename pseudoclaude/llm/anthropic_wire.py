"""Translation between the neutral model and the Anthropic Messages wire format.

No SDK import here: this module builds plain dicts and folds stream events
(anything with the attributes of the SDK's raw event models) into neutral
``StreamEvent``s, so it stays cheap to import and easy to read.

Invariants the request keeps:

* **Strict alternation.** Consecutive wire turns of the same role are merged
  (tool results become one user turn; a user text after tool results joins
  that turn after them), and ``tool_result`` blocks always lead their turn.
  Turns with nothing to say are dropped: the API rejects empty text blocks.
* **Byte stability.** The same ``Request`` always yields the same dicts in the
  same key order, so the JSON body (and with it the prompt cache) is stable.
* **At most three cache breakpoints** (the API allows four): the last tool, the
  stable system block, and the last content block of the latest turn. The
  changing ``system_suffix`` travels after the cached system block.

Stream assembly: a ``tool_use`` block's arguments are the concatenated
``partial_json`` pieces, kept as raw text; ``Completed`` exists only once
``message_stop`` arrived, so a half-received call can never be executed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Sequence

from pseudoclaude.llm.messages import Message, ToolCall, ToolSpec, Usage
from pseudoclaude.llm.provider import (
    Completed,
    Request,
    StreamEvent,
    TextDelta,
    ToolCallStart,
)

WireMessage = dict[str, Any]


def _ephemeral() -> dict[str, str]:
    return {"type": "ephemeral"}


def request_params(request: Request) -> dict[str, Any]:
    """The keyword arguments of ``messages.create`` for ``request`` (without ``stream``)."""
    params: dict[str, Any] = {"model": request.model, "max_tokens": request.max_tokens}
    system = system_blocks(request.system, request.system_suffix)
    if system:
        params["system"] = system
    params["messages"] = wire_messages(request.messages)
    if request.tools:
        params["tools"] = wire_tools(request.tools)
    return params


def system_blocks(system: str, suffix: str) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if system:
        blocks.append({"type": "text", "text": system, "cache_control": _ephemeral()})
    if suffix:
        blocks.append({"type": "text", "text": suffix})
    return blocks


def wire_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [
        {"name": t.name, "description": t.description, "input_schema": _plain(t.input_schema)} for t in tools
    ]
    if out:
        out[-1]["cache_control"] = _ephemeral()
    return out


def wire_messages(messages: Sequence[Message]) -> list[WireMessage]:
    """Alternating user/assistant turns, the last content block marked for caching."""
    turns: list[WireMessage] = []
    for message in messages:
        role, blocks = _blocks_of(message)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"] = _merge(turns[-1]["content"], blocks)
        else:
            turns.append({"role": role, "content": blocks})
    if turns:
        turns[-1]["content"][-1]["cache_control"] = _ephemeral()
    return turns


def _blocks_of(message: Message) -> tuple[str, list[dict[str, Any]]]:
    if message.role == "tool":
        result = message.tool_result
        if result is None:
            return "user", []
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": result.call_id}
        if result.content:
            block["content"] = result.content
        if result.is_error:
            block["is_error"] = True
        return "user", [block]
    blocks: list[dict[str, Any]] = []
    if message.text:
        blocks.append({"type": "text", "text": message.text})
    if message.role == "assistant":
        blocks.extend(_tool_use_block(call) for call in message.tool_calls)
    return message.role, blocks


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


@dataclass
class _ToolBlock:
    ordinal: int
    id: str
    name: str
    pieces: list[str] = field(default_factory=list)


@dataclass
class StreamAssembler:
    """Folds raw Messages stream events into neutral ``StreamEvent``s.

    ``feed`` returns the events to yield for one wire event; after
    ``message_stop`` it returns the single ``Completed`` and ``done`` is true.
    """

    text_parts: list[str] = field(default_factory=list)
    tools: dict[int, _ToolBlock] = field(default_factory=dict)
    usage: dict[str, int] = field(default_factory=dict)
    stop_reason: str = "end_turn"
    done: bool = False

    def feed(self, event: Any) -> list[StreamEvent]:
        kind = getattr(event, "type", None)
        if kind == "message_start":
            self._take_usage(getattr(event.message, "usage", None))
        elif kind == "content_block_start":
            return self._block_start(event.index, event.content_block)
        elif kind == "content_block_delta":
            return self._block_delta(event.index, event.delta)
        elif kind == "message_delta":
            self._take_usage(getattr(event, "usage", None))
            reason = getattr(event.delta, "stop_reason", None)
            if reason:
                self.stop_reason = str(reason)
        elif kind == "message_stop":
            self.done = True
            return [self.completed()]
        return []

    def _block_start(self, index: int, block: Any) -> list[StreamEvent]:
        if getattr(block, "type", None) == "tool_use":
            tool = _ToolBlock(ordinal=len(self.tools), id=str(block.id), name=str(block.name))
            self.tools[index] = tool
            return [ToolCallStart(index=tool.ordinal, id=tool.id, name=tool.name)]
        if getattr(block, "type", None) == "text" and getattr(block, "text", ""):
            self.text_parts.append(block.text)
            return [TextDelta(block.text)]
        return []

    def _block_delta(self, index: int, delta: Any) -> list[StreamEvent]:
        kind = getattr(delta, "type", None)
        if kind == "text_delta" and delta.text:
            self.text_parts.append(delta.text)
            return [TextDelta(delta.text)]
        if kind == "input_json_delta" and index in self.tools:
            self.tools[index].pieces.append(delta.partial_json or "")
        return []

    def _take_usage(self, usage: Any) -> None:
        if usage is None:
            return
        for name in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
            value = getattr(usage, name, None)
            if value is not None:
                self.usage[name] = int(value)

    def completed(self) -> Completed:
        calls = tuple(
            ToolCall(id=t.id, name=t.name, arguments="".join(t.pieces) or "{}")
            for t in sorted(self.tools.values(), key=lambda t: t.ordinal)
        )
        usage = Usage(
            input_tokens=self.usage.get("input_tokens", 0),
            output_tokens=self.usage.get("output_tokens", 0),
            cache_read_tokens=self.usage.get("cache_read_input_tokens", 0),
            cache_write_tokens=self.usage.get("cache_creation_input_tokens", 0),
        )
        message = Message.assistant(text="".join(self.text_parts), tool_calls=calls)
        return Completed(message=message, usage=usage, stop_reason=self.stop_reason)
