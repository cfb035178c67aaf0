"""One error tree for every provider, with retryability as data.

Adapters translate SDK and wire errors into these; nothing above ``llm/``
ever sees an SDK exception.

    ProviderError
    ├── AuthError            401/403, missing key           never retried
    ├── BadRequest           other 4xx                      not retried
    │   ├── PromptTooLong    "prompt is too long", context_length_exceeded, 413
    │   │                                                   not retried (compaction recovers)
    │   └── ModelNotFound    404 for the model              not retried (``/model`` chooses another)
    ├── RateLimited          429                            retried, honours retry-after
    ├── Overloaded           529, overloaded_error event    retried
    ├── ServerError          500/502/503/504                retried
    ├── StreamCut            stream ended before the message completed
    │                                                       retried
    └── ConnectionFailed     connect/read failure, timeout  retried

| error            | retryable | note                                        |
|------------------|-----------|---------------------------------------------|
| AuthError        | no        | message names the variable to set           |
| BadRequest       | no        |                                             |
| PromptTooLong    | no        | the runner compacts once and tries again    |
| RateLimited      | yes       | ``retry_after`` seconds when the server says |
| Overloaded       | yes       |                                             |
| ServerError      | yes       |                                             |
| StreamCut        | yes       | partial output is discarded, never executed |
| ConnectionFailed | yes       |                                             |
"""

from __future__ import annotations

import re


class ProviderError(Exception):
    """Base of every normalized provider failure."""

    retryable: bool = False

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retry_after = retry_after


class AuthError(ProviderError):
    retryable = False


class BadRequest(ProviderError):
    retryable = False


class PromptTooLong(BadRequest):
    """``limit_tokens``: the window the service stated in its message, when it did."""

    retryable = False

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None, limit_tokens: int | None = None) -> None:
        super().__init__(message, status=status, retry_after=retry_after)
        self.limit_tokens = limit_tokens if limit_tokens is not None else stated_context_limit(message)


class PromptTruncated(PromptTooLong):
    """The server answered, but counted far fewer prompt tokens than were sent: it cut the front off silently.

    Handled like ``PromptTooLong`` (the window it apparently ran is ``limit_tokens``): the
    answer to a prompt the model did not see whole is never used.
    """


class ModelNotFound(BadRequest):
    """The provider does not know the model (HTTP 404): said in words a user can act on."""


def explained(error: ProviderError, *, model: str, provider: str) -> ProviderError:
    """``error`` as a user should read it: a 404 names the model and the provider, and the way out.

    A provider answers an unknown model with a bare 404 (``model: foo-bar-9``,
    ``Not Found``); labelled BadRequest, it left the user guessing.
    """
    if isinstance(error, ModelNotFound) or error.status != 404:
        return error
    detail = error.message.strip()
    said = f" (the provider said: {detail})" if detail and detail.lower() not in (f"model: {model}".lower(), "not found") else ""
    return ModelNotFound(f"model {model} not found at {provider}{said}; choose another with /model (or --model)", status=404)


class RateLimited(ProviderError):
    retryable = True


class Overloaded(ProviderError):
    retryable = True


class ServerError(ProviderError):
    retryable = True


class StreamCut(ProviderError):
    retryable = True


class ConnectionFailed(ProviderError):
    retryable = True


def error_for_status(status: int, message: str, retry_after: float | None = None) -> ProviderError:
    """The normalized error for an HTTP status whose body said nothing more specific."""
    if status in (401, 403):
        return AuthError(message, status=status)
    if status == 413:
        return PromptTooLong(message, status=status)
    if status == 429:
        return RateLimited(message, status=status, retry_after=retry_after)
    if status == 529:
        return Overloaded(message, status=status, retry_after=retry_after)
    if status >= 500:
        return ServerError(message, status=status, retry_after=retry_after)
    return BadRequest(message, status=status)


_LIMIT_PATTERNS = (
    re.compile(r">\s*([0-9][0-9,]*)\s*maximum"),
    re.compile(r"maximum context length is\s*([0-9][0-9,]*)"),
    re.compile(r"context (?:length|window|size) (?:of|is)\s*([0-9][0-9,]*)"),
)


def stated_context_limit(message: str) -> int | None:
    """The token limit a prompt-too-long message states (Anthropic, OpenAI, vLLM, llama.cpp wordings)."""
    for pattern in _LIMIT_PATTERNS:
        match = pattern.search(message)
        if match:
            return int(match.group(1).replace(",", ""))
    return None


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a ``retry-after`` header (numeric form only), or None."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if seconds >= 0 else None
