"""The OpenAI (and OpenAI-compatible) provider, over the official ``openai`` SDK.

Two APIs, one adapter: OpenAI's reasoning models (the model table's
``effort`` rows) go through the Responses API (``openai_responses.py``), the
only one that carries their reasoning between turns; every other model, and
every OpenAI-compatible server at a base URL (Ollama, vLLM, llama.cpp,
LiteLLM), goes through Chat Completions (``openai_wire.py``), unless the
adapter is told ``api="responses"`` for a server that speaks it.

The SDK builds and sends the request (auth, headers, timeouts, status errors);
the SSE body is read line by line here rather than through the SDK's chunk
iterator, because the iterator ends the same way whether the server sent
``data: [DONE]`` (Responses: ``response.completed``) or the body simply
stopped, and only the former is a finished answer.

Error mapping (no SDK exception ever leaves ``stream``; the status and
error-object rules are ``openai_wire.error_from_body``):

| what happened                                   | raised            |
|-------------------------------------------------|-------------------|
| context-overflow code or message (400 / stream) | PromptTooLong     |
| 401 / 403, missing key                          | AuthError (names the key variable) |
| quota or billing codes                          | BadRequest        |
| other 4xx / 5xx but 503                         | by status (``error_for_status``) |
| 503, overload codes                             | Overloaded        |
| rate-limit codes inside the stream              | RateLimited       |
| other ``error`` object inside the stream        | BadRequest / ServerError |
| connect failure / timeout before the stream     | ConnectionFailed  |
| stream broken, or ended without ``[DONE]``      | StreamCut         |
| Responses: ended without ``response.completed`` | StreamCut         |
| Responses: ``error`` / ``response.failed`` event | by code, as above |
| Responses: 400 on ``reasoning.summary``          | none: asked again once without a summary |
| 400/422/500 refusing the request's images       | none: asked again once with notes in their place |

A server that refuses images (a text-only local model the model table does
not know, so ``images_for_model`` let its images through) is asked again
once with text notes in their place, and this adapter never sends that model
an image again: the session goes on, and the model is told what it missed.

A partial stream never produces ``Completed``; the API key never appears in
a message (and long proxy pages are cut to 500 characters).

The SDK is imported lazily (``importlib``: this module's own name is
``openai``), so importing the package costs nothing on the CLI start-up path.
``max_retries=0``: retrying is one policy elsewhere.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import replace
from typing import Any, AsyncGenerator, AsyncIterator, Callable, Literal

from pseudoclaude.llm.errors import (
    AuthError,
    ConnectionFailed,
    ProviderError,
    StreamCut,
    parse_retry_after,
)
from pseudoclaude.llm.gateway import Headers, official_openai, openai_api
from pseudoclaude.llm.image_budget import without_images
from pseudoclaude.llm.openai_responses import (
    ResponsesAssembler,
    response_as_events,
    takes_responses,
    to_responses_request,
)
from pseudoclaude.llm.openai_wire import (
    StreamAssembler,
    completion_as_chunk,
    error_from_body,
    refuses_images,
    to_wire_request,
)
from pseudoclaude.llm.probe import WindowProbe, probe_window
from pseudoclaude.llm.provider import Completed, Request, StreamEvent
from pseudoclaude.llm.providers import OPENAI
from pseudoclaude.llm.warmup import sdk_ready
from pseudoclaude.llm.text_tool_calls import recover

__all__ = ["OpenAIProvider", "build"]

LOCAL_PLACEHOLDER_KEY = "not-needed"

_Streamer = Callable[[Request], AsyncGenerator[StreamEvent, None]]
WireApi = Literal["auto", "responses", "chat"]
"""Which API the adapter speaks: ``auto`` lets the model table decide on OpenAI itself (Chat Completions elsewhere)."""


class OpenAIProvider:
    """Responses or Chat Completions streaming against OpenAI, or any server at ``base_url`` that speaks them."""

    name = OPENAI.name

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None,
        base_url: str | None = None,
        timeout: float = 600.0,
        api: WireApi = "auto",
        headers: Headers = (),
    ) -> None:
        self.model = model
        self.api = api
        self._api_key = api_key
        self._base_url = base_url
        self._headers = headers
        self._official = official_openai(base_url)
        self._timeout = timeout
        self._client: Any = None
        self._summaries = True
        self._structured_calls = False
        self._recovered = 0
        self._no_images: dict[str, str] = {}

    async def _sdk_client(self) -> Any:
        if self._client is None:
            await sdk_ready()  # a warm-up thread may be importing it: join it rather than import beside it (warmup.py)
            sdk = importlib.import_module("openai")
            key = self._api_key
            if not key and self._base_url:
                key = LOCAL_PLACEHOLDER_KEY
            try:
                self._client = sdk.AsyncOpenAI(
                    api_key=key or None,
                    base_url=self._base_url,
                    timeout=self._timeout,
                    max_retries=0,
                    default_headers=dict(self._headers) or None,
                )
            except sdk.OpenAIError:
                raise AuthError(f"no OpenAI API key: set {OPENAI.key_variable} (or a base URL for a local server)") from None
        return self._client

    # --- local servers (issue 17): the window they run, tool calls written as text ---
    @property
    def local_server(self) -> bool:
        return not self._official and bool(self._base_url)

    async def probe_window(self) -> WindowProbe | None:
        """The window the server at the base URL runs this model with (None: official OpenAI, or it does not say)."""
        if self._official or not self._base_url:
            return None
        import asyncio

        return await asyncio.to_thread(probe_window, self._base_url, self.model, api_key=self._api_key)

    def _recovered_calls(self, request: Request, closing: list[StreamEvent]) -> list[StreamEvent]:
        """``closing`` with tool calls written as text made real (off once the model used the structured field)."""
        out: list[StreamEvent] = []
        for event in closing:
            if isinstance(event, Completed) and event.message.tool_calls:
                self._structured_calls = True
            elif isinstance(event, Completed) and not self._structured_calls and event.stop_reason == "end_turn" and request.tool_choice != "none":
                self._recovered += 1
                found = recover(event.message, request.tools, call_id_prefix=f"call_text_{self._recovered}_")
                if found is not None:
                    event = Completed(found.message, event.usage, "tool_use")
            out.append(event)
        return out

    # --- end local servers ---

    def takes_responses(self, model: str) -> bool:
        """Whether a request for ``model`` goes through the Responses API."""
        return openai_api(takes_responses(model), self._base_url, self.api) == "responses"

    def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        if self.takes_responses(request.model):
            return self._seeing(request, self._stream_responses)
        return self._seeing(request, self._stream_chat)

    async def _seeing(self, request: Request, once: _Streamer) -> AsyncGenerator[StreamEvent, None]:
        """``once(request)``; asked again once with notes for images when the server refuses them (module docstring)."""
        if request.model in self._no_images:
            request = replace(request, messages=without_images(request.messages, self._no_images[request.model]))
        refused: ProviderError | None = None
        started = False
        try:
            async for event in once(request):
                started = True
                yield event
        except ProviderError as error:
            if started or not refuses_images(error, request.messages):
                raise
            refused = error
        if refused is None:
            return
        reason = f"the server refused images for {request.model} ({refused.message[:200]})"
        self._no_images[request.model] = reason
        async for event in once(replace(request, messages=without_images(request.messages, reason))):
            yield event

    async def _stream_responses(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        """One Responses call; asked again once without a reasoning summary when the organization may not have one."""
        try:
            async for event in self._responses_once(request):
                yield event
        except _SummaryRefused:
            self._summaries = False
            async for event in self._responses_once(request):
                yield event

    async def _responses_once(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        client = await self._sdk_client()
        assembler = ResponsesAssembler(request.model)
        started = False
        try:
            body = to_responses_request(request, summaries=self._summaries)
            async with client.responses.with_streaming_response.create(**body) as response:
                started = True
                if response.headers.get("content-type", "").startswith("application/json"):
                    for whole in response_as_events(json.loads(await response.text())):
                        for event in assembler.feed(whole):
                            yield event
                else:
                    async for data in _sse_data(response.iter_lines()):
                        for event in assembler.feed(self._scrubbed_event(_chunk(data))):
                            yield event
                closing = assembler.finish()
        except ProviderError:
            raise
        except Exception as exc:
            if self._summaries and _refuses_summary(exc):
                raise _SummaryRefused from None
            error = self._normalize(exc, started=started)
            if error is None:
                raise
            raise error from None
        for event in closing:
            yield event

    async def _stream_chat(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        client = await self._sdk_client()
        assembler = StreamAssembler()
        started = False
        try:
            body = to_wire_request(request, official=self._official)
            async with client.chat.completions.with_streaming_response.create(**body) as response:
                started = True
                done = False
                if response.headers.get("content-type", "").startswith("application/json"):
                    events = assembler.feed(completion_as_chunk(json.loads(await response.text())))
                    closing = self._recovered_calls(request, assembler.finish(done=True))
                    for event in [*events, *closing]:
                        yield event
                    return
                async for data in _sse_data(response.iter_lines()):
                    if data.strip() == "[DONE]":
                        done = True
                        break
                    chunk = _chunk(data)
                    if chunk.get("error") is not None:
                        chunk["error"] = self._scrubbed(chunk["error"], "error inside the stream")
                    for event in assembler.feed(chunk):
                        yield event
                closing = self._recovered_calls(request, assembler.finish(done=done))
        except ProviderError:
            raise
        except Exception as exc:
            error = self._normalize(exc, started=started)
            if error is None:
                raise
            raise error from None
        for event in closing:
            yield event

    async def aclose(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.close()

    def _normalize(self, exc: Exception, *, started: bool) -> ProviderError | None:
        """The ``ProviderError`` for an SDK or transport exception (``started``: the stream had begun); None for anything else (a bug)."""
        sdk = importlib.import_module("openai")
        httpx2 = importlib.import_module("httpx2")
        if isinstance(exc, sdk.APIStatusError):
            headers = exc.response.headers
            retry_after = _retry_after(headers.get("retry-after-ms"), headers.get("retry-after"))
            return error_from_body(exc.status_code, self._scrubbed(exc.body, exc.message), retry_after=retry_after)
        transport_errors: tuple[type[BaseException], ...] = (sdk.APIConnectionError, httpx2.TransportError, OSError)
        if isinstance(exc, transport_errors) or type(exc).__module__.startswith("anyio"):
            what = type(exc.__cause__ or exc).__name__
            if started:
                return StreamCut(f"OpenAI stream broke before completion ({what})")
            where = self._base_url or "api.openai.com"
            return ConnectionFailed(f"could not reach OpenAI at {where} ({what})")
        if isinstance(exc, sdk.APIError):
            return error_from_body(None, self._scrubbed(exc.body, exc.message))
        return None

    def _scrubbed_event(self, event: dict[str, Any]) -> dict[str, Any]:
        """``event``, with the message of an ``error`` or ``response.failed`` event made safe to show."""
        if event.get("type") == "error":
            return {**event, "message": self._scrub(str(event.get("message") or "error inside the stream"))}
        response = event.get("response")
        if event.get("type") != "response.failed" or not isinstance(response, dict) or response.get("error") is None:
            return event
        return {**event, "response": {**response, "error": self._scrubbed(response["error"], "the response failed")}}

    def _scrubbed(self, error: object, fallback: str) -> dict[str, Any]:
        """An error object whose message is safe to show: no key, readable length."""
        body = dict(error) if isinstance(error, dict) else {"message": str(error or fallback)}
        body["message"] = self._scrub(str(body.get("message") or fallback))
        return body

    def _scrub(self, text: str) -> str:
        """``text`` without the API key or a header value, cut to a readable length (proxies answer with whole HTML pages)."""
        for secret in (self._api_key, *(value for _, value in self._headers)):
            if secret and len(secret) >= 8:
                text = text.replace(secret, "***")
        return text if len(text) <= 500 else text[:500] + "..."


class _SummaryRefused(Exception):
    """OpenAI refused ``reasoning.summary`` (an organization not verified for summaries): ask without one."""


def _refuses_summary(exc: Exception) -> bool:
    sdk = importlib.import_module("openai")
    if not isinstance(exc, sdk.APIStatusError) or exc.status_code != 400:
        return False
    body = exc.body if isinstance(exc.body, dict) else {}
    return body.get("param") == "reasoning.summary" or "reasoning summar" in str(body.get("message") or "").lower()


async def _sse_data(lines: AsyncIterator[str]) -> AsyncGenerator[str, None]:
    """The ``data`` of each server-sent event; comments and other fields are skipped.

    An event is dispatched at its blank line only (SSE rules): a final event
    without one is a torn tail, except a bare ``[DONE]``.
    """
    pending: list[str] = []
    async for line in lines:
        if not line:
            if pending:
                yield "\n".join(pending)
                pending = []
            continue
        field, _, value = line.partition(":")
        if field == "data":
            pending.append(value[1:] if value.startswith(" ") else value)
    if pending == ["[DONE]"]:
        yield "[DONE]"


def _chunk(data: str) -> dict[str, Any]:
    try:
        chunk = json.loads(data)
    except json.JSONDecodeError:
        raise StreamCut("OpenAI stream carried a malformed chunk") from None
    if not isinstance(chunk, dict):
        raise StreamCut("OpenAI stream carried a chunk that is not an object")
    return chunk


def _retry_after(milliseconds: str | None, seconds: str | None) -> float | None:
    ms = parse_retry_after(milliseconds)
    return ms / 1000.0 if ms is not None else parse_retry_after(seconds)


def build(*, model: str, api_key: str | None, base_url: str | None, api: str = "auto", auth_token: str | None = None, headers: Headers = ()) -> OpenAIProvider:
    """The table's adapter factory (``providers.NamedAdapter``). OpenAI takes no separate token: a gateway's token is its
    key (``OPENAI_API_KEY``), sent as Bearer either way."""
    key = api_key or auth_token
    if api == "responses":
        return OpenAIProvider(model=model, api_key=key, base_url=base_url, api="responses", headers=headers)
    if api == "chat":
        return OpenAIProvider(model=model, api_key=key, base_url=base_url, api="chat", headers=headers)
    return OpenAIProvider(model=model, api_key=key, base_url=base_url, headers=headers)
