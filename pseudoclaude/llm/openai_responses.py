"""The OpenAI Responses API wire format <-> the neutral conversation, without the SDK.

OpenAI's reasoning models (the rows whose ``reasoning`` style is ``effort``)
are spoken to through ``POST /v1/responses``: it is the only API that hands a
model its earlier reasoning back, so a tool round continues its thought
instead of starting over. ``openai.py`` decides which API a request takes;
this module translates, as ``openai_wire.py`` does for Chat Completions.

Invariants this module keeps:

* **A server-side compaction is carried, not re-sent whole.** A request with
  a ``ServerContext`` asks ``context_management: [{type: compaction,
  compact_threshold}]``; the opaque ``compaction`` item a response returns
  (the model's state, reasoning included) is kept as received on the
  message (``Compaction.opaque``) and sent back first, as its type and
  encrypted content, in place of what it replaced.

* **No state on the server.** ``store: false`` and
  ``include: ["reasoning.encrypted_content"]``: each reasoning item comes back
  encrypted, is kept in the session as a ``Thinking`` part (``opaque``: the
  item as received plus the model that wrote it, compact JSON) and is sent
  back unchanged in every later request to that model (another model cannot
  decrypt it, so a model switch leaves it out). Items are sent without their ``id`` (with ``store: false`` an id
  names nothing the server kept), and a reasoning item without encrypted
  content is never sent (the server could not read it).
* **Every reasoning item is followed by an output item of its turn.** An
  assistant turn is sent as its reasoning items zipped with its output items
  (the message, then the function calls), the order a response produces them
  in; a reasoning item with nothing after it (a response cut by its output
  cap) is dropped rather than sent to be refused.
* **Byte-stable requests.** The body depends only on the ``Request``: the
  stable system prompt is ``instructions``, the changing ``system_suffix`` the
  first input item, and ``prompt_cache_key`` a hash of model, instructions and
  tools, so requests sharing the prefix reach the same prompt cache.
* **Images inside their result.** ``images_for_model`` runs first (a no-vision
  model such as o3-mini, or bytes missing from the session, get a text note).
  A user message with images has a content list (``input_text``, then
  ``input_image`` parts holding ``data:`` URLs). A tool result's images stay in
  its ``function_call_output``: the Responses API documents ``output`` as
  "Text, image, or file output of the function tool call", a string or a list
  of ``input_text`` / ``input_image`` / ``input_file`` parts (openai-python
  ``types/responses/response_input_item_param.py``, ``FunctionCallOutput``;
  ``ResponseFunctionCallOutputItem`` in openai-java), so no follow-up user
  message is needed here as it is for Chat Completions. Image-free messages
  and results keep their plain string content and bytes. A request never
  holds more images than ``image_budget`` allows (the oldest become notes).
* **Nothing partial is ever completed.** ``ResponsesAssembler`` hands out a
  ``Completed`` only after ``response.completed`` (or ``response.incomplete``,
  the output cap); a stream that ends otherwise is ``StreamCut``. A function
  call counts only once its ``response.output_item.done`` arrived.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from pseudoclaude.llm.errors import StreamCut
from pseudoclaude.llm.image_budget import OPENAI_IMAGES, newest_images
from pseudoclaude.llm.images import Image
from pseudoclaude.llm.messages import Compaction, Message, Thinking, ToolCall, ToolSpec, Usage
from pseudoclaude.llm.models import openai_reasoning_model
from pseudoclaude.llm.openai_reasoning import output_cap, reasoning_effort
from pseudoclaude.llm.openai_wire import data_url, error_from_body
from pseudoclaude.llm.provider import (
    Completed,
    Request,
    ServerWork,
    StreamEvent,
    TextChunk,
    ThinkingChunk,
    ToolCallStart,
    ToolArgsChunk,
)
from pseudoclaude.llm.vision import images_for_model

__all__ = ["ResponsesAssembler", "response_as_events", "takes_responses", "to_responses_request"]

PROVIDER = "openai"
REASONING = "reasoning"
COMPACTION = "compaction"

_INCOMPLETE_TO_STOP = {"max_output_tokens": "max_tokens", "content_filter": "refusal"}


def takes_responses(model: str) -> bool:
    """Whether the model table sends ``model`` through the Responses API (on OpenAI itself)."""
    return openai_reasoning_model(model)


def to_responses_request(request: Request, *, summaries: bool = True) -> dict[str, Any]:
    """The keyword arguments of ``responses.create`` for ``request`` (streaming, stateless).

    ``summaries``: whether to ask for a reasoning summary (an organization OpenAI
    has not verified is refused one; the adapter then asks without).
    """
    body: dict[str, Any] = {"model": request.model}
    if request.system:
        body["instructions"] = request.system
    suffix = [{"role": "developer", "content": request.system_suffix}] if request.system_suffix else []
    messages = newest_images(images_for_model(request.messages, request.model), OPENAI_IMAGES)
    body["input"] = [*suffix, *_input_items(messages, request.model)]
    if request.tools:
        body["tools"] = [_wire_tool(tool) for tool in request.tools]
        if request.tool_choice != "auto":
            body["tool_choice"] = request.tool_choice
    reasoning = _reasoning(request, summaries)
    body["max_output_tokens"] = output_cap(request)
    if reasoning is not None:
        if reasoning:
            body["reasoning"] = reasoning
        body["include"] = ["reasoning.encrypted_content"]
    body["store"] = False
    context = request.server_context
    if context is not None and context.compact_trigger is not None:
        body["context_management"] = [{"type": COMPACTION, "compact_threshold": context.compact_trigger}]
    body["prompt_cache_key"] = _cache_key(request)
    body["stream"] = True
    return body


def _reasoning(request: Request, summaries: bool) -> dict[str, str] | None:
    """``reasoning`` for a model that takes it: the effort, and a summary unless thinking is off."""
    if not openai_reasoning_model(request.model):
        return None
    effort = reasoning_effort(request)
    summary = {"summary": "auto"} if summaries and request.thinking != "disabled" else {}
    return {"effort": effort, **summary} if effort is not None else summary


def _cache_key(request: Request) -> str:
    """A key naming the stable prefix (model, instructions, tools): same prefix, same cache."""
    tools = [[t.name, t.description, t.input_schema] for t in request.tools]
    prefix = json.dumps([request.model, request.system, tools], sort_keys=True, separators=(",", ":"))
    return "pc-" + hashlib.sha256(prefix.encode("utf-8")).hexdigest()[:32]


def _wire_tool(tool: ToolSpec) -> dict[str, Any]:
    """A function tool; ``strict: false`` because the service would otherwise demand strict schemas."""
    return {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": dict(tool.input_schema),
        "strict": False,
    }


def _input_items(messages: Sequence[Message], model: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "tool":
            items.append(_call_output(message))
        elif message.role == "assistant":
            items.extend(_assistant_items(message, model))
        elif message.images:
            text = [{"type": "input_text", "text": message.text}] if message.text else []
            items.append({"role": "user", "content": text + [_input_image(image) for image in message.images]})
        else:
            items.append({"role": "user", "content": message.text})
    return items


def _input_image(image: Image) -> dict[str, Any]:
    return {"type": "input_image", "image_url": data_url(image), "detail": "auto"}


def _call_output(message: Message) -> dict[str, Any]:
    result = message.tool_result
    if result is None:
        raise ValueError("a tool message needs a tool_result")
    content = result.content
    if result.is_error and not content.lstrip().lower().startswith("error"):
        content = f"Error: {content}"
    if result.images:
        text = [{"type": "input_text", "text": content}] if content else []
        output: Any = text + [_input_image(image) for image in result.images]
        return {"type": "function_call_output", "call_id": result.call_id, "output": output}
    return {"type": "function_call_output", "call_id": result.call_id, "output": content}


def _assistant_items(message: Message, model: str) -> list[dict[str, Any]]:
    """The turn's compaction item first (the state a server-side compaction carried), then its reasoning items zipped
    with its output items, each reasoning item before an output item."""
    items: list[dict[str, Any]] = _compaction_item(message.compaction)
    outputs: list[dict[str, Any]] = []
    if message.text:
        outputs.append({"role": "assistant", "content": message.text})
    for call in message.tool_calls:
        outputs.append({"type": "function_call", "call_id": call.id, "name": call.name, "arguments": call.arguments or "{}"})
    reasoning = [item for item in (_reasoning_item(part, model) for part in message.thinking) if item is not None]
    for index, output in enumerate(outputs):
        if index < len(reasoning):
            items.append(reasoning[index])
        items.append(output)
    return items


def _compaction_item(compaction: Compaction | None) -> list[dict[str, Any]]:
    """The compaction item to send back: its type and encrypted content as received (no ``id``: ``store`` is false)."""
    if compaction is None or compaction.provider != PROVIDER or not compaction.opaque:
        return []
    try:
        item = json.loads(compaction.opaque)
    except json.JSONDecodeError:
        return []
    if not isinstance(item, dict) or not isinstance(item.get("encrypted_content"), str):
        return []
    return [{"type": COMPACTION, "encrypted_content": item["encrypted_content"]}]


def _reasoning_item(part: Thinking, model: str) -> dict[str, Any] | None:
    """The reasoning item to send back for ``part``; None for another provider's or model's part, or an unreadable one.

    Encrypted reasoning can only be read by the model that wrote it: after a
    model switch the earlier turns' reasoning is left out rather than refused.
    """
    if part.provider != PROVIDER or part.kind != REASONING or not part.opaque:
        return None
    try:
        item = json.loads(part.opaque)
    except json.JSONDecodeError:
        return None
    if not isinstance(item, dict) or not isinstance(item.get("encrypted_content"), str):
        return None
    if item.get("model", model) != model:
        return None
    summary = item.get("summary")
    return {"type": REASONING, "summary": summary if isinstance(summary, list) else [], "encrypted_content": item["encrypted_content"]}


def response_as_events(response: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A whole (non-streamed) response as the stream events that would have carried it."""
    events: list[dict[str, Any]] = []
    for index, item in enumerate(response.get("output") or ()):
        events.append({"type": "response.output_item.added", "output_index": index, "item": item})
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    terminal = "response.incomplete" if response.get("status") == "incomplete" else "response.completed"
    events.append({"type": terminal, "response": dict(response)})
    return events


@dataclass(eq=False)
class _PendingCall:
    call_id: str
    name: str
    arguments: str = ""
    done: bool = False


class ResponsesAssembler:
    """Turns parsed Responses stream events into stream events and one final message."""

    def __init__(self, model: str = "") -> None:
        self._model = model
        self._text: list[str] = []
        self._texted: set[str] = set()
        self._calls: dict[str, _PendingCall] = {}
        self._thinking: list[Thinking] = []
        self._summary_open: dict[str, int] = {}
        self._terminal: Mapping[str, Any] | None = None
        self._compaction: Compaction | None = None

    def feed(self, event: Mapping[str, Any]) -> list[StreamEvent]:
        kind = event.get("type")
        if kind == "error":
            raise error_from_body(None, {"code": event.get("code"), "message": event.get("message"), "type": event.get("code")})
        if kind in ("response.completed", "response.incomplete", "response.failed"):
            return self._finish_response(event)
        if kind in ("response.output_text.delta", "response.refusal.delta"):
            return self._text_delta(event)
        if kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            return self._thinking_delta(event)
        if kind == "response.function_call_arguments.delta":
            call = self._calls.get(str(event.get("item_id")))
            if call is not None and isinstance(event.get("delta"), str) and event["delta"]:
                call.arguments += event["delta"]
                return [ToolArgsChunk(self._order(call), call.call_id, event["delta"])]
            return []
        item = event.get("item")
        if not isinstance(item, Mapping):
            return []
        if kind == "response.output_item.added":
            return self._item_added(item)
        if kind == "response.output_item.done":
            return self._item_done(item)
        return []

    def _finish_response(self, event: Mapping[str, Any]) -> list[StreamEvent]:
        response = event.get("response")
        response = response if isinstance(response, Mapping) else {}
        if event.get("type") == "response.failed":
            error = response.get("error")
            raise error_from_body(None, error if isinstance(error, Mapping) else {"message": "the response failed"})
        self._terminal = response
        return []

    def _text_delta(self, event: Mapping[str, Any]) -> list[StreamEvent]:
        delta = event.get("delta")
        if not isinstance(delta, str) or not delta:
            return []
        item_id = str(event.get("item_id"))
        if self._texted and item_id not in self._texted:
            delta = "\n\n" + delta
        self._texted.add(item_id)
        self._text.append(delta)
        return [TextChunk(delta)]

    def _thinking_delta(self, event: Mapping[str, Any]) -> list[StreamEvent]:
        delta = event.get("delta")
        if not isinstance(delta, str) or not delta:
            return []
        key = str(event.get("item_id"))
        part = event.get("summary_index", 0)
        if key in self._summary_open and self._summary_open[key] != part:
            delta = "\n\n" + delta
        self._summary_open[key] = part if isinstance(part, int) else 0
        return [ThinkingChunk(delta)]

    def _item_added(self, item: Mapping[str, Any]) -> list[StreamEvent]:
        if item.get("type") != "function_call":
            return []
        call = self._call_for(item)
        return [ToolCallStart(index=self._order(call), id=call.call_id, name=call.name)]

    def _order(self, call: _PendingCall) -> int:
        return list(self._calls.values()).index(call)

    def _call_for(self, item: Mapping[str, Any]) -> _PendingCall:
        key = str(item.get("id") or item.get("call_id"))
        if key not in self._calls:
            self._calls[key] = _PendingCall(call_id=str(item.get("call_id") or ""), name=str(item.get("name") or ""))
        return self._calls[key]

    def _item_done(self, item: Mapping[str, Any]) -> list[StreamEvent]:
        kind = item.get("type")
        if kind == "function_call":
            events = [] if str(item.get("id") or item.get("call_id")) in self._calls else self._item_added(item)
            call = self._call_for(item)
            if isinstance(item.get("arguments"), str):
                events += self._rest_of_arguments(call, item["arguments"])
                call.arguments = item["arguments"]
            call.done = item.get("status") != "incomplete"
            return events
        if kind == REASONING:
            self._thinking.append(_thinking_part(item, self._model))
        elif kind == COMPACTION and isinstance(item.get("encrypted_content"), str):
            self._compaction = Compaction(PROVIDER, opaque=json.dumps(dict(item), ensure_ascii=False))
        elif kind == "message" and str(item.get("id")) not in self._texted:
            text = "".join(str(part.get("text") or part.get("refusal") or "") for part in item.get("content") or () if isinstance(part, Mapping))
            if text:
                text = "\n\n" + text if self._texted else text
                self._texted.add(str(item.get("id")))
                self._text.append(text)
                return [TextChunk(text)]
        return []

    def _rest_of_arguments(self, call: _PendingCall, whole: str) -> list[StreamEvent]:
        """The arguments the deltas did not carry (all of them when the server sent none), as one last piece."""
        if whole.startswith(call.arguments) and len(whole) > len(call.arguments):
            return [ToolArgsChunk(self._order(call), call.call_id, whole[len(call.arguments) :])]
        return []

    def finish(self) -> list[StreamEvent]:
        """The ``Completed`` event; ``StreamCut`` when the response never completed."""
        if self._terminal is None:
            raise StreamCut("OpenAI stream ended before completion (no response.completed)")
        calls = [ToolCall(call.call_id, call.name, call.arguments or "{}") for call in self._calls.values() if call.done]
        if any(not call.id or not call.name for call in calls):
            raise StreamCut("OpenAI stream completed a function call without a call_id or name")
        details = self._terminal.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, Mapping) else None
        stop = "tool_use" if calls else _INCOMPLETE_TO_STOP.get(str(reason), "end_turn")
        usage = self._terminal.get("usage")
        message = Message.assistant("".join(self._text), calls, self._thinking, compaction=self._compaction)
        server = ServerWork() if self._compaction is not None else None
        return [Completed(message=message, usage=_usage_from(usage if isinstance(usage, Mapping) else {}), stop_reason=stop, server=server)]


def _thinking_part(item: Mapping[str, Any], model: str) -> Thinking:
    """A reasoning item as a ``Thinking`` part: its summary to read, the item itself (and the model that wrote it) to send back."""
    summary = [part for part in item.get("summary") or () if isinstance(part, Mapping)]
    text = "\n\n".join(str(part.get("text") or "") for part in summary if part.get("text"))
    kept = {key: item[key] for key in ("type", "id", "summary", "encrypted_content") if key in item}
    if model:
        kept["model"] = model
    return Thinking(PROVIDER, REASONING, text, json.dumps(kept, ensure_ascii=False, separators=(",", ":")))


def _usage_from(payload: Mapping[str, Any]) -> Usage:
    """Responses usage -> ``Usage``: cache reads and writes split out of the input, reasoning kept inside the output."""
    prompt = _int(payload.get("input_tokens"))
    details = payload.get("input_tokens_details")
    details = details if isinstance(details, Mapping) else {}
    cached = min(_int(details.get("cached_tokens")), prompt)
    written = min(_int(details.get("cache_write_tokens")), prompt - cached)
    output = payload.get("output_tokens_details")
    reasoning = _int(output.get("reasoning_tokens")) if isinstance(output, Mapping) else 0
    return Usage(
        input_tokens=prompt - cached - written,
        output_tokens=_int(payload.get("output_tokens")),
        cache_read_tokens=cached,
        cache_write_tokens=written,
        reasoning_tokens=reasoning,
    )


def _int(value: Any) -> int:
    return value if isinstance(value, int) and value >= 0 else 0
