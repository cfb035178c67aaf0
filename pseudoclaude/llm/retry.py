"""The one retry policy: exponential backoff with jitter, honouring retry-after.

The SDKs' own retries are switched off (``max_retries=0``) so this is the only
place a request is repeated. A retry restarts the whole stream; the consumer
sees a ``Retrying`` item first and must drop whatever partial output it held,
so a retried turn never keeps a partial assistant message twice.
"""

from __future__ import annotations

import asyncio
import random
from contextlib import aclosing
from dataclasses import dataclass
from typing import AsyncGenerator, Awaitable, Callable, Union

from pseudoclaude.llm.errors import ProviderError
from pseudoclaude.llm.provider import Provider, Request, StreamEvent


@dataclass(frozen=True)
class RetryPolicy:
    """``max_attempts`` counts the first try. Delays grow as base * 2**n, capped, with +/- jitter."""

    max_attempts: int = 5
    base_delay: float = 1.0
    max_delay: float = 30.0
    max_retry_after: float = 60.0
    jitter: float = 0.2

    def delay(self, retry_number: int, error: ProviderError, rng: random.Random | None = None) -> float:
        if error.retry_after is not None:
            return float(min(error.retry_after, self.max_retry_after))
        raw = min(self.max_delay, self.base_delay * (2 ** (retry_number - 1)))
        spread = raw * self.jitter
        jitter: float = (rng or random).uniform(-spread, spread)
        return float(max(0.0, raw + jitter))


@dataclass(frozen=True)
class Retrying:
    """A failed attempt that will be tried again after ``delay`` seconds."""

    attempt: int
    max_attempts: int
    delay: float
    error: ProviderError


RetryItem = Union[StreamEvent, Retrying]
Sleep = Callable[[float], Awaitable[None]]


async def stream_with_retry(
    provider: Provider,
    request: Request,
    policy: RetryPolicy = RetryPolicy(),
    *,
    sleep: Sleep = asyncio.sleep,
) -> AsyncGenerator[RetryItem, None]:
    """Stream ``request``, retrying retryable errors; the last error is raised when attempts run out."""
    attempt = 1
    while True:
        try:
            async with aclosing(provider.stream(request)) as events:
                async for event in events:
                    yield event
            return
        except ProviderError as error:
            if not error.retryable or attempt >= policy.max_attempts:
                raise
            delay = policy.delay(attempt, error)
            yield Retrying(attempt=attempt, max_attempts=policy.max_attempts, delay=delay, error=error)
            await sleep(delay)
            attempt += 1
