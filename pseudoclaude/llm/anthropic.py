"""The Anthropic provider: the official SDK, raw stream events, normalized errors.

The SDK is imported lazily (on the first request), so importing this module
costs nothing on the CLI start-up path. Its own retries are off
(``max_retries=0``): ``llm/retry.py`` is the one retry policy.

Error mapping (no SDK exception ever leaves ``stream``):

| what happened                                   | raised            |
|-------------------------------------------------|-------------------|
| 400 "prompt is too long", 413                   | PromptTooLong     |
| other 4xx                                       | BadRequest        |
| 401 / 403, missing key                          | AuthError (names ANTHROPIC_API_KEY) |
| 429                                             | RateLimited(retry_after=header) |
| 529, ``overloaded_error``                       | Overloaded        |
| other 5xx, ``api_error``                        | ServerError       |
| ``error`` event inside a started stream         | by its error type, after the deltas already yielded |
| connect failure / timeout before the stream     | ConnectionFailed  |
| stream broken or ended before ``message_stop``  | StreamCut         |

A partial stream never produces ``Completed``; the API key is scrubbed from
every message.
"""

from __future__ import annotations

from typing import Any, AsyncGenerator

from pseudoclaude.llm.anthropic_wire import StreamAssembler, request_params
from pseudoclaude.llm.errors import (
    AuthError,
    BadRequest,
    ConnectionFailed,
    Overloaded,
    PromptTooLong,
    ProviderError,
    RateLimited,
    ServerError,
    StreamCut,
    error_for_status,
    parse_retry_after,
)
from pseudoclaude.llm.provider import Request, StreamEvent

API_KEY_VARIABLE = "ANTHROPIC_API_KEY"

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


class AnthropicProvider:
    """``Provider`` for the Anthropic Messages API (or anything speaking it at ``base_url``)."""

    name = "anthropic"

    def __init__(self, *, model: str, api_key: str, base_url: str | None = None, timeout: float = 600.0) -> None:
        self.model = model
        self._api_key = api_key
        self._base_url = base_url
        self._timeout = timeout
        self._client: Any = None

    def _sdk_client(self) -> Any:
        if self._client is None:
            from anthropic import AsyncAnthropic

            self._client = AsyncAnthropic(
                api_key=self._api_key, base_url=self._base_url, timeout=self._timeout, max_retries=0
            )
        return self._client

    async def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        if not self._api_key:
            raise AuthError(f"no Anthropic API key: set {API_KEY_VARIABLE}")
        params = request_params(request)
        try:
            sdk_stream = await self._sdk_client().messages.create(**params, stream=True)
        except Exception as exc:
            raise self._normalize(exc, started=False) from None
        assembler = StreamAssembler()
        try:
            async for event in sdk_stream:
                for item in assembler.feed(event):
                    yield item
                if assembler.done:
                    return
        except ProviderError:
            raise
        except Exception as exc:
            raise self._normalize(exc, started=True) from None
        finally:
            await _close_quietly(sdk_stream)
        raise StreamCut("the response stream ended before message_stop")

    async def aclose(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.close()

    def _normalize(self, exc: Exception, *, started: bool) -> ProviderError:
        error = normalize_error(exc, started=started)
        if self._api_key and self._api_key in error.message:
            scrubbed = error.message.replace(self._api_key, "***")
            error = type(error)(scrubbed, status=error.status, retry_after=error.retry_after)
        return error


def normalize_error(exc: Exception, *, started: bool) -> ProviderError:
    """The ``ProviderError`` for an SDK or transport exception; ``started``: the 200 stream had begun."""
    import anthropic
    import httpx2

    if isinstance(exc, ProviderError):
        return exc
    if isinstance(exc, anthropic.APIStatusError):
        return _from_status(exc)
    if started and isinstance(exc, (anthropic.APIConnectionError, httpx2.HTTPError, OSError)):
        return StreamCut(f"the response stream broke: {type(exc).__name__}: {exc}")
    if isinstance(exc, anthropic.APIConnectionError):
        return ConnectionFailed(f"could not reach the Anthropic API: {exc.message}")
    if isinstance(exc, (httpx2.TimeoutException, TimeoutError)):
        return ConnectionFailed(f"request timed out: {exc}")
    if isinstance(exc, (httpx2.HTTPError, OSError)):
        return ConnectionFailed(f"connection failed: {type(exc).__name__}: {exc}")
    if started and isinstance(exc, ValueError):
        return ServerError(f"malformed response stream: {exc}")
    return ProviderError(f"Anthropic request failed: {type(exc).__name__}: {exc}")


def _from_status(exc: Any) -> ProviderError:
    """An HTTP error status, or (a status below 400) an ``error`` event inside the stream."""
    in_stream = int(exc.status_code) < 400
    status = None if in_stream else int(exc.status_code)
    error_type = exc.type if isinstance(exc.type, str) else None
    message = exc.api_message if isinstance(exc.api_message, str) and exc.api_message else str(exc.message)
    if in_stream:
        message = f"{error_type or 'error'} in the response stream: {message}"
    retry_after = parse_retry_after(exc.response.headers.get("retry-after"))
    if status in (401, 403) or error_type in ("authentication_error", "permission_error"):
        return AuthError(f"Anthropic rejected the API key ({message}); check {API_KEY_VARIABLE}", status=status)
    if "prompt is too long" in message.lower():
        return PromptTooLong(message, status=status)
    if status == 529 or error_type == "overloaded_error":
        return Overloaded(message, status=status, retry_after=retry_after)
    if status is not None:
        return error_for_status(status, message, retry_after)
    return _BY_ERROR_TYPE.get(error_type or "", ServerError)(message, retry_after=retry_after)


async def _close_quietly(sdk_stream: Any) -> None:
    try:
        await sdk_stream.close()
    except Exception:
        pass
