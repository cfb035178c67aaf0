"""A summary covers the prefix the previous request sent (the provider's cache holds it); the newest round stays verbatim."""

from __future__ import annotations

import asyncio
from typing import Sequence

from pseudoclaude.compact import BytesEstimator, ContextState, manage_context
from pseudoclaude.llm import Message, Request, ToolSpec
from tests.compact.support import SummaryProvider, tool_round

SPEC = ToolSpec("read_file", "Read a file", {"type": "object"})
TASK = "Read every page of the report and list the figures"


def shape(messages: Sequence[Message]) -> Request:
    return Request(model="m", system="the agent", messages=tuple(messages), tools=(SPEC,), max_tokens=4096)


def session(rounds: int, size: int) -> list[Message]:
    out = [Message.user(TASK)]
    for n in range(rounds):
        out += tool_round([(f"c{n}", f"page {n} " + "x" * size)], text=f"reading page {n}")
    return out


def state() -> ContextState:
    return ContextState(model="m", context_window=32_000, estimator=BytesEstimator())


def test_when_the_whole_history_does_not_fit_the_summary_is_asked_for_the_previously_sent_prefix() -> None:
    provider, context = SummaryProvider(), state()
    sent = session(4, 17_000)
    newest = tool_round([("c9", "the newest page " + "y" * 28_000)], text="reading the newest page")
    first = asyncio.run(manage_context(sent, context, provider, shape=shape))
    assert not first.summarized and provider.requests == []
    outcome = asyncio.run(manage_context([*sent, *newest], context, provider, shape=shape))
    (request,) = provider.requests
    assert request.tools == (SPEC,) and request.messages[: len(sent)] == tuple(sent) and len(request.messages) == len(sent) + 1
    assert outcome.summarized and outcome.conversation[-2:] == tuple(newest)
    assert outcome.after_tokens < context.auto_threshold


def test_without_a_previous_request_the_history_that_does_not_fit_goes_as_a_transcript() -> None:
    provider = SummaryProvider()
    history = [*session(4, 17_000), *tool_round([("c9", "the newest page " + "y" * 28_000)])]
    outcome = asyncio.run(manage_context(history, state(), provider, shape=shape))
    (request,) = provider.requests
    assert outcome.summarized and request.tools == () and len(request.messages) == 1


def test_a_newest_round_too_large_to_keep_beside_a_summary_is_summarized_with_the_rest() -> None:
    provider, context = SummaryProvider(), state()
    sent = session(2, 17_000)
    asyncio.run(manage_context(sent, context, provider, shape=shape))
    huge = tool_round([("c9", "the huge page " + "y" * 78_000)])
    outcome = asyncio.run(manage_context([*sent, *huge], context, provider, shape=shape))
    (request,) = provider.requests
    assert outcome.summarized and request.tools == ()


def test_a_newest_round_no_larger_than_the_kept_tail_is_kept_and_the_cached_prefix_summarized() -> None:
    provider, context = SummaryProvider(), state()
    sent = session(5, 16_800)
    newest = tool_round([("c9", "a shorter page " + "z" * 7_000)], text="one more")
    asyncio.run(manage_context(sent, context, provider, shape=shape))
    outcome = asyncio.run(manage_context([*sent, *newest], context, provider, shape=shape))
    (request,) = provider.requests
    assert request.messages[:-1] == tuple(sent) and outcome.conversation[-2:] == tuple(newest)


def test_the_providers_count_of_the_sent_prefix_decides_whether_it_fits_in_place_not_our_estimate() -> None:
    """Our estimate of the prefix here is a third over what the provider counted; on the provider's count it fits, so
    the summary is asked in place (cached) instead of as a transcript (nothing of it cached)."""
    provider = SummaryProvider()
    context = ContextState(model="m", context_window=32_000, estimator=BytesEstimator(bytes_per_token=2.0))
    sent = session(3, 19_000)
    context.record_usage(22_000, len(sent))
    assert not asyncio.run(manage_context(sent, context, provider, shape=shape)).summarized
    assert context.estimator.count(sent) > context.budget.summary_input_budget("manual")
    newest = tool_round([("c9", "the newest page " + "y" * 10_000)], text="reading the newest page")
    outcome = asyncio.run(manage_context([*sent, *newest], context, provider, shape=shape))
    (request,) = provider.requests
    assert outcome.summarized and request.tools == (SPEC,) and request.messages[: len(sent)] == tuple(sent)
