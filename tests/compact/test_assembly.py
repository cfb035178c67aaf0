"""How a compaction assembles its result: what the summary did not cover stays, and the tail gives way to the threshold."""

from __future__ import annotations

import asyncio
from typing import Sequence

from pseudoclaude.compact import BytesEstimator, ContextState, force_compact, manage_context
from pseudoclaude.llm import Message, Request, ToolSpec
from tests.compact.support import SummaryProvider, tool_round
from tests.fakes.scripted import validate_conversation

SPEC = ToolSpec("read_file", "Read a file", {"type": "object"})
TASK = "Read every page of the report and list the figures"
UNSEEN = "Pages 1-4 hold the 2019 figures; the answer the summary never saw."


def shape(messages: Sequence[Message]) -> Request:
    return Request(model="m", system="the agent", messages=tuple(messages), tools=(SPEC,), max_tokens=4096)


def _pages(rounds: int, size: int) -> list[Message]:
    out = [Message.user(TASK)]
    for n in range(rounds):
        out += tool_round([(f"c{n}", f"page {n} " + "x" * size)], text=f"reading page {n}")
    return out


def test_messages_after_the_cached_prefix_stay_verbatim_even_when_the_kept_tail_would_not_reach_them() -> None:
    provider = SummaryProvider()
    state = ContextState(model="m", context_window=32_000, estimator=BytesEstimator())
    sent = _pages(4, 17_000)
    assert not asyncio.run(manage_context(sent, state, provider, shape=shape)).summarized
    pasted = Message.user("Here is the log you asked for:\n" + "2026-11-30 09:12:44 INFO request served in 12 ms\n" * 600)
    outcome = asyncio.run(manage_context([*sent, Message.assistant(UNSEEN), pasted], state, provider, shape=shape))
    (request,) = provider.requests
    assert outcome.summarized and request.messages[: len(sent)] == tuple(sent) and len(request.messages) == len(sent) + 1
    assert validate_conversation(outcome.conversation) is None
    assert [m.text for m in outcome.conversation if m.role == "assistant"][-1] == UNSEEN, "the summary did not cover it"
    assert outcome.conversation[-1].text.endswith(pasted.text)


def test_a_compacted_conversation_still_over_the_threshold_loses_its_oldest_tail_groups_until_it_fits() -> None:
    history = [*_pages(14, 1_200), Message.assistant("all pages read"), Message.user("now list the figures")]

    def compact(overhead: int) -> tuple[ContextState, tuple[Message, ...], tuple[str, ...]]:
        state = ContextState(model="m", context_window=32_000, estimator=BytesEstimator(), overhead=overhead)
        outcome = asyncio.run(force_compact(history, state, SummaryProvider()))
        assert outcome.summarized and validate_conversation(outcome.conversation) is None
        return state, outcome.conversation, outcome.warnings

    state, roomy, _ = compact(0)
    tight_overhead = state.auto_threshold - state.estimate(roomy) + 1  # the same tail would end one token over
    state, tight, warnings = compact(tight_overhead)
    assert state.estimate(tight) < state.auto_threshold and warnings == ()
    assert 3 < len(tight) < len(roomy) and tight[-1] == roomy[-1], "the oldest groups went, the newest stayed"
    assert state.failures == 0
