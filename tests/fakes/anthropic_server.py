"""A wire-level fake of the Anthropic Messages API on 127.0.0.1.

It speaks what the real service speaks: ``POST /v1/messages`` with
``stream: true`` answered by the exact server-sent-event sequence
(``message_start``, ``ping``, ``content_block_start/delta/stop``,
``message_delta``, ``message_stop``), errors in the real JSON shape, and it
validates every request as strictly as the service does
(``anthropic_validation``). A rejected request consumes no script step, so a
scenario reads as the sequence of requests the agent *should* have made.

Faults come from the shared script format: ``HttpError`` (a refused request),
``StreamError`` (an ``error`` event inside an open stream), ``CutStream`` (the
connection drops inside a tool call's JSON, or right after its start), ``StallStream``
(some deltas, then only pings: the client is interrupted mid-stream; ``stalled`` is set).

Records: ``requests`` (every parsed body, rejected ones too), ``raw_bodies``
(the exact bytes, for byte-stability checks), ``headers``, and ``rejections``
(every 400 it answered, prompt-too-long included, and the 413 of a body over 32 MB),
and ``arrivals`` (``time.monotonic()`` as each ``POST /v1/messages`` was read: the
benchmarks' first-request latency; the clock is the machine's, shared by processes).

Cache reads are never reported beyond what the real service could serve: the
prompt cache is simulated from the accepted requests (``prompt_cache.py``:
prefixes written at the cache markers; the message blocks cached under the
request's ``tool_choice``), and a scripted ``cache_read_tokens`` is capped to
the prefix that matches an earlier request. With ``report_cache`` the server
reports the simulated reads itself (``input_tokens`` is then the uncached
rest, as the service bills it). Authentication accepts
``x-api-key`` or ``Authorization: Bearer`` (the SDK 2.x sends the latter for a
key too) and refuses a request with neither, or with an empty one. Playing a
gateway (LiteLLM, a corporate proxy): ``credentials`` lists the only keys or
tokens it takes (401 otherwise, before any script step), ``required_headers``
the headers every request must carry with these values (403 otherwise).
"""

from __future__ import annotations

import itertools
import threading
import time
from dataclasses import replace
from typing import Any, Callable, Mapping, Sequence

from tests.fakes.anthropic_context_rules import Applied, apply, betas, default_summary, edit_problems, strategies_of
from tests.fakes.anthropic_models import CatalogueEntry, ModelCatalogue
from tests.fakes.anthropic_thinking_rules import redacted_data, signature, thinking_type
from tests.fakes.anthropic_validation import first_problem
from tests.fakes.http import Exchange, FakeHTTPServer
from tests.fakes.image_checks import ANTHROPIC_MAX_REQUEST_BYTES
from tests.fakes.prompt_cache import PromptCache
from tests.fakes.script import (
    CutStream,
    HttpError,
    Reply,
    StallStream,
    Script,
    ScriptCursor,
    StreamError,
    approx_tokens,
    split_text,
)

Event = tuple[str, dict[str, Any]]

DEFAULT_MESSAGES = {
    "rate_limit_error": "This request would exceed your organization's rate limit. Please try again later.",
    "overloaded_error": "Overloaded",
    "api_error": "Internal server error",
    "authentication_error": "invalid x-api-key",
    "permission_error": "Your API key does not have permission to use the specified resource.",
    "invalid_request_error": "Invalid request",
    "not_found_error": "Not found",
}

ERROR_TYPES = {
    "rate_limit": "rate_limit_error",
    "overloaded": "overloaded_error",
    "server": "api_error",
    "auth": "authentication_error",
    "invalid_request": "invalid_request_error",
    "context_length": "invalid_request_error",
    "permission": "permission_error",
    "not_found": "not_found_error",
}


def error_body(error_type: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": error_type, "message": message}, "request_id": "req_fake"}


def prompt_too_long_message(tokens: int, maximum: int) -> str:
    return f"prompt is too long: {tokens} tokens > {maximum} maximum"


class FakeAnthropicServer:
    """Serve ``script`` as the Anthropic API; ``url`` is the base URL for the SDK."""

    def __init__(
        self,
        script: Script,
        *,
        context_window: int | None = None,
        report_cache: bool = False,
        credentials: frozenset[str] | None = None,
        required_headers: Mapping[str, str] | None = None,
        models: Sequence[CatalogueEntry] | None = None,
        models_delay_s: float = 0.0,
        refuse_context_management: bool = False,
        summarize: Callable[[Mapping[str, Any]], str] = default_summary,
    ) -> None:
        self.refuse_context_management = refuse_context_management
        """Play a gateway (or a model) that does not take the context-management betas: a 400 naming the header."""
        self.summarize = summarize
        """The compaction's summary of a request body (``anthropic_context_rules``)."""
        self.applied: list[Applied] = []
        """What the server did to each answered request (edits applied, the compaction made)."""
        self.models = ModelCatalogue(models, delay_s=models_delay_s) if models is not None else None
        """What ``GET /v1/models`` lists and ``GET /v1/models/{id}`` describes (``anthropic_models``: ids, or
        ``model_entry`` dicts with a window and capabilities); authenticated as messages are, and ``anthropic-version``
        is required, as the real service does; None: both are 404."""
        self.credentials = credentials
        self.required_headers = dict(required_headers or {})
        self.cursor = ScriptCursor(script)
        self.prompt_cache = PromptCache(tokens=lambda text: approx_tokens(text))
        self.report_cache = report_cache
        self.cache_reads: list[int] = []
        self.context_window = context_window
        self.requests: list[dict[str, Any]] = []
        self.raw_bodies: list[bytes] = []
        self.headers: list[dict[str, str]] = []
        self.rejections: list[tuple[int, str]] = []
        self.arrivals: list[float] = []
        self.stalled = threading.Event()
        self._ids = itertools.count(1)
        self._messages = itertools.count(1)
        self._lock = threading.Lock()
        self._http = FakeHTTPServer(self._handle)

    @property
    def url(self) -> str:
        return self._http.url

    def start(self) -> FakeAnthropicServer:
        self._http.start()
        return self

    def stop(self) -> None:
        self._http.stop()

    def __enter__(self) -> FakeAnthropicServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _handle(self, ex: Exchange) -> None:
        if ex.method == "GET" and self.models is not None and ex.path.startswith("/v1/models"):
            self._models(ex, self.models)
            return
        if ex.method != "POST" or ex.path.split("?")[0] != "/v1/messages":
            ex.send_json(404, error_body("not_found_error", f"Not Found: {ex.method} {ex.path}"))
            return
        with self._lock:
            self.arrivals.append(time.monotonic())
        if len(ex.raw_body) > ANTHROPIC_MAX_REQUEST_BYTES:
            with self._lock:
                self.rejections.append((413, "request_too_large"))
            ex.send_json(413, error_body("request_too_large", "Request exceeds the maximum allowed number of bytes."))
            return
        try:
            body = ex.json()
        except (ValueError, UnicodeDecodeError):
            self._reject(ex, 400, "request body is not valid JSON")
            return
        with self._lock:
            self.requests.append(body)
            self.raw_bodies.append(ex.raw_body)
            self.headers.append(dict(ex.headers))
        refused = self._refused(ex)
        if refused is not None:
            status, error_type, message = refused
            with self._lock:
                self.rejections.append((status, message))
            ex.send_json(status, error_body(error_type, message))
            return
        if not ex.headers.get("anthropic-version"):
            self._reject(ex, 400, "anthropic-version: header is required")
            return
        refused = self._refused_betas(ex.headers)
        if refused:
            self._reject(
                ex,
                400,
                f"Unexpected value(s) `{refused}` for the `anthropic-beta` header. Please consult our documentation at docs.claude.com or try again without the header.",
            )
            return
        problem = first_problem(body) or next(edit_problems(body, ex.headers, self._strategies(str(body.get("model", "")))), None)
        if problem is not None:
            self._reject(ex, 400, problem)
            return
        seen = apply(body, approx_tokens, self.summarize, None) if "context_management" in body else None
        tokens = approx_tokens(seen.summarized or seen.body) if seen is not None else approx_tokens(body)
        if self.context_window is not None and tokens > self.context_window:  # the window holds the prompt as edited
            self._reject(ex, 400, prompt_too_long_message(tokens, self.context_window))
            return
        with self._lock:
            step = self.cursor.next_step(body)
            applied = apply(body, approx_tokens, self.summarize, step.input_tokens if isinstance(step, Reply) else None)
            self.applied.append(applied)
            compaction_cached = int(self.prompt_cache.serve(applied.summarized)[1]) if applied.summarized is not None else 0
            cacheable = int(self.prompt_cache.serve(applied.body)[1])
        if applied.compaction is not None and isinstance(step, Reply):
            step = replace(step, input_tokens=None)  # the reply is sampled from the compacted prompt
        if isinstance(step, HttpError):
            self._send_http_error(ex, step, tokens)
        elif isinstance(step, StreamError):
            self._send_stream_error(ex, step, body)
        elif isinstance(step, CutStream):
            self._send_cut(ex, step, body)
        elif isinstance(step, StallStream):
            self._send_stall(ex, step, body)
        else:
            events = self._events(self._cached(step, applied.body, cacheable), applied.body)
            self._stream(ex, _with_server_work(events, body, applied, compaction_cached))
            ex.end_stream()

    def _refused_betas(self, headers: Mapping[str, str]) -> str:
        sent = sorted(name for name in betas(headers) if name.startswith(("context-management", "compact-")))
        return ", ".join(sent) if self.refuse_context_management else ""

    def _strategies(self, model: str) -> tuple[str, ...]:
        """What ``model`` takes: the catalogue's capabilities when it describes the model, else the docs' lists."""
        info = next((info for info in self.models.infos if info["id"] == model), None) if self.models is not None else None
        capability = (info or {}).get("capabilities", {}).get("context_management")
        if isinstance(capability, dict):
            return tuple(name for name, value in capability.items() if isinstance(value, dict) and value.get("supported"))
        return strategies_of(model)

    def _models(self, ex: Exchange, catalogue: ModelCatalogue) -> None:
        refused = self._refused(ex)
        if refused is None and not ex.headers.get("anthropic-version"):
            refused = 400, "invalid_request_error", "anthropic-version: header is required"
        answer = catalogue.answer(ex.path, ex.headers) if refused is None else None
        if refused is not None:
            status, error_type, message = refused
            ex.send_json(status, error_body(error_type, message))
        elif answer is None:
            ex.send_json(404, error_body("not_found_error", f"Not Found: {ex.method} {ex.path}"))
        else:
            ex.send_json(*answer)

    def _refused(self, ex: Exchange) -> tuple[int, str, str] | None:
        """The status, error type and message of an unauthenticated request (see the module docstring), else None."""
        key = ex.headers.get("x-api-key")
        authorization = ex.headers.get("authorization")
        bearer = authorization[7:].strip() if authorization and authorization.startswith("Bearer ") else None
        if key is None and bearer is None:
            return 401, "authentication_error", "x-api-key header is required"
        if key is not None and (not key.strip() or (self.credentials is not None and key not in self.credentials)):
            return 401, "authentication_error", "invalid x-api-key"
        if key is None and (not bearer or (self.credentials is not None and bearer not in self.credentials)):
            return 401, "authentication_error", "Invalid bearer token"
        for name, value in self.required_headers.items():
            if ex.headers.get(name.lower()) != value:
                return 403, "permission_error", f"this gateway requires the {name} header"
        return None

    def _cached(self, reply: Reply, body: dict[str, Any], cacheable: int) -> Reply:
        """``reply`` with the cache reads the service could report for ``body`` (see the module docstring)."""
        if self.report_cache:
            total = reply.input_tokens if reply.input_tokens is not None else approx_tokens(body)
            reply = replace(reply, input_tokens=max(0, total - cacheable), cache_read_tokens=cacheable)
        else:
            reply = replace(reply, cache_read_tokens=min(reply.cache_read_tokens, cacheable))
        with self._lock:
            self.cache_reads.append(reply.cache_read_tokens)
        return reply

    def _reject(self, ex: Exchange, status: int, message: str) -> None:
        with self._lock:
            self.rejections.append((status, message))
        ex.send_json(status, error_body("invalid_request_error", message))

    def _send_http_error(self, ex: Exchange, step: HttpError, tokens: int) -> None:
        error_type = ERROR_TYPES.get(step.kind, "api_error")
        message = step.message
        if step.kind == "context_length" and not message:
            message = prompt_too_long_message(tokens, self.context_window or max(1, tokens - 1))
        headers = {"retry-after": f"{step.retry_after:g}"} if step.retry_after is not None else {}
        ex.send_json(step.status, error_body(error_type, message or DEFAULT_MESSAGES[error_type]), headers)

    def _send_stream_error(self, ex: Exchange, step: StreamError, body: dict[str, Any]) -> None:
        events = self._events(step.reply, body)
        ex.start_stream({"request-id": "req_fake"})
        deltas = 0
        for name, data in events:
            if name == "content_block_delta":
                if deltas >= step.after_deltas:
                    break
                deltas += 1
            if name in ("message_delta", "message_stop"):
                break
            ex.send_event(name, data)
        message = DEFAULT_MESSAGES.get(step.error_type, "Internal server error")
        ex.send_event("error", error_body(step.error_type, message))
        ex.end_stream()

    def _send_stall(self, ex: Exchange, step: StallStream, body: dict[str, Any]) -> None:
        ex.start_stream({"request-id": "req_fake"})
        deltas = 0
        for name, data in self._events(step.reply, body):
            if name == "content_block_delta":
                if deltas >= step.after_deltas:
                    break
                deltas += 1
            ex.send_event(name, data)
        self.stalled.set()
        deadline = time.monotonic() + step.seconds
        try:
            while time.monotonic() < deadline:
                time.sleep(0.1)
                ex.send_event("ping", {"type": "ping"})
        except OSError:
            return
        ex.cut()

    def _send_cut(self, ex: Exchange, step: CutStream, body: dict[str, Any]) -> None:
        events = self._events(step.reply, body, split_for_cut=step.call_index)
        ex.start_stream({"request-id": "req_fake"})
        allowed = 0 if step.name_only else _half(self._pieces(step.reply, step.call_index))
        seen_calls = -1
        sent_of_target = 0
        for name, data in events:
            block = data.get("content_block", {})
            if name == "content_block_start" and block.get("type") == "tool_use":
                seen_calls += 1
            elif seen_calls == step.call_index and name == "content_block_delta":
                if sent_of_target >= allowed:
                    break
                sent_of_target += 1
            elif seen_calls == step.call_index and name != "ping":
                break
            ex.send_event(name, data)
        ex.cut()

    def _pieces(self, reply: Reply, call_index: int) -> int:
        call = reply.calls[call_index] if call_index < len(reply.calls) else None
        return len(_argument_pieces(call.arguments, call.chunks, cut=True)) if call else 0

    def _stream(self, ex: Exchange, events: list[Event]) -> None:
        ex.start_stream({"request-id": "req_fake"})
        for name, data in events:
            ex.send_event(name, data)

    def _events(self, reply: Reply, body: dict[str, Any], split_for_cut: int | None = None) -> list[Event]:
        with self._lock:
            message_id = f"msg_fake{next(self._messages)}"
        return _reply_events(reply, body, self._next_id, split_for_cut, message_id)

    def _next_id(self) -> str:
        with self._lock:
            return f"toolu_{next(self._ids)}"


def _half(pieces: int) -> int:
    return max(1, pieces // 2)


def _argument_pieces(arguments: str, chunks: int, *, cut: bool = False) -> list[str]:
    pieces = split_text(arguments, chunks)
    if cut and len(pieces) == 1 and len(arguments) >= 2:
        middle = len(arguments) // 2
        pieces = [arguments[:middle], arguments[middle:]]
    return pieces


def _reply_events(reply: Reply, body: dict[str, Any], next_id: Any, split_for_cut: int | None, message_id: str) -> list[Event]:
    """A reply's stream. Each message has its own id, as the real API's do: Claude Code merges the content of
    assistant messages that share one (it splits a streamed message into a message per block), so a fixed id made
    its second turn a single assistant message with two thinking blocks, refused."""
    input_tokens = reply.input_tokens if reply.input_tokens is not None else approx_tokens(body)
    usage = {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": reply.cache_write_tokens,
        "cache_read_input_tokens": reply.cache_read_tokens,
    }
    start = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": str(body.get("model", "")),
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {**usage, "output_tokens": 1},
    }
    events: list[Event] = [("message_start", {"type": "message_start", "message": start}), ("ping", {"type": "ping"})]
    index = _thinking_events(events, reply, body)
    if reply.text:
        events.append(_block_start(index, {"type": "text", "text": ""}))
        for piece in split_text(reply.text, reply.text_chunks):
            events.append(_delta(index, {"type": "text_delta", "text": piece}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    for n, call in enumerate(reply.calls):
        block = {"type": "tool_use", "id": call.id or next_id(), "name": call.name, "input": {}}
        events.append(_block_start(index, block))
        for piece in _argument_pieces(call.arguments, call.chunks, cut=n == split_for_cut):
            events.append(_delta(index, {"type": "input_json_delta", "partial_json": piece}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    stop_reason = reply.stop_reason or ("tool_use" if reply.calls else "end_turn")
    delta = {"stop_reason": stop_reason, "stop_sequence": None}
    final_usage = {**usage, "output_tokens": reply.output_tokens}
    events.append(("message_delta", {"type": "message_delta", "delta": delta, "usage": final_usage}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def _thinking_events(events: list[Event], reply: Reply, body: dict[str, Any]) -> int:
    """The reply's thinking blocks (only when the request asked for thinking); the next block index."""
    if not thinking_type(body):
        return 0
    index = 0
    if reply.thinking:
        events.append(_block_start(index, {"type": "thinking", "thinking": "", "signature": ""}))
        for piece in split_text(reply.thinking, reply.text_chunks):
            events.append(_delta(index, {"type": "thinking_delta", "thinking": piece}))
        events.append(_delta(index, {"type": "signature_delta", "signature": signature(reply.thinking)}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    if reply.redacted_thinking:
        events.append(_block_start(index, {"type": "redacted_thinking", "data": redacted_data(reply.redacted_thinking)}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    return index


def _block_start(index: int, block: dict[str, Any]) -> Event:
    return ("content_block_start", {"type": "content_block_start", "index": index, "content_block": block})


def _delta(index: int, delta: dict[str, Any]) -> Event:
    return ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})


def _with_server_work(events: list[Event], body: Mapping[str, Any], applied: Applied, compaction_cached: int) -> list[Event]:
    """``events`` with the compaction block first (its start, one ``compaction_delta``, its stop: the SDK accumulator's
    order), the edits applied in ``message_delta.context_management`` and the compaction's own usage in ``iterations``."""
    if "context_management" not in body:
        return events
    out: list[Event] = []
    shift = 1 if applied.compaction is not None else 0
    for name, data in events:
        if "index" in data and shift:
            data = {**data, "index": data["index"] + shift}
        if name == "content_block_start" and shift and not any(n == "content_block_start" for n, _ in out):
            out.extend(_compaction_events(applied.compaction or {}))
        if name == "message_delta":
            data = {**data, "context_management": {"applied_edits": applied.edits}}
            if applied.compaction is not None and applied.summarized is not None:
                data["usage"] = {**data["usage"], "iterations": _iterations(data["usage"], applied, compaction_cached)}
            if shift and not any(n == "content_block_start" for n, _ in out):
                out.extend(_compaction_events(applied.compaction or {}))
        out.append((name, data))
    return out


def _compaction_events(block: Mapping[str, Any]) -> list[Event]:
    start = {"type": "compaction", "content": None, "signature": block.get("signature")}
    delta = {"type": "compaction_delta", "content": block.get("content"), "encrypted_content": None}
    return [_block_start(0, start), _delta(0, delta), ("content_block_stop", {"type": "content_block_stop", "index": 0})]


def _iterations(usage: Mapping[str, Any], applied: Applied, cached: int) -> list[dict[str, Any]]:
    full = applied.full_tokens
    summary = approx_tokens(str((applied.compaction or {}).get("content", "")))
    compaction = {
        "type": "compaction",
        "input_tokens": max(0, full - cached),
        "cache_read_input_tokens": cached,
        "cache_creation_input_tokens": 0,
        "output_tokens": summary,
    }
    message = {
        "type": "message",
        "input_tokens": usage.get("input_tokens", 0),
        "cache_read_input_tokens": usage.get("cache_read_input_tokens", 0),
        "cache_creation_input_tokens": usage.get("cache_creation_input_tokens", 0),
        "output_tokens": usage.get("output_tokens", 0),
    }
    return [compaction, message]
