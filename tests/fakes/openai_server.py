"""A wire-level fake of OpenAI Chat Completions (and the Responses API) on 127.0.0.1.

It speaks what the SDK expects, byte for byte in shape: ``POST
/v1/chat/completions``, the real error JSON (``{"error": {"message", "type",
"param", "code"}}``), and streamed ``chat.completion.chunk`` objects ending in
a usage chunk (with ``include_usage``) and ``data: [DONE]``. Requests are
validated as strictly as the service does (see ``openai_checks.py``); every
body is recorded, valid or not. Script steps (``tests/fakes/script.py``) pick
the answer to each valid request, including faults: HTTP errors, an error
object inside an open stream, and a connection cut mid tool call.
``POST /v1/responses`` is served from the same script by
``responses_stream.py`` and validated by ``responses_checks.py``; ``paths``
records which endpoint each request went to. Server-side compaction
(``context_management``) is ``responses_compaction.py``'s: the window holds the
prompt as rendered (from the latest compaction item on), and ``applied`` records
what the model saw of each answered Responses request.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Mapping

from tests.fakes.http import Exchange, FakeHTTPServer
from tests.fakes.openai_checks import Invalid, check_body
from tests.fakes.responses_checks import check_responses_body
from tests.fakes.responses_compaction import Compacted, Compactor, Summarize, default_summary
from tests.fakes.responses_stream import ResponsesStreamer
from tests.fakes.script import (
    Call,
    CutStream,
    HttpError,
    Reply,
    Script,
    ScriptCursor,
    StallStream,
    Step,
    StreamError,
    approx_tokens,
    split_text,
)

CHAT_PATH = "/v1/chat/completions"
RESPONSES_PATH = "/v1/responses"
NewId = Callable[[], str]
_NEUTRAL_TO_FINISH = {"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length", "refusal": "content_filter"}
_STREAM_ERROR_TYPES = {"overloaded_error": "server_error", "api_error": "server_error"}
_HTTP_ERRORS: dict[str, tuple[str, str | None, str]] = {
    "rate_limit": ("requests", "rate_limit_exceeded", "Rate limit reached for requests. Please try again in 1s."),
    "insufficient_quota": (
        "insufficient_quota",
        "insufficient_quota",
        "You exceeded your current quota, please check your plan and billing details.",
    ),
    "overloaded": ("server_error", None, "The engine is currently overloaded, please try again later."),
    "server": ("server_error", None, "The server had an error while processing your request. Sorry about that!"),
    "auth": ("invalid_request_error", "invalid_api_key", "Incorrect API key provided."),
    "invalid_request": ("invalid_request_error", None, "Invalid request."),
}


def error_payload(message: str, type_: str = "invalid_request_error", param: str | None = None, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


class FakeOpenAIServer:
    """Serves a ``Script`` as OpenAI would; ``url`` ends in ``/v1`` (the SDK's ``base_url``)."""

    def __init__(
        self,
        script: Script,
        *,
        context_window: int | None = None,
        require_key: bool = True,
        usage_chunk: bool = True,
        ignores_stream: bool = False,
        verified: bool = True,
        refuse_context_management: bool = False,
        summarize: Summarize = default_summary,
    ) -> None:
        """``refuse_context_management``: a gateway (or an older API) that does not know ``context_management``;
        ``usage_chunk=False`` plays a compatible server that ignores ``stream_options`` (no usage at all);
        ``ignores_stream=True`` one that answers a whole ``chat.completion`` even to ``stream: true``;
        ``verified=False`` an organization OpenAI refuses reasoning summaries; ``summarize``: the state a
        server-side compaction keeps, as a summary of the rendered request (``responses_compaction``)."""
        self.verified = verified
        self.refuse_context_management = refuse_context_management
        self.context_window = context_window
        self.require_key = require_key
        self.usage_chunk = usage_chunk
        self.ignores_stream = ignores_stream
        self.requests: list[dict[str, Any]] = []
        self.raw_bodies: list[bytes] = []
        self.headers: list[dict[str, str]] = []
        self.rejections: list[tuple[int, str]] = []
        self.paths: list[str] = []
        self.probes: list[str] = []
        self.issued: dict[str, str] = {}
        self.compactor = Compactor(summarize)
        self.applied: list[Compacted] = []
        """What the model saw of each answered Responses request, and the compaction made (``responses_compaction``)."""
        self.stalled = threading.Event()
        self._cursor = ScriptCursor(script)
        self._lock = threading.Lock()
        self._serial = 0
        self._call_serial = 0
        self._http = FakeHTTPServer(self._handle)

    @property
    def accepted(self) -> list[dict[str, Any]]:
        """The requests the script answered (valid, within the window), in order."""
        return self._cursor.requests

    @property
    def url(self) -> str:
        return f"{self._http.url}/v1"

    def start(self) -> FakeOpenAIServer:
        self._http.start()
        return self

    def stop(self) -> None:
        self._http.stop()

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _handle(self, exchange: Exchange) -> None:
        if exchange.method == "GET" or exchange.path.startswith("/api/"):
            self.probes.append(exchange.path)  # a window probe (llm/probe.py): OpenAI answers 404, and it is no model request
            exchange.send_json(404, error_payload(f"Invalid URL ({exchange.method} {exchange.path})"))
            return
        with self._lock:
            step, body = self._admit(exchange)
            if step is None:
                return
            self._serial += 1
            serial = self._serial
            compacted = self._compact(exchange, step, body, serial)
        if isinstance(step, HttpError):
            self._send_http_error(exchange, step, body)
        elif exchange.path.split("?")[0] == RESPONSES_PATH:
            self._respond(exchange, step, body, serial, compacted)
        elif isinstance(step, StreamError):
            _Streamer(exchange, body, serial, self._next_call_id, self.usage_chunk).error_after(step)
        elif isinstance(step, CutStream):
            _Streamer(exchange, body, serial, self._next_call_id, self.usage_chunk).cut(step)
        elif body.get("stream") is True and not self.ignores_stream:
            _Streamer(exchange, body, serial, self._next_call_id, self.usage_chunk).reply(step)
        else:
            exchange.send_json(200, _completion(step, body, serial, self._next_call_id))

    def _compact(self, exchange: Exchange, step: Step, body: Mapping[str, Any], serial: int) -> Compacted | None:
        """A Responses request's rendering and compaction (the script's ``input_tokens`` stand for the prompt's size)."""
        if isinstance(step, HttpError) or exchange.path.split("?")[0] != RESPONSES_PATH:
            return None
        scripted = step.input_tokens if isinstance(step, Reply) else None
        compacted = self.compactor.apply(body, serial, scripted)
        if compacted.item is not None:
            self.issued[compacted.item["encrypted_content"]] = str(body.get("model"))
        self.applied.append(compacted)
        return compacted

    def _respond(self, exchange: Exchange, step: Step, body: Mapping[str, Any], serial: int, compacted: Compacted | None) -> None:
        streamer = ResponsesStreamer(exchange, body, serial, self._issue, compacted)
        if isinstance(step, StreamError):
            streamer.error_after(step)
        elif isinstance(step, CutStream):
            streamer.cut(step)
        elif isinstance(step, StallStream):
            streamer.stall(step, self.stalled)
        elif isinstance(step, Reply):
            streamer.reply(step)

    def _issue(self, encrypted: str, model: str) -> None:
        with self._lock:
            self.issued[encrypted] = model

    def _admit(self, exchange: Exchange) -> tuple[Step | None, dict[str, Any]]:
        """Record and validate the request; answer the invalid ones here. Returns the script step or None."""
        self.raw_bodies.append(exchange.raw_body)
        self.headers.append(dict(exchange.headers))
        try:
            body = exchange.json()
        except (ValueError, UnicodeDecodeError):
            body = None
        unparsed = {"_unparsed": exchange.raw_body.decode("utf-8", "replace")}
        self.requests.append(body if isinstance(body, dict) else unparsed)
        path = exchange.path.split("?")[0]
        self.paths.append(path)
        if exchange.method != "POST" or path not in (CHAT_PATH, RESPONSES_PATH):
            return self._reject(exchange, 404, Invalid(f"Invalid URL ({exchange.method} {exchange.path})")), {}
        auth = exchange.headers.get("authorization", "")
        if self.require_key and (not auth.startswith("Bearer ") or not auth[7:].strip()):
            message = (
                "You didn't provide an API key. You need to provide your API key in an Authorization header "
                "using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
            )
            return self._reject(exchange, 401, Invalid(message, None, "invalid_api_key")), {}
        if body is None:
            return self._reject(exchange, 400, Invalid("We could not parse the JSON body of your request.")), {}
        problem = check_responses_body(body, self.issued, verified=self.verified) if path == RESPONSES_PATH else check_body(body)
        if problem is None and self.refuse_context_management and "context_management" in body:
            problem = Invalid("Unknown parameter: 'context_management'.", "context_management", "unknown_parameter")
        if problem is not None:
            return self._reject(exchange, 400, problem), body
        tokens = self.compactor.size(body) if path == RESPONSES_PATH else approx_tokens(body)
        if self.context_window is not None and tokens > self.context_window:  # the window holds the prompt as rendered
            message = (
                f"This model's maximum context length is {self.context_window} tokens. However, your messages "
                f"resulted in {tokens} tokens. Please reduce the length of the messages."
            )
            param = "input" if path == RESPONSES_PATH else "messages"
            return self._reject(exchange, 400, Invalid(message, param, "context_length_exceeded")), body
        return self._cursor.next_step(body), body

    def _reject(self, exchange: Exchange, status: int, problem: Invalid) -> None:
        self.rejections.append((status, problem.message))
        exchange.send_json(status, error_payload(problem.message, "invalid_request_error", problem.param, problem.code))

    def _send_http_error(self, exchange: Exchange, step: HttpError, body: Mapping[str, Any]) -> None:
        headers: dict[str, str] = {}
        if step.retry_after is not None:
            headers["retry-after"] = _number(step.retry_after)
        if step.kind == "context_length":
            window = self.context_window or 128_000
            message = step.message or (
                f"This model's maximum context length is {window} tokens. However, your messages resulted in "
                f"{max(approx_tokens(body), window + 1)} tokens. Please reduce the length of the messages."
            )
            payload = error_payload(message, "invalid_request_error", "messages", "context_length_exceeded")
        else:
            type_, code, default = _HTTP_ERRORS.get(step.kind, ("server_error", None, "Error."))
            payload = error_payload(step.message or default, type_, None, code)
        exchange.send_json(step.status, payload, headers)

    def _next_call_id(self) -> str:
        with self._lock:
            self._call_serial += 1
            return f"call_{self._call_serial}"


class _Streamer:
    """Writes one streamed answer as ``chat.completion.chunk`` server-sent events."""

    def __init__(self, exchange: Exchange, body: Mapping[str, Any], serial: int, new_id: NewId, usage: bool) -> None:
        self.exchange = exchange
        self.body = body
        self.serial = serial
        self.new_id = new_id
        options = body.get("stream_options") or {}
        self.include_usage = usage and bool(options.get("include_usage"))

    def reply(self, reply: Reply) -> None:
        self._open()
        for delta in _deltas(reply, self.new_id):
            self._chunk(delta)
        finish = _finish_reason(reply)
        self._chunk({}, finish)
        if self.include_usage:
            self._send(self._base(choices=[], usage=_usage(reply, self.body)))
        self.exchange.send_event(None, "[DONE]")
        self.exchange.end_stream()

    def error_after(self, step: StreamError) -> None:
        self._open()
        for delta in _deltas(step.reply, self.new_id)[: step.after_deltas]:
            self._chunk(delta)
        type_ = _STREAM_ERROR_TYPES.get(step.error_type, step.error_type)
        message = "The server had an error while processing your request. Sorry about that!"
        self._send({"error": {"message": message, "type": type_, "param": None, "code": None}})
        self.exchange.end_stream()

    def cut(self, step: CutStream) -> None:
        self._open()
        reply = step.reply
        for piece in split_text(reply.text, reply.text_chunks):
            self._chunk({"content": piece})
        for index, call in enumerate(reply.calls[: step.call_index + 1]):
            call_id = call.id or self.new_id()
            self._chunk({"tool_calls": [_call_head(index, call_id, call)]})
            if index < step.call_index:
                for fragment in split_text(call.arguments, call.chunks):
                    self._chunk({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]})
            elif not step.name_only:
                half = call.arguments[: max(1, len(call.arguments) // 2)]
                self._chunk({"tool_calls": [{"index": index, "function": {"arguments": half}}]})
        self.exchange.cut()

    def _open(self) -> None:
        self.exchange.start_stream()
        self._chunk({"role": "assistant", "content": "", "refusal": None})

    def _chunk(self, delta: Mapping[str, Any], finish_reason: str | None = None) -> None:
        choice = {"index": 0, "delta": dict(delta), "logprobs": None, "finish_reason": finish_reason}
        extra = {"usage": None} if self.include_usage else {}
        self._send(self._base(choices=[choice], **extra))

    def _base(self, **fields: Any) -> dict[str, Any]:
        head = {
            "id": f"chatcmpl-fake{self.serial}",
            "object": "chat.completion.chunk",
            "created": 1_700_000_000 + self.serial,
            "model": self.body.get("model"),
            "system_fingerprint": "fp_fake",
        }
        return {**head, **fields}

    def _send(self, payload: Mapping[str, Any]) -> None:
        self.exchange.send_event(None, payload)


def _deltas(reply: Reply, new_id: NewId) -> list[dict[str, Any]]:
    deltas: list[dict[str, Any]] = [{"content": piece} for piece in split_text(reply.text, reply.text_chunks)]
    for index, call in enumerate(reply.calls):
        deltas.append({"tool_calls": [_call_head(index, call.id or new_id(), call)]})
        for fragment in split_text(call.arguments, call.chunks):
            deltas.append({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]})
    return deltas


def _call_head(index: int, call_id: str, call: Call) -> dict[str, Any]:
    return {"index": index, "id": call_id, "type": "function", "function": {"name": call.name, "arguments": ""}}


def _finish_reason(reply: Reply) -> str:
    if reply.stop_reason:
        return _NEUTRAL_TO_FINISH.get(reply.stop_reason, reply.stop_reason)
    return "tool_calls" if reply.calls else "stop"


def _usage(reply: Reply, body: Mapping[str, Any]) -> dict[str, Any]:
    uncached = reply.input_tokens if reply.input_tokens is not None else approx_tokens(body)
    prompt = uncached + reply.cache_read_tokens + reply.cache_write_tokens
    return {
        "prompt_tokens": prompt,
        "completion_tokens": reply.output_tokens,
        "total_tokens": prompt + reply.output_tokens,
        "prompt_tokens_details": {"cached_tokens": reply.cache_read_tokens, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0},
    }


def _completion(step: Step, body: Mapping[str, Any], serial: int, new_id: NewId) -> dict[str, Any]:
    """A non-streamed ``chat.completion`` (for ``stream: false`` requests)."""
    reply = step if isinstance(step, Reply) else Reply(text="(unsupported step without stream)")
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None, "refusal": None}
    if reply.calls:
        message["tool_calls"] = [
            {
                "id": call.id or new_id(),
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call in reply.calls
        ]
    return {
        "id": f"chatcmpl-fake{serial}",
        "object": "chat.completion",
        "created": 1_700_000_000 + serial,
        "model": body.get("model"),
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": _finish_reason(reply)}],
        "usage": _usage(reply, body),
    }


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
