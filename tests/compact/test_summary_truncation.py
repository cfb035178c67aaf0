"""A summary request a local server cut silently is never kept (issue 17's gap): the window is learned and the summary asked
again within it, or the compaction fails with the server's count in the warning."""

from __future__ import annotations

import asyncio
from typing import Callable

import pytest

from pseudoclaude.compact import TRUNCATED_SOURCE, BytesEstimator, ContextOutcome, ContextState, check_truncation, force_compact
from pseudoclaude.compact.summarize import SUMMARY_MESSAGE_PREFIX
from pseudoclaude.llm.errors import PromptTruncated
from pseudoclaude.llm.messages import Message
from pseudoclaude.llm.provider import Request
from pseudoclaude.llm.retry import RetryPolicy
from tests.compact.support import RecordingSession, SummaryProvider, tool_round

WINDOW = 32_768
TAIL_ONLY = "<summary>only the last steps</summary>"
WHOLE = "<summary>refactor the parser: every step</summary>"


def _history(rounds: int = 24, size: int = 4_000) -> list[Message]:
    out = [Message.user("refactor the parser")]
    for i in range(rounds):
        out += tool_round([(f"call{i}", f"output {i} " + "o" * size)], text=f"step {i}")
    out.append(Message.assistant("done so far"))
    out.append(Message.user("now the tests"))
    return out


def _state() -> ContextState:
    return ContextState(model="qwen2.5-coder:7b", context_window=WINDOW, session=RecordingSession())


def _reads(state: ContextState, *cut: bool) -> Callable[[Request], int]:
    """Usage of a server that reads each request whole (about our estimate), or, where ``cut`` says so, a quarter of it."""
    served = [0]

    def prompt_tokens(request: Request) -> int:
        index, served[0] = served[0], served[0] + 1
        whole = state.estimator.count(request.messages)
        return whole // 4 if (cut[index] if index < len(cut) else cut[-1]) else whole

    return prompt_tokens


def _compact(conversation: list[Message], state: ContextState, provider: SummaryProvider, *, local: bool = True) -> ContextOutcome:
    return asyncio.run(force_compact(conversation, state, provider, retry=RetryPolicy(max_attempts=1), trigger="manual", local_server=local))


def _recorded(state: ContextState) -> list[dict[str, object]]:
    assert isinstance(state.session, RecordingSession)
    return [data for kind, data in state.session.events if kind == "compaction"]


def test_a_cut_summary_is_not_kept_the_window_is_learned_and_the_summary_asked_again_within_it() -> None:
    conversation, state = _history(), _state()
    provider = SummaryProvider(answers=[TAIL_ONLY, WHOLE], prompt_tokens=_reads(state, True, False))
    outcome = _compact(conversation, state, provider)
    assert outcome.error is None and outcome.summary == "refactor the parser: every step"
    assert not any("only the last steps" in m.text for m in outcome.conversation)
    assert outcome.conversation[0].text.startswith(SUMMARY_MESSAGE_PREFIX) and "every step" in outcome.conversation[0].text
    assert [data["summary"] for data in _recorded(state)] == ["refactor the parser: every step"]
    first, second = provider.requests
    assert (state.context_window, state.window_source) == (state.estimator.count(first.messages) // 4, TRUNCATED_SOURCE)
    assert state.estimator.count(second.messages) <= state.budget.summary_input_budget("manual")
    assert "refactor the parser" in second.messages[0].text  # the task at the start survives the trim
    (warning,) = [w for w in outcome.warnings if "server read only" in w]
    assert "summary would describe only the end" in warning and "summarizing again" in warning


def test_a_server_that_cuts_the_retry_too_fails_the_compaction_with_its_count() -> None:
    conversation, state = _history(), _state()
    provider = SummaryProvider(answers=[TAIL_ONLY], prompt_tokens=_reads(state, True))
    outcome = _compact(conversation, state, provider)
    assert isinstance(outcome.error, PromptTruncated) and outcome.summary is None
    assert list(outcome.conversation) == conversation and _recorded(state) == []
    assert len(provider.requests) == 2 and state.window_source == TRUNCATED_SOURCE
    assert any(w.startswith("context compaction failed: the server read only") for w in outcome.warnings)


def test_a_cloud_providers_count_is_not_checked() -> None:
    conversation, state = _history(), _state()
    provider = SummaryProvider(answers=[WHOLE], prompt_tokens=_reads(state, True))
    source = state.window_source
    outcome = _compact(conversation, state, provider, local=False)
    assert outcome.summary == "refactor the parser: every step" and len(provider.requests) == 1
    assert (state.context_window, state.window_source) == (WINDOW, source)


def test_a_server_that_counts_less_than_it_counted_before_for_the_same_prompt_cut_it() -> None:
    """Anchored on the previous call's exact count, an unchanged conversation must count at least that again; the
    share of the estimate (the unanchored rule) would let a server that lost a fifth of it pass."""
    state = ContextState(model="m", context_window=128_000, estimator=BytesEstimator())
    messages = [Message.user("go " * 2_000), Message.assistant("reading"), Message.user("on")]
    state.record_usage(5_000, len(messages))
    check_truncation(5_000, messages, state)
    with pytest.raises(PromptTruncated):
        check_truncation(4_000, messages, state)


def test_without_an_anchor_a_count_under_half_the_estimate_is_a_cut() -> None:
    messages = [Message.user("go " * 4_000)]
    estimated = ContextState(model="m", context_window=128_000, estimator=BytesEstimator()).estimate(messages)
    check_truncation(estimated // 2 + 1, messages, ContextState(model="m", context_window=128_000, estimator=BytesEstimator()))
    check_truncation(0, messages, ContextState(model="m", context_window=128_000, estimator=BytesEstimator()))  # no count said
    with pytest.raises(PromptTruncated):
        check_truncation(estimated // 2 - 300, messages, ContextState(model="m", context_window=128_000, estimator=BytesEstimator()))
