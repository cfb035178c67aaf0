"""The Anthropic provider: the official SDK, raw stream events, normalized errors.

The SDK is imported lazily (on the first request), so importing this module
costs nothing on the CLI start-up path. Its own retries are off
(``max_retries=0``): ``llm/retry.py`` is the one retry policy.

Error mapping (no SDK exception ever leaves ``stream``):

| what happened                                   | raised            |
|-------------------------------------------------|-------------------|
| 400 "prompt is too long", 413                   | PromptTooLong     |
| other 4xx                                       | BadRequest        |
| 401 / 403, missing key and token                | AuthError (names the key variable) |
| 429                                             | RateLimited(retry_after=header) |
| 529, ``overloaded_error``                       | Overloaded        |
| other 5xx, ``api_error``                        | ServerError       |
| ``error`` event inside a started stream         | by its error type, after the deltas already yielded |
| connect failure / timeout before the stream     | ConnectionFailed  |
| stream broken or ended before ``message_stop``  | StreamCut         |

A partial stream never produces ``Completed``; the API key is scrubbed from
every message. Request, stream and error-body translation live in
``anthropic_wire.py``; this module holds the SDK, the transport and the
scrubbing, the same split as ``openai.py`` / ``openai_wire.py``.
"""

from __future__ import annotations

from typing import Any, AsyncGenerator

from pseudoclaude.llm.anthropic_wire import StreamAssembler, error_from_body, to_wire_request
from pseudoclaude.llm.errors import (
    AuthError,
    ConnectionFailed,
    ProviderError,
    ServerError,
    StreamCut,
    parse_retry_after,
)
from pseudoclaude.llm.gateway import Headers
from pseudoclaude.llm.provider import Request, StreamEvent
from pseudoclaude.llm.providers import ANTHROPIC
from pseudoclaude.llm.warmup import sdk_ready

__all__ = ["AnthropicProvider", "build"]


class AnthropicProvider:
    """``Provider`` for the Anthropic Messages API (or anything speaking it at ``base_url``: a gateway).

    ``auth_token`` (``ANTHROPIC_AUTH_TOKEN``) is what a gateway (LiteLLM,
    OpenRouter, a corporate proxy) expects as ``Authorization: Bearer``; when
    set it is the only credential sent, so the user's own ``ANTHROPIC_API_KEY``
    never reaches the gateway. ``headers`` (``ANTHROPIC_CUSTOM_HEADERS``, parsed
    by ``gateway.parse_custom_headers``) go on every request, after the SDK's own.
    """

    name = ANTHROPIC.name

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None,
        base_url: str | None = None,
        timeout: float = 600.0,
        auth_token: str | None = None,
        headers: Headers = (),
    ) -> None:
        self.model = model
        self._api_key = api_key
        self._auth_token = auth_token
        self._headers = headers
        self._base_url = base_url
        self._timeout = timeout
        self._client: Any = None

    async def _sdk_client(self) -> Any:
        if self._client is None:
            await sdk_ready()  # a warm-up thread may be importing it: join it rather than import beside it (warmup.py)
            from anthropic import AsyncAnthropic

            credential = {"auth_token": self._auth_token} if self._auth_token else {"api_key": self._api_key}
            self._client = AsyncAnthropic(
                **credential,
                base_url=self._base_url,
                timeout=self._timeout,
                max_retries=0,
                default_headers=dict(self._headers) or None,
            )
        return self._client

    async def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        if not self._api_key and not self._auth_token:
            raise AuthError(f"no Anthropic API key: set {ANTHROPIC.key_variable} (or {ANTHROPIC.token_variable} for a gateway)")
        params = to_wire_request(request)
        try:
            client = await self._sdk_client()
            messages = client.beta.messages if "betas" in params else client.messages  # server-side context management is a beta
            sdk_stream = await messages.create(**params, stream=True)
        except Exception as exc:
            raise self._normalize(exc, started=False) from None
        assembler = StreamAssembler()
        try:
            async for event in sdk_stream:
                for item in assembler.feed(event):
                    yield item
                if assembler.done:
                    break
        except ProviderError:
            raise
        except Exception as exc:
            raise self._normalize(exc, started=True) from None
        finally:
            await _close_quietly(sdk_stream)
        for item in assembler.finish():
            yield item

    async def aclose(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.close()

    def _normalize(self, exc: Exception, *, started: bool) -> ProviderError:
        """The ``ProviderError`` for an SDK or transport exception; ``started``: the 200 stream had begun."""
        import anthropic
        import httpx2

        if isinstance(exc, ProviderError):
            error = exc
        elif isinstance(exc, anthropic.APIStatusError):
            error = _from_status(exc, ANTHROPIC.token_variable if self._auth_token else ANTHROPIC.key_variable)
        elif started and isinstance(exc, (anthropic.APIConnectionError, httpx2.HTTPError, OSError)):
            error = StreamCut(f"the response stream broke: {type(exc).__name__}: {exc}")
        elif isinstance(exc, anthropic.APIConnectionError):
            error = ConnectionFailed(f"could not reach the Anthropic API: {exc.message}")
        elif isinstance(exc, (httpx2.TimeoutException, TimeoutError)):
            error = ConnectionFailed(f"request timed out: {exc}")
        elif isinstance(exc, (httpx2.HTTPError, OSError)):
            error = ConnectionFailed(f"connection failed: {type(exc).__name__}: {exc}")
        elif started and isinstance(exc, ValueError):
            error = ServerError(f"malformed response stream: {exc}")
        else:
            error = ProviderError(f"Anthropic request failed: {type(exc).__name__}: {exc}")
        scrubbed = self._scrub(error.message)
        if scrubbed != error.message:
            error = type(error)(scrubbed, status=error.status, retry_after=error.retry_after)
        return error

    def _scrub(self, text: str) -> str:
        """``text`` without the API key, the token or a header value long enough to be a secret."""
        for secret in (self._api_key, self._auth_token, *(value for _, value in self._headers)):
            if secret and len(secret) >= 8:
                text = text.replace(secret, "***")
        return text


def _from_status(exc: Any, credential: str) -> ProviderError:
    """An HTTP error status, or (a status below 400) an ``error`` event inside the stream."""
    in_stream = int(exc.status_code) < 400
    message = exc.api_message if isinstance(exc.api_message, str) and exc.api_message else str(exc.message)
    error = {"type": exc.type if isinstance(exc.type, str) else None, "message": message}
    retry_after = parse_retry_after(exc.response.headers.get("retry-after"))
    return error_from_body(None if in_stream else int(exc.status_code), error, retry_after=retry_after, credential=credential)


async def _close_quietly(sdk_stream: Any) -> None:
    try:
        await sdk_stream.close()
    except Exception:
        pass


def build(
    *, model: str, api_key: str | None, base_url: str | None, api: str = "auto", auth_token: str | None = None, headers: Headers = ()
) -> AnthropicProvider:
    """The table's adapter factory (``providers.NamedAdapter``); the Messages API is the one API, so ``api`` is ignored."""
    return AnthropicProvider(model=model, api_key=api_key, base_url=base_url, auth_token=auth_token, headers=headers)
