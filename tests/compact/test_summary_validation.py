"""A summary that is empty, thinking-only or over its budget is never committed; the paused notice appears once."""

from __future__ import annotations

import asyncio

import pytest

from pseudoclaude.compact import AUTO_FAILURE_LIMIT, ContextOutcome, ContextState, manage_context
from pseudoclaude.llm.messages import Message
from pseudoclaude.llm.retry import RetryPolicy
from tests.compact.support import SummaryProvider, tool_round


def _history(rounds: int = 60, size: int = 7_000) -> list[Message]:
    out = [Message.user("refactor the parser")]
    for i in range(rounds):
        out += tool_round([(f"call{i}", f"output {i} " + "o" * size)], text=f"step {i}")
    out.append(Message.assistant("done so far"))
    out.append(Message.user("now the tests"))
    return out


def _manage(conversation: list[Message], state: ContextState, provider: SummaryProvider) -> ContextOutcome:
    return asyncio.run(manage_context(conversation, state, provider, retry=RetryPolicy(max_attempts=1)))  # type: ignore[arg-type]


def _state() -> ContextState:
    return ContextState(model="claude-test", context_window=128_000)


def _sections(count: int, body: str) -> str:
    return "\n\n".join(f"{n}. Section {n}:\n{body}" for n in range(1, count + 1))


@pytest.mark.parametrize(
    "answer",
    ["", "   \n\t ", "<analysis>only thinking</analysis>", "<analysis>thinking that never closes", "<summary>  </summary>"],
)
def test_an_empty_or_thinking_only_summary_is_a_counted_failure(answer: str) -> None:
    conversation = _history()
    state = _state()
    result = _manage(conversation, state, SummaryProvider(answers=[answer]))
    assert not result.summarized and result.error is not None
    assert list(result.conversation) == conversation
    assert state.failures == 1


def test_a_huge_summary_without_sections_is_never_committed() -> None:
    conversation = _history()
    state = _state()
    result = _manage(conversation, state, SummaryProvider(answers=["<summary>" + "word " * 400_000 + "</summary>"]))
    assert not result.summarized and list(result.conversation) == conversation
    assert state.failures == 1


def test_a_too_long_summary_is_cut_at_a_section_boundary_within_its_budget() -> None:
    state = _state()
    limit = state.budget.summary_max_output_tokens
    body = "detail " * (limit // 12)
    summary = _sections(9, body)
    assert state.count_text(summary) > limit
    result = _manage(_history(), state, SummaryProvider(answers=[f"<summary>{summary}</summary>"]))
    assert result.summarized and result.summary is not None
    assert state.count_text(result.summary) <= limit
    assert result.summary.startswith("1. Section 1:") and "3. Section 3:" in result.summary
    assert "9. Section 9:" not in result.summary and result.summary.rstrip().endswith("detail")
    assert state.failures == 0


def test_an_automatic_summary_never_makes_the_conversation_larger() -> None:
    conversation = [Message.user("go"), Message.assistant("ok"), Message.user("paste " * 110_000)]
    state = _state()
    result = _manage(conversation, state, SummaryProvider())
    assert not result.summarized and result.error is not None
    assert list(result.conversation) == conversation and result.after_tokens <= result.before_tokens
    assert state.failures == 1


def test_the_paused_notice_appears_once_when_the_breaker_trips() -> None:
    conversation = _history()
    state = _state()
    provider = SummaryProvider(answers=[""])
    results = [_manage(conversation, state, provider) for _ in range(AUTO_FAILURE_LIMIT + 5)]
    notices = [w for r in results for w in r.warnings if "paused" in w]
    assert len(notices) == 1
    assert any("paused" in w for w in results[AUTO_FAILURE_LIMIT - 1].warnings)
    assert len(provider.requests) == AUTO_FAILURE_LIMIT
    assert all(r.tripped for r in results[AUTO_FAILURE_LIMIT - 1 :])
