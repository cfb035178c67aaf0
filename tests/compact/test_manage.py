from __future__ import annotations

import asyncio
from pathlib import Path

from pseudoclaude.compact import (
    AUTO_FAILURE_LIMIT,
    ContextOutcome,
    ContextState,
    force_compact,
    manage_context,
)
from pseudoclaude.compact.summarize import SUMMARY_MESSAGE_PREFIX
from pseudoclaude.llm.errors import AuthError, Overloaded, PromptTooLong, ServerError
from pseudoclaude.llm.retry import RetryPolicy
from pseudoclaude.llm.messages import Message
from tests.compact.support import RecordingSession, SummaryProvider, tool_round
from tests.fakes.scripted import validate_conversation


def _runtime(tmp_path: Path | None, window: int = 128_000, session: RecordingSession | None = None, **kwargs: object) -> ContextState:
    """A state whose session spills into ``tmp_path`` (None: no session, unless one is given)."""
    if session is None and tmp_path is not None:
        session = RecordingSession()
    if session is not None:
        session.spill_dir = tmp_path
    return ContextState(model="claude-test", context_window=window, session=session, **kwargs)  # type: ignore[arg-type]


def _long_history(rounds: int = 60, size: int = 7_000) -> list[Message]:
    out = [Message.user("refactor the parser")]
    for i in range(rounds):
        out += tool_round([(f"call{i}", f"output {i} " + "o" * size)], text=f"step {i}")
    out.append(Message.assistant("done so far"))
    out.append(Message.user("now the tests"))
    return out  # ~120k estimated tokens at 60 rounds


ONE_TRY = RetryPolicy(max_attempts=1)
"""Where a test counts summary failures, each failure is one request (the retry policy has its own tests)."""


def _manage(conversation: list[Message], runtime: ContextState, provider: SummaryProvider, **kwargs: object) -> ContextOutcome:
    kwargs.setdefault("retry", ONE_TRY)
    return asyncio.run(manage_context(conversation, runtime, provider, **kwargs))  # type: ignore[arg-type]


def test_below_threshold_nothing_happens() -> None:
    conversation = _long_history(rounds=3)
    provider = SummaryProvider()
    result = _manage(conversation, _runtime(None), provider)
    assert list(result.conversation) == conversation
    assert not result.action("offload") and not result.summarized
    assert result.before_tokens == result.after_tokens
    assert provider.requests == []


def test_over_threshold_compacts_to_meta_messages_and_recent_tail() -> None:
    conversation = _long_history()
    runtime = _runtime(None)
    result = _manage(conversation, runtime, SummaryProvider())
    assert result.summarized and result.summary == "the summary"
    assert result.before_tokens >= runtime.auto_threshold > result.after_tokens
    first, ack, reminder = result.conversation[:3]
    assert first.text.startswith(SUMMARY_MESSAGE_PREFIX) and first.text.endswith("the summary")
    assert ack.role == "assistant"
    assert reminder.role == "user" and "not the original" in reminder.text
    tail = list(result.conversation[3:])
    assert tail == conversation[-len(tail) :] and len(tail) >= 5
    assert validate_conversation(result.conversation) is None
    assert "<analysis>" not in first.text


def test_recent_tool_closure_is_kept_whole() -> None:
    conversation = _long_history()
    conversation = conversation[:-2]  # ends with a tool result
    result = _manage(conversation, _runtime(None), SummaryProvider())
    assert validate_conversation(result.conversation) is None
    assert result.conversation[-1] == conversation[-1]


def test_compaction_resets_the_anchor_and_is_recorded() -> None:
    session = RecordingSession()
    runtime = _runtime(None, session=session, anchor=(50_000, 3))
    result = _manage(_long_history(), runtime, SummaryProvider())
    assert runtime.anchor is None
    ((kind, entry),) = session.events
    assert kind == "compaction" and entry["messages"] == list(result.conversation) and entry["trigger"] == "auto"
    assert entry["before"] == result.before_tokens and entry["after"] == result.after_tokens


def test_layer1_runs_first_and_can_avoid_layer2(tmp_path: Path) -> None:
    runtime = _runtime(tmp_path)
    conversation = [Message.user("read it"), *tool_round([("big", "z" * 400_000)])]
    provider = SummaryProvider()
    result = _manage(conversation, runtime, provider)
    assert result.action("offload") and result.count("offload") == 1
    assert not result.summarized and provider.requests == []
    assert result.before_tokens >= runtime.auto_threshold > result.after_tokens


def test_spill_failure_warns_and_the_run_goes_on(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    conversation = [Message.user("read it"), *tool_round([("big", "z" * 60_000)])]
    result = _manage(conversation, _runtime(blocker), SummaryProvider())
    assert result.error is None and result.warnings
    assert list(result.conversation) == conversation


def test_breaker_trips_after_three_automatic_failures() -> None:
    runtime = _runtime(None)
    provider = SummaryProvider(answers=[ServerError("boom")])
    conversation = _long_history()
    results = [_manage(conversation, runtime, provider) for _ in range(AUTO_FAILURE_LIMIT + 1)]
    assert [r.error is not None for r in results] == [True, True, True, False]
    assert len(provider.requests) == AUTO_FAILURE_LIMIT
    assert results[-1].tripped and not results[0].tripped
    assert not any("/compact" in w for w in results[1].warnings)
    assert any("/compact" in w for w in results[2].warnings), "the failure that trips the breaker says so at once"
    assert not any("/compact" in w for w in results[-1].warnings), "the paused notice appears once, not on every later turn"
    assert list(results[-1].conversation) == conversation


def test_an_overloaded_summary_request_is_retried_by_the_one_retry_policy() -> None:
    provider = SummaryProvider(answers=[Overloaded("529 overloaded"), Overloaded("529 overloaded"), "<summary>after retries</summary>"])
    result = _manage(_long_history(), _runtime(None), provider, retry=RetryPolicy(base_delay=0.0, max_delay=0.0))
    assert result.summary == "after retries" and result.error is None
    assert len(provider.requests) == 3


def test_a_summary_error_that_is_not_retryable_is_sent_once() -> None:
    provider = SummaryProvider(answers=[AuthError("bad key")])
    result = _manage(_long_history(), _runtime(None), provider, retry=RetryPolicy(base_delay=0.0, max_delay=0.0))
    assert isinstance(result.error, AuthError) and len(provider.requests) == 1


def test_failure_count_resets_after_a_success() -> None:
    runtime = _runtime(None)
    provider = SummaryProvider(answers=[ServerError("boom"), ServerError("boom"), "<summary>fine</summary>"])
    for _ in range(3):
        _manage(_long_history(), runtime, provider)
    assert runtime.failures == 0 and not runtime.tripped


def test_manual_compaction_bypasses_the_breaker() -> None:
    runtime = _runtime(None)
    runtime.failures = AUTO_FAILURE_LIMIT
    provider = SummaryProvider()
    result = asyncio.run(force_compact(_long_history(), runtime, provider, instructions="keep the parser notes"))
    assert result.summarized and not result.tripped
    assert runtime.failures == 0
    assert "keep the parser notes" in provider.requests[0].messages[0].text


def test_force_compact_runs_layer1_first(tmp_path: Path) -> None:
    runtime = _runtime(tmp_path)
    conversation = [Message.user("read it"), *tool_round([("big", "z" * 60_000)]), *_long_history(rounds=12, size=4_000), Message.user("more")]
    provider = SummaryProvider()
    result = asyncio.run(force_compact(conversation, runtime, provider))
    assert result.action("offload") and result.summarized
    sent = provider.requests[0].messages[0].text
    assert "[content offloaded]" in sent and "z" * 10_000 not in sent


def test_manual_compaction_of_a_short_history_is_skipped_instead_of_growing_it() -> None:
    conversation = [Message.user("hi"), Message.assistant("hello"), Message.user("how are you?"), Message.assistant("fine")]
    provider = SummaryProvider()
    result = asyncio.run(force_compact(conversation, _runtime(None), provider))
    assert provider.requests == [] and not result.summarized
    assert list(result.conversation) == conversation and "nothing to compact" in result.warnings[0]


def test_manual_margin_lets_the_summary_request_carry_more() -> None:
    conversation = _long_history(rounds=48, size=3_000)
    auto_provider, manual_provider = SummaryProvider(), SummaryProvider()
    runtime = _runtime(None, window=48_000)
    _manage(conversation, runtime, auto_provider)
    asyncio.run(force_compact(conversation, _runtime(None, window=48_000), manual_provider))
    auto_sent = auto_provider.requests[0].messages[0].text
    manual_sent = manual_provider.requests[0].messages[0].text
    assert len(auto_sent.encode()) / 3.5 <= runtime.budget.summary_input_budget("auto")
    assert runtime.budget.summary_input_budget("auto") < len(manual_sent.encode()) / 3.5
    assert len(manual_sent.encode()) / 3.5 <= runtime.budget.summary_input_budget("manual")


def test_summary_prompt_too_long_on_every_try_is_one_failure() -> None:
    runtime = _runtime(None)
    provider = SummaryProvider(answers=[PromptTooLong("too long")])
    result = _manage(_long_history(), runtime, provider)
    assert isinstance(result.error, PromptTooLong)
    assert len(provider.requests) == 4 and runtime.failures == 1


def test_resumed_runtime_sends_the_same_previews(tmp_path: Path) -> None:
    first = _runtime(tmp_path)
    conversation = [Message.user("read"), *tool_round([("big", "q" * 70_000)]), Message.assistant("seen")]
    before = _manage(conversation, first, SummaryProvider())
    resumed = _runtime(tmp_path, replacements=first.replacements, anchor=first.anchor)
    after = _manage(conversation, resumed, SummaryProvider())
    assert after.conversation == before.conversation and after.count("offload") == 0


def test_tail_starting_with_a_user_message_is_merged_into_the_reminder() -> None:
    from pseudoclaude.compact.manage import compacted_conversation

    tail = [Message.user("next question"), Message.assistant("answer")]
    result = compacted_conversation("S", tail)
    assert [m.role for m in result] == ["user", "assistant", "user", "assistant"]
    assert "not the original" in result[2].text and result[2].text.endswith("next question")


def test_second_compaction_keeps_a_user_message_merged_into_the_reminder() -> None:
    from pseudoclaude.compact.manage import compacted_conversation, history_after_meta

    once = compacted_conversation("S", [Message.user("the real question"), Message.assistant("answer")])
    assert history_after_meta(once) == [Message.user("the real question"), Message.assistant("answer")]
