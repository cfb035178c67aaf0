"""Chat Completions wire format <-> the neutral conversation, without the SDK.

Pure translation, kept apart from ``openai.py`` so it can be read (and
tested) without a network or an SDK import: requests (``to_wire_request``),
stream chunks into neutral ``StreamEvent``s (``StreamAssembler``) and error
objects into the error tree (``error_from_body``), the same three parts as
``anthropic_wire.py``.

Invariants this module keeps:

* **Byte-stable requests.** ``to_wire_request`` depends only on the ``Request``:
  fixed key order, no clocks, no randomness. The stable system prompt is its
  own first message and the changing ``system_suffix`` a second one, so a
  server-side prefix cache keeps matching.
* **``tool_choice`` only with tools** (the service rejects it otherwise), and
  only when not "auto": the main loop's body never changes.
* **One ``tool`` message per ``ToolResult``**, in conversation order; an error
  result is prefixed ``"Error: "`` unless its text already starts with
  "error" (deterministic, so a replayed session re-sends the same bytes).
* **Images where Chat Completions takes them: user messages only.**
  ``images_for_model`` runs first (a no-vision model or bytes missing from the
  session get a text note). A user message with images has a content-part
  list (its text, then ``image_url`` parts holding ``data:`` URLs). A ``tool``
  message cannot carry an image (the service answers 400 "Image URLs are only
  allowed for messages with role 'user'"), so after the run of tool messages
  answering one assistant turn comes ONE user message: for each result with
  images, the text "Images returned by tool call <id> (<name>):" and its
  image parts. OpenAI-compatible local servers (Ollama, llama.cpp, vLLM) take
  the same shape. Messages without images keep their plain string content.
  A server that refuses images for a model the table does not know (a
  text-only local model) is asked again without them (``openai.py``); a
  request never holds more images than ``image_budget`` allows.
* **Nothing partial is ever completed.** ``StreamAssembler`` only hands out a
  ``Completed`` when the server sent a ``finish_reason`` *and* the SSE stream
  reached ``data: [DONE]``; anything else is ``StreamCut``, and the half-built
  tool calls are discarded with the assembler.
* **Stop reasons speak the neutral vocabulary** (``end_turn``, ``tool_use``,
  ``max_tokens``, ``refusal``), the same words the Anthropic adapter uses.
"""

from __future__ import annotations

import base64
import re
import uuid
from dataclasses import dataclass
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
from pseudoclaude.llm.image_budget import OPENAI_IMAGES, newest_images
from pseudoclaude.llm.images import Image
from pseudoclaude.llm.messages import Message, ToolCall, ToolSpec, Usage
from pseudoclaude.llm.models import openai_reasoning_model
from pseudoclaude.llm.openai_reasoning import output_cap, reasoning_effort
from pseudoclaude.llm.provider import (
    Completed,
    Request,
    StreamEvent,
    TextChunk,
    ToolCallStart,
    ToolArgsChunk,
)
from pseudoclaude.llm.providers import OPENAI
from pseudoclaude.llm.vision import images_for_model

_FINISH_TO_STOP = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}

_CONTEXT_OVERFLOW = re.compile(
    r"maximum context length|context length|context window|exceeds the available context"
    r"|prompt is too long|too many tokens|input is too long",
    re.IGNORECASE,
)
_CONTEXT_CODES = frozenset({"context_length_exceeded", "exceed_context_size_error", "string_above_max_length"})
_QUOTA_CODES = frozenset({"insufficient_quota", "billing_hard_limit_reached"})
_RATE_CODES = frozenset({"rate_limit_exceeded", "requests", "tokens", "rate_limit_error"})
_OVERLOAD_CODES = frozenset({"overloaded", "overloaded_error", "server_overloaded", "engine_overloaded"})


def to_wire_request(request: Request, *, official: bool = False) -> dict[str, Any]:
    """The keyword arguments of ``chat.completions.create`` for ``request`` (streaming).

    The output cap is ``max_completion_tokens`` for OpenAI itself and for an
    OpenAI reasoning model wherever it is served (it refuses ``max_tokens``,
    and the cap counts its reasoning: ``openai_reasoning.output_cap``), and
    ``max_tokens`` for other models at OpenAI-compatible servers (vLLM,
    llama.cpp, Ollama), which do not all know the newer name. A reasoning
    model gets the effort as ``reasoning_effort``; no sampling parameter is
    ever sent (reasoning models refuse a ``temperature`` other than 1).
    """
    messages = _wire_messages(newest_images(images_for_model(request.messages, request.model), OPENAI_IMAGES))
    body: dict[str, Any] = {"model": request.model, "messages": [*_wire_system(request), *messages]}
    if request.tools:
        body["tools"] = _wire_tools(request.tools)
        if request.tool_choice != "auto":
            body["tool_choice"] = request.tool_choice
    reasoning = openai_reasoning_model(request.model)
    body["max_completion_tokens" if official or reasoning else "max_tokens"] = output_cap(request)
    effort = reasoning_effort(request)
    if effort is not None:
        body["reasoning_effort"] = effort
    body["stream"] = True
    body["stream_options"] = {"include_usage": True}
    return body


def _wire_system(request: Request) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if request.system:
        out.append({"role": "system", "content": request.system})
    if request.system_suffix:
        out.append({"role": "system", "content": request.system_suffix})
    return out


def _wire_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """One wire message per neutral message (one ``tool`` message per result), and after a run of
    tool results that returned images, one user message showing them (the module docstring)."""
    out: list[dict[str, Any]] = []
    names: dict[str, str] = {}
    shown: list[dict[str, Any]] = []
    for message in messages:
        if message.role != "tool" and shown:
            out.append({"role": "user", "content": shown})
            shown = []
        if message.role == "assistant":
            names = {call.id: call.name for call in message.tool_calls}
        result = message.tool_result
        if result is not None and result.images:
            name = names.get(result.call_id, "tool")
            shown.append({"type": "text", "text": f"Images returned by tool call {result.call_id} ({name}):"})
            shown.extend(image_part(image) for image in result.images)
        out.append(_wire_message(message))
    if shown:
        out.append({"role": "user", "content": shown})
    return out


_REFUSES_IMAGES = re.compile(r"image|vision|multimodal|mmproj|modalit", re.IGNORECASE)


def refuses_images(error: ProviderError, messages: Sequence[Message]) -> bool:
    """Whether ``error`` is a server refusing the images ``messages`` carry (a text-only model), not another fault."""
    if isinstance(error, PromptTooLong) or error.status not in (400, 422, 500):
        return False
    return any(image.available for message in messages for image in message.all_images()) and bool(_REFUSES_IMAGES.search(error.message))


def data_url(image: Image) -> str:
    """``image`` as a ``data:`` URL (the same bytes give the same text)."""
    return f"data:{image.media_type};base64,{base64.b64encode(image.data).decode('ascii')}"


def image_part(image: Image) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": data_url(image)}}


def _wire_message(message: Message) -> dict[str, Any]:
    if message.role == "tool":
        result = message.tool_result
        if result is None:
            raise ValueError("a tool message needs a tool_result")
        content = result.content
        if result.is_error and not content.lstrip().lower().startswith("error"):
            content = f"Error: {content}"
        return {"role": "tool", "tool_call_id": result.call_id, "content": content}
    if message.role == "assistant" and message.tool_calls:
        return {
            "role": "assistant",
            "content": message.text or None,
            "tool_calls": [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments or "{}"},
                }
                for call in message.tool_calls
            ],
        }
    if message.role == "user" and message.images:
        text = [{"type": "text", "text": message.text}] if message.text else []
        return {"role": "user", "content": text + [image_part(image) for image in message.images]}
    return {"role": message.role, "content": message.text}


def _wire_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": dict(tool.input_schema),
            },
        }
        for tool in tools
    ]


def _stop_reason(finish_reason: str) -> str:
    return _FINISH_TO_STOP.get(finish_reason, finish_reason)


def _usage_from(payload: Mapping[str, Any]) -> Usage:
    """OpenAI usage -> ``Usage``; ``prompt_tokens`` includes the cached ones, which are split out."""
    prompt = _int(payload.get("prompt_tokens"))
    details = payload.get("prompt_tokens_details")
    cached = _int(details.get("cached_tokens")) if isinstance(details, Mapping) else 0
    cached = min(cached, prompt)
    return Usage(
        input_tokens=prompt - cached,
        output_tokens=_int(payload.get("completion_tokens")),
        cache_read_tokens=cached,
    )


def error_from_body(
    status: int | None,
    error: Mapping[str, Any] | None,
    *,
    retry_after: float | None = None,
) -> ProviderError:
    """The normalized error for an HTTP status (None: an error inside an open stream) and its error object.

    The server's message is never used for 401: OpenAI echoes part of the key there.
    """
    error = error or {}
    code = str(error.get("code") or "")
    kind = str(error.get("type") or "")
    message = str(error.get("message") or "unknown error")
    tags = {code, kind}
    if tags & _CONTEXT_CODES or (status in (None, 400) and _CONTEXT_OVERFLOW.search(message)):
        return PromptTooLong(f"prompt too long: {message}", status=status)
    if status == 401:
        detail = f" ({code})" if code else ""
        return AuthError(f"OpenAI rejected the API key{detail} (401): set {OPENAI.key_variable} to a valid key", status=401)
    if status == 403:
        return AuthError(f"OpenAI refused access (403): {message}; check {OPENAI.key_variable} and the model", status=403)
    if tags & _QUOTA_CODES:
        reason = code or kind
        return BadRequest(f"OpenAI quota exhausted ({reason}): {message}; check the plan and billing", status=status)
    if status is not None and status != 503:
        return error_for_status(status, f"OpenAI error {status}: {message}", retry_after)
    if status == 503 or tags & _OVERLOAD_CODES:
        return Overloaded(f"OpenAI overloaded: {message}", status=status, retry_after=retry_after)
    if tags & _RATE_CODES:
        return RateLimited(f"OpenAI rate limit (in stream): {message}", retry_after=retry_after)
    if kind == "invalid_request_error":
        return BadRequest(f"OpenAI rejected the request (in stream): {message}")
    return ServerError(f"OpenAI stream error ({kind or code or 'unknown'}): {message}")


@dataclass(eq=False)
class _PendingCall:
    """A tool call still streaming; compared by identity (two calls may look alike)."""

    id: str = ""
    name: str = ""
    arguments: str = ""
    started: bool = False


def completion_as_chunk(completion: Mapping[str, Any]) -> dict[str, Any]:
    """A whole ``chat.completion`` as one stream chunk, for servers that ignore ``stream: true``."""
    choices = []
    for choice in completion.get("choices") or []:
        message = choice.get("message") or {}
        calls = [{**call, "index": index} for index, call in enumerate(message.get("tool_calls") or [])]
        delta = {"role": "assistant", "content": message.get("content") or "", "tool_calls": calls or None}
        choices.append({"index": choice.get("index", 0), "delta": delta, "finish_reason": choice.get("finish_reason") or "stop"})
    return {"choices": choices, "usage": completion.get("usage")}


class StreamAssembler:
    """Turns parsed ``chat.completion.chunk`` objects into stream events and one final message."""

    def __init__(self) -> None:
        self._text: list[str] = []
        self._calls: dict[int, _PendingCall] = {}
        self._finish_reason: str | None = None
        self._usage = Usage()

    def feed(self, chunk: Mapping[str, Any]) -> list[StreamEvent]:
        error = chunk.get("error")
        if error is not None:
            raise error_from_body(None, error if isinstance(error, Mapping) else {"message": str(error)})
        usage = chunk.get("usage")
        if isinstance(usage, Mapping):
            self._usage = _usage_from(usage)
        events: list[StreamEvent] = []
        for choice in chunk.get("choices") or ():
            if not isinstance(choice, Mapping) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            content = delta.get("content")
            if isinstance(content, str) and content:
                self._text.append(content)
                events.append(TextChunk(content))
            for position, fragment in enumerate(delta.get("tool_calls") or ()):
                events.extend(self._feed_call(position, fragment))
            if choice.get("finish_reason"):
                self._finish_reason = str(choice["finish_reason"])
        return events

    def _feed_call(self, position: int, fragment: Any) -> list[StreamEvent]:
        if not isinstance(fragment, Mapping):
            return []
        index = fragment.get("index")
        call = self._calls.setdefault(index if isinstance(index, int) else position, _PendingCall())
        function = fragment.get("function") or {}
        if fragment.get("id") and not call.id:
            call.id = str(fragment["id"])
        if function.get("name") and not call.name:
            call.name = str(function["name"])
        piece = function["arguments"] if isinstance(function.get("arguments"), str) else ""
        call.arguments += piece
        if call.id and call.name and not call.started:
            return self._start(call)
        return [ToolArgsChunk(self._order(call), call.id, piece)] if call.started and piece else []

    def _start(self, call: _PendingCall) -> list[StreamEvent]:
        """A call's ``ToolCallStart``, then the arguments that streamed before its id and name were known."""
        call.started = True
        start: list[StreamEvent] = [ToolCallStart(index=self._order(call), id=call.id, name=call.name)]
        return start + ([ToolArgsChunk(self._order(call), call.id, call.arguments)] if call.arguments else [])

    def _order(self, call: _PendingCall) -> int:
        return list(self._calls.values()).index(call)

    def finish(self, *, done: bool) -> list[StreamEvent]:
        """The closing events: late ``ToolCallStart``s and ``Completed``; ``StreamCut`` if incomplete."""
        if self._finish_reason is None or not done:
            missing = "finish_reason" if self._finish_reason is None else "data: [DONE]"
            raise StreamCut(f"OpenAI stream ended before completion (no {missing})")
        events: list[StreamEvent] = []
        calls: list[ToolCall] = []
        for call in self._calls.values():
            if not call.name:
                raise StreamCut("OpenAI stream completed a tool call without a name")
            if not call.id:
                call.id = f"call_{uuid.uuid4().hex[:24]}"
            if not call.started:
                events.extend(self._start(call))
            calls.append(ToolCall(id=call.id, name=call.name, arguments=call.arguments or "{}"))
        message = Message.assistant("".join(self._text), calls)
        events.append(Completed(message=message, usage=self._usage, stop_reason=_stop_reason(self._finish_reason)))
        return events


def _int(value: Any) -> int:
    return value if isinstance(value, int) and value >= 0 else 0
