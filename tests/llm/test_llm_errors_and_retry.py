from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from pseudoclaude.llm.errors import (
    AuthError,
    BadRequest,
    ConnectionFailed,
    Overloaded,
    PromptTooLong,
    RateLimited,
    ServerError,
    StreamCut,
    error_for_status,
    parse_retry_after,
    stated_context_limit,
)
from pseudoclaude.llm.messages import Message
from pseudoclaude.llm.provider import Request
from pseudoclaude.llm.retry import Retrying, RetryPolicy, stream_with_retry
from tests.fakes.script import HttpError, Reply
from tests.fakes.scripted import ScriptedProvider


@pytest.mark.parametrize(
    "message, limit",
    [
        ("prompt is too long: 212345 tokens > 200000 maximum", 200_000),
        ("This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.", 128_000),
        ("the request exceeds the available context size, context size of 8192", 8192),
        ("requested tokens (9000) exceed context window of 8192", 8192),
        ("something else went wrong", None),
    ],
)
def test_the_stated_window_is_read_from_overflow_messages(message: str, limit: int | None) -> None:
    assert stated_context_limit(message) == limit
    assert PromptTooLong(message).limit_tokens == limit


@pytest.mark.parametrize(
    "status, kind, retryable",
    [
        (401, AuthError, False),
        (403, AuthError, False),
        (413, PromptTooLong, False),
        (429, RateLimited, True),
        (529, Overloaded, True),
        (500, ServerError, True),
        (503, ServerError, True),
        (400, BadRequest, False),
    ],
)
def test_status_codes_map_to_the_tree_with_retryability_as_data(status: int, kind: type, retryable: bool) -> None:
    error = error_for_status(status, "x")
    assert type(error) is kind and error.retryable is retryable


def test_cuts_and_connection_failures_are_retryable() -> None:
    assert StreamCut("x").retryable and ConnectionFailed("x").retryable


def test_retry_after_parsing() -> None:
    assert parse_retry_after("2.5") == 2.5 and parse_retry_after("soon") is None and parse_retry_after(None) is None


def test_backoff_grows_is_capped_and_honours_retry_after() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=8.0, jitter=0.0)
    delays = [policy.delay(n, ServerError("x")) for n in range(1, 7)]
    assert delays == [1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    assert policy.delay(1, RateLimited("x", retry_after=30.0)) == 30.0
    assert policy.delay(1, RateLimited("x", retry_after=3600.0)) == policy.max_retry_after


def test_jitter_stays_within_its_spread() -> None:
    policy = RetryPolicy(base_delay=10.0, max_delay=10.0, jitter=0.2)
    rng = random.Random(7)
    assert all(8.0 <= policy.delay(1, ServerError("x"), rng) <= 12.0 for _ in range(200))


def test_stream_with_retry_sleeps_as_the_policy_says_then_succeeds() -> None:
    provider = ScriptedProvider([HttpError(429, "rate_limit", retry_after=1.5), HttpError(500, "server"), Reply(text="ok")])
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    async def go() -> list[Any]:
        request = Request(model="m", system="s", messages=[Message.user("hi")])
        return [item async for item in stream_with_retry(provider, request, RetryPolicy(base_delay=0.5, jitter=0.0), sleep=sleep)]

    items = asyncio.run(go())
    assert [type(i).__name__ for i in items if isinstance(i, Retrying)] == ["Retrying", "Retrying"]
    assert slept == [1.5, 1.0]


def test_non_retryable_errors_are_raised_at_once() -> None:
    provider = ScriptedProvider([HttpError(400, "invalid_request", "bad"), Reply(text="never")])

    async def go() -> None:
        request = Request(model="m", system="s", messages=[Message.user("hi")])
        async for _ in stream_with_retry(provider, request, RetryPolicy(base_delay=0.0)):
            pass

    with pytest.raises(BadRequest):
        asyncio.run(go())
    assert len(provider.requests) == 1
