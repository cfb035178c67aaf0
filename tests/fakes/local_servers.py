"""Wire-level fakes of the local OpenAI-compatible servers: Ollama, llama.cpp's server, vLLM (and LM Studio, LiteLLM probes).

Each serves ``POST /v1/chat/completions`` (streamed chunks, a usage chunk,
``data: [DONE]``) and ``GET /v1/models``, plus its own family's endpoints,
and treats an over-long prompt the way the real one does:

| kind     | window endpoint                         | prompt over the window                      |
|----------|-----------------------------------------|---------------------------------------------|
| ollama   | ``/api/show`` (num_ctx, model_info), ``/api/ps`` | whole messages dropped silently from the front; usage reports the tokens kept |
| llamacpp | ``/props`` (default_generation_settings.n_ctx) | 400 ``exceed_context_size_error``           |
| vllm     | ``/v1/models`` (max_model_len)           | 400 "maximum context length is N tokens"    |

Tokens are the fakes' usual count (``approx_tokens``: JSON bytes / 4) of the
messages and tools. ``replies`` answers each model request: a string (text),
a ``{"name", "arguments"}`` dict (a structured tool call), or a callable of
the request body; a summary request (``is_summary_request``) gets a summary.
``largest_prompt`` is the most tokens any request carried (what reached the model).
``vision=False`` plays a text-only model: llama.cpp without an ``--mmproj``
answers a request with images 500 "image input is not supported - hint: ...",
vLLM 400 (a model that takes no multimodal input); Ollama is not modelled.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Callable, Literal, Mapping, Sequence, Union

from tests.fakes.http import Exchange, FakeHTTPServer
from tests.fakes.script import approx_tokens, is_summary_request

Kind = Literal["ollama", "llamacpp", "vllm", "lmstudio", "litellm"]
ReplyItem = Union[str, Mapping[str, Any]]
Replier = Union[Sequence[ReplyItem], Callable[[Mapping[str, Any]], ReplyItem]]


def prompt_tokens(body: Mapping[str, Any]) -> int:
    return approx_tokens({"messages": body.get("messages", []), "tools": body.get("tools", [])})


class FakeLocalServer:
    """One local server; use as a context manager. ``url`` ends in ``/v1``."""

    def __init__(
        self,
        kind: Kind,
        *,
        model: str = "qwen2.5-coder:7b",
        window: int = 4096,
        model_window: int = 32768,
        replies: Replier = (),
        num_ctx_parameter: int | None = None,
        loaded: bool = False,
        tools_capable: bool = True,
        reports_window: int | None = None,
        vision: bool = True,
    ) -> None:
        """``reports_window``: what the window endpoints say when it differs from what the server runs (a stale probe)."""
        self.kind, self.model, self.window, self.model_window = kind, model, window, model_window
        self.num_ctx_parameter, self.loaded, self.tools_capable = num_ctx_parameter, loaded, tools_capable
        self.reports_window = reports_window or window
        self.vision = vision
        self._replies = replies
        self.truncated_answers: list[str] = []
        self._served = 0
        self.requests: list[dict[str, Any]] = []
        self.kept: list[int] = []
        self.sent: list[int] = []
        self.paths: list[str] = []
        self._lock = threading.Lock()
        self._http = FakeHTTPServer(self._handle)

    @property
    def url(self) -> str:
        return f"{self._http.url}/v1"

    @property
    def largest_prompt(self) -> int:
        return max(self.kept, default=0)

    def __enter__(self) -> FakeLocalServer:
        self._http.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.stop()

    def _handle(self, exchange: Exchange) -> None:
        path = exchange.path.split("?")[0]
        with self._lock:
            self.paths.append(f"{exchange.method} {path}")
        if exchange.method == "POST" and path == "/v1/chat/completions":
            return self._chat(exchange)
        if exchange.method == "GET" and path == "/v1/models":
            return exchange.send_json(200, {"object": "list", "data": [self._model_entry()]})
        answer = self._family(exchange.method, path, exchange)
        if answer is None:
            exchange.send_json(404, {"error": {"message": f"not found: {path}", "type": "not_found"}})
        else:
            exchange.send_json(200, answer)

    def _model_entry(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"id": self.model, "object": "model", "owned_by": self.kind}
        if self.kind == "vllm":
            entry["max_model_len"] = self.reports_window
        return entry

    def _family(self, method: str, path: str, exchange: Exchange) -> dict[str, Any] | None:
        if self.kind == "ollama" and method == "POST" and path == "/api/show":
            if exchange.json().get("model") != self.model:
                return None
            parameters = f"num_ctx {self.num_ctx_parameter}\nstop <|im_end|>" if self.num_ctx_parameter else "stop <|im_end|>"
            capabilities = ["completion", "tools"] if self.tools_capable else ["completion"]
            return {
                "parameters": parameters,
                "model_info": {"general.architecture": "qwen2", "qwen2.context_length": self.model_window},
                "capabilities": capabilities,
            }
        if self.kind == "ollama" and method == "GET" and path == "/api/ps":
            running = [{"name": self.model, "model": self.model, "context_length": self.reports_window}] if self.loaded else []
            return {"models": running}
        if self.kind == "llamacpp" and method == "GET" and path == "/props":
            return {"default_generation_settings": {"n_ctx": self.reports_window, "temperature": 0.8}, "total_slots": 1, "model_path": "/models/x.gguf"}
        if self.kind == "lmstudio" and method == "GET" and path == f"/api/v0/models/{self.model}":
            return {"id": self.model, "state": "loaded", "max_context_length": self.model_window, "loaded_context_length": self.window}
        if self.kind == "litellm" and method == "GET" and path == "/model/info":
            return {"data": [{"model_name": self.model, "model_info": {"max_input_tokens": self.window}}]}
        return None

    def _chat(self, exchange: Exchange) -> None:
        body = exchange.json()
        tokens = prompt_tokens(body)
        with self._lock:
            self.requests.append(body)
            self.sent.append(tokens)
        if not self.vision and _has_images(body) and self.kind in ("llamacpp", "vllm"):
            return self._refuse_images(exchange)
        if tokens > self.window and self.kind == "llamacpp":
            message = "the request exceeds the available context size, try increasing it"
            error = {"code": 400, "message": message, "type": "exceed_context_size_error", "n_prompt_tokens": tokens, "n_ctx": self.window}
            return exchange.send_json(400, {"error": error})
        if tokens > self.window and self.kind != "ollama":
            message = f"This model's maximum context length is {self.window} tokens. However, you requested {tokens} tokens in the messages."
            return exchange.send_json(400, {"object": "error", "message": message, "type": "BadRequestError", "code": 400})
        kept = tokens
        if tokens > self.window:  # Ollama: whole messages dropped from the front, system prompt first, silently
            messages = list(body.get("messages", []))
            while messages and prompt_tokens({"messages": messages, "tools": body.get("tools", [])}) > self.window:
                messages.pop(0)
            kept = prompt_tokens({"messages": messages, "tools": body.get("tools", [])})
        with self._lock:
            self.kept.append(kept)
        reply = f"<summary>the work so far (request {len(self.requests)})</summary>" if is_summary_request(body) else self._next(body)
        marker = f"call_local_{len(self.requests):04d}" if isinstance(reply, Mapping) else reply
        if kept < tokens:
            with self._lock:
                self.truncated_answers.append(marker)
        self._stream(exchange, reply, kept)

    def _refuse_images(self, exchange: Exchange) -> None:
        if self.kind == "llamacpp":
            message = "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj"
            return exchange.send_json(500, {"error": {"code": 500, "message": message, "type": "server_error"}})
        message = f"{self.model} is not a multimodal model: image inputs are not supported"
        return exchange.send_json(400, {"object": "error", "message": message, "type": "BadRequestError", "code": 400})

    def _next(self, body: Mapping[str, Any]) -> ReplyItem:
        if callable(self._replies):
            return self._replies(body)
        with self._lock:
            index = self._served
            self._served += 1
        return self._replies[index] if index < len(self._replies) else "done"

    def _stream(self, exchange: Exchange, reply: ReplyItem, kept: int) -> None:
        exchange.start_stream()
        base = {"id": "chatcmpl-local", "object": "chat.completion.chunk", "created": 0, "model": self.model}
        if isinstance(reply, str):
            delta: dict[str, Any] = {"role": "assistant", "content": reply}
            finish = "stop"
        else:
            call = {
                "index": 0,
                "id": f"call_local_{len(self.requests):04d}",
                "type": "function",
                "function": {"name": reply["name"], "arguments": json.dumps(reply.get("arguments", {}))},
            }
            delta, finish = {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"
        exchange.send_event(None, {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
        exchange.send_event(None, {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
        usage = {"prompt_tokens": kept, "completion_tokens": 5, "total_tokens": kept + 5}
        exchange.send_event(None, {**base, "choices": [], "usage": usage})
        exchange.send_event(None, "[DONE]")
        exchange.end_stream()


def _has_images(body: Mapping[str, Any]) -> bool:
    for message in body.get("messages", []):
        content = message.get("content") if isinstance(message, Mapping) else None
        if isinstance(content, list) and any(isinstance(p, Mapping) and p.get("type") == "image_url" for p in content):
            return True
    return False
