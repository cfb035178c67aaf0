from __future__ import annotations

import asyncio
import re
from typing import AsyncIterator, Sequence

import pytest

from pseudoclaude.compact import EmptySummary, extract_summary, summarize
from pseudoclaude.llm.errors import Overloaded, PromptTooLong, RateLimited
from pseudoclaude.llm.messages import Message, ToolCall, ToolSpec
from pseudoclaude.llm.provider import Completed, Request, StreamEvent, TextChunk
from pseudoclaude.llm.retry import RetryPolicy
from tests.compact.support import SummaryProvider, tool_round

NINE_PARTS = (
    "Primary Request and Intent",
    "Key Technical Concepts",
    "Files and Code Sections",
    "Errors and Fixes",
    "Problem Solving",
    "All User Messages",
    "Pending Tasks",
    "Current Work",
    "Next Step",
)


def _history(rounds: int, size: int = 1_000) -> list[Message]:
    out = [Message.user("please fix the build")]
    for i in range(rounds):
        out += tool_round([(f"call{i}", f"result {i} " + "r" * size)], text=f"step {i}")
    return out


def _run(provider: SummaryProvider, messages: list[Message], budget: int = 100_000, **kwargs: object) -> str:
    return asyncio.run(summarize(provider, "m", messages, budget_tokens=budget, **kwargs))  # type: ignore[arg-type]


def test_analysis_is_stripped_and_summary_kept() -> None:
    assert extract_summary("<analysis>secret</analysis>\n<summary>\nkept\n</summary>") == "kept"


def test_last_summary_block_wins() -> None:
    assert extract_summary("<summary>draft</summary> more <summary>final</summary>") == "final"


def test_reply_without_tags_is_kept_whole_minus_analysis() -> None:
    assert extract_summary("<analysis>scratch</analysis>plain answer") == "plain answer"
    assert extract_summary("plain answer") == "plain answer"


def test_truncated_summary_block_keeps_its_text() -> None:
    assert extract_summary("<analysis>a</analysis><summary>cut off here") == "cut off here"


def test_request_has_no_tools_and_one_user_message() -> None:
    provider = SummaryProvider()
    assert _run(provider, _history(3)) == "the summary"
    (request,) = provider.requests
    assert request.tools == ()
    assert [m.role for m in request.messages] == ["user"]
    prompt = request.messages[0].text
    assert prompt.startswith("CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.")
    assert all(part in prompt for part in NINE_PARTS)
    assert "<analysis>" in prompt and "<summary>" in prompt
    assert "[tool call call2: read_file]" in prompt and "result 2" in prompt


def test_focus_instructions_reach_the_prompt() -> None:
    provider = SummaryProvider()
    _run(provider, _history(1), instructions="the database migration")
    assert "the database migration" in provider.requests[0].messages[0].text


def test_empty_summary_is_an_error() -> None:
    with pytest.raises(EmptySummary):
        _run(SummaryProvider(answers=["<analysis>only thinking</analysis>"]), _history(1))


def test_other_errors_are_not_retried_by_dropping_history() -> None:
    provider = SummaryProvider(answers=[RateLimited("slow down")])
    with pytest.raises(RateLimited):
        _run(provider, _history(2), retry=RetryPolicy(max_attempts=1))
    assert len(provider.requests) == 1


def test_a_rate_limited_summary_is_retried_with_the_same_transcript() -> None:
    provider = SummaryProvider(answers=[RateLimited("slow down"), "<summary>ok</summary>"])
    assert _run(provider, _history(2), retry=RetryPolicy(base_delay=0.0, max_delay=0.0)) == "ok"
    first, second = provider.requests
    assert first == second


def _pairs_intact(prompt: str) -> bool:
    calls = set(re.findall(r"\[tool call (\w+):", prompt))
    results = set(re.findall(r"\[tool result for call (\w+)\]", prompt))
    return calls == results


def test_prompt_too_long_retries_three_times_dropping_whole_rounds() -> None:
    provider = SummaryProvider(answers=[PromptTooLong("too long")] * 3 + ["<summary>ok</summary>"])
    assert _run(provider, _history(40)) == "ok"
    assert len(provider.requests) == 4
    sizes = [len(r.messages[0].text) for r in provider.requests]
    assert sizes == sorted(sizes, reverse=True) and len(set(sizes)) == 4
    assert all(_pairs_intact(r.messages[0].text) for r in provider.requests)
    assert "step 39" in provider.requests[-1].messages[0].text


def test_prompt_too_long_gives_up_after_the_retry_limit() -> None:
    provider = SummaryProvider(answers=[PromptTooLong("too long")])
    with pytest.raises(PromptTooLong):
        _run(provider, _history(40))
    assert len(provider.requests) == 4


def test_input_is_trimmed_to_the_budget_before_sending() -> None:
    provider = SummaryProvider()
    _run(provider, _history(40, size=3_500), budget=12_000)
    prompt = provider.requests[0].messages[0].text
    assert len(prompt.encode()) / 3.5 <= 12_000
    assert "earlier messages omitted" in prompt
    assert "step 39" in prompt and "step 0\n" not in prompt
    assert _pairs_intact(prompt)


def test_previous_summary_is_dropped_last() -> None:
    from pseudoclaude.compact.manage import compacted_conversation

    history = compacted_conversation("OLD SUMMARY", []) + _history(40, size=3_500)[1:]
    provider = SummaryProvider()
    _run(provider, history, budget=12_000)
    assert "OLD SUMMARY" in provider.requests[0].messages[0].text


class _CutThenStreamProvider:
    """First attempt: part of a reply, then a 529; second: a reply streamed without a closing message."""

    def __init__(self) -> None:
        self.attempts = 0

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        self.attempts += 1
        if self.attempts == 1:
            yield TextChunk("<summary>half of a first try")
            raise Overloaded("overloaded")
        yield TextChunk("<summary>the second try</summary>")

    async def aclose(self) -> None:
        return None


def test_text_from_a_failed_attempt_is_dropped_when_the_summary_is_retried() -> None:
    provider = _CutThenStreamProvider()
    summary = asyncio.run(summarize(provider, "m", _history(2), budget_tokens=100_000, retry=RetryPolicy(base_delay=0.0, max_delay=0.0)))
    assert summary == "the second try" and provider.attempts == 2


SPEC = ToolSpec("read_file", "Read a file", {"type": "object"})


def _shape(messages: Sequence[Message]) -> Request:
    return Request(model="m", system="the agent's prompt", system_suffix="today", messages=tuple(messages), tools=(SPEC,), max_tokens=4096)


def test_with_a_shape_the_request_is_the_main_request_plus_the_instruction_and_nothing_else_changed() -> None:
    provider = SummaryProvider()
    history = _history(3)
    assert _run(provider, history, shape=_shape, max_tokens=2000, memory="fact") == "the summary"
    (request,) = provider.requests
    main = _shape(history)
    assert (request.model, request.system, request.system_suffix, request.tools) == (main.model, main.system, main.system_suffix, main.tools)
    assert request.tool_choice == main.tool_choice == "auto" and request.max_tokens == 2000
    assert "CRITICAL: Respond with TEXT ONLY" in request.messages[-1].text
    assert tuple(request.messages[:-1]) == tuple(main.messages)
    instruction = request.messages[-1]
    assert instruction.role == "user" and all(part in instruction.text for part in NINE_PARTS) and "fact" in instruction.text


def test_an_instruction_after_a_user_message_is_merged_into_it_so_roles_alternate() -> None:
    provider = SummaryProvider()
    history = [*_history(2), Message.assistant("done"), Message.user("now the tests")]
    _run(provider, history, shape=_shape, instructions="the tests")
    (request,) = provider.requests
    assert tuple(request.messages[:-1]) == tuple(history[:-1])
    last = request.messages[-1]
    assert last.role == "user" and last.text.startswith("now the tests\n\n") and "focus on:\nthe tests" in last.text


def test_when_the_whole_conversation_does_not_fit_the_transcript_form_is_sent_trimmed() -> None:
    provider = SummaryProvider()
    history = _history(12, size=4_000)
    _run(provider, history, budget=6_000, shape=_shape)
    (request,) = provider.requests
    assert request.tools == () and len(request.messages) == 1 and "earlier messages omitted" in request.messages[0].text


def test_the_in_place_budget_and_the_prompt_tokens_decide_the_form() -> None:
    history = _history(3)
    fits, overhead = SummaryProvider(), SummaryProvider()
    _run(fits, history, budget=10, shape=_shape, in_place_budget_tokens=100_000)
    _run(overhead, history, shape=_shape, prompt_tokens=99_800)
    assert fits.requests[0].tools == (SPEC,) and overhead.requests[0].tools == ()


def test_a_prompt_too_long_in_place_falls_back_to_the_transcript() -> None:
    provider = SummaryProvider([PromptTooLong("prompt is too long"), "<summary>from the transcript</summary>"])
    assert _run(provider, _history(3), shape=_shape) == "from the transcript"
    in_place, transcript = provider.requests
    assert in_place.tools == (SPEC,) and transcript.tools == () and len(transcript.messages) == 1


def test_an_in_place_reply_that_calls_a_tool_is_a_failed_attempt_retried_in_place() -> None:
    class CallsOnce(SummaryProvider):
        async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
            self.requests.append(request)
            if len(self.requests) == 1:
                yield Completed(Message.assistant("<summary>with a call</summary>", [ToolCall("c1", "read_file", "{}")]))
            else:
                yield Completed(Message.assistant("<summary>text only</summary>"))

    provider = CallsOnce()
    assert _run(provider, _history(2), shape=_shape) == "text only"
    assert [bool(r.tools) for r in provider.requests] == [True, True]


def test_in_place_replies_that_keep_calling_tools_fall_back_to_the_transcript() -> None:
    class AlwaysCalls(SummaryProvider):
        async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
            self.requests.append(request)
            if request.tools:
                yield Completed(Message.assistant("<summary>ignored</summary>", [ToolCall("c1", "read_file", "{}")]))
            else:
                yield Completed(Message.assistant("<summary>from the transcript</summary>"))

    provider = AlwaysCalls()
    assert _run(provider, _history(2), shape=_shape) == "from the transcript"
    assert [bool(r.tools) for r in provider.requests] == [True, True, False]
