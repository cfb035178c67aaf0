"""Clearing old tool results only once the prompt cache has gone cold."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pseudoclaude.compact import ContextState, manage_context
from pseudoclaude.compact.clear import (
    CLEARED_RESULT,
    COLD_CACHE_SECONDS,
    KEEP_RECENT_TOOL_RESULTS,
)
from pseudoclaude.llm.messages import Message, ToolCall
from pseudoclaude.tools import builtin_registry
from tests.compact.support import RecordingSession, SummaryProvider
from tests.fakes.scripted import validate_conversation


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def history(rounds: int, tool: str = "read_file") -> list[Message]:
    out = [Message.user("go")]
    for n in range(rounds):
        out += [Message.assistant(f"step {n}", [ToolCall(f"c{n}", tool, '{"path": "x"}')]), Message.tool(f"c{n}", f"result {n} " * 50)]
    return out + [Message.assistant("done"), Message.user("next?")]


CLEARABLE = builtin_registry().clearable_names()


def runtime_with(clock: Clock, recorder: RecordingSession | None = None) -> ContextState:
    runtime = ContextState(model="m", context_window=200_000, session=recorder, clock=clock, clearable_tools=CLEARABLE)
    runtime.record_usage(5_000, 3)
    return runtime


def results(conversation: list[Message]) -> list[str]:
    return [m.tool_result.content for m in conversation if m.tool_result is not None]


def test_nothing_is_cleared_while_the_cache_is_warm() -> None:
    clock = Clock()
    runtime = runtime_with(clock)
    clock.now += COLD_CACHE_SECONDS - 1
    result = asyncio.run(manage_context(history(12), runtime, SummaryProvider()))
    assert result.count("clear") == 0 and CLEARED_RESULT not in results(result.conversation)


def test_after_a_long_pause_old_observations_are_cleared_and_the_recent_ones_kept() -> None:
    clock, recorder = Clock(), RecordingSession()
    runtime = runtime_with(clock, recorder)
    clock.now += COLD_CACHE_SECONDS
    result = asyncio.run(manage_context(history(12), runtime, SummaryProvider()))
    contents = results(result.conversation)
    assert result.count("clear") == 12 - KEEP_RECENT_TOOL_RESULTS
    assert contents[: 12 - KEEP_RECENT_TOOL_RESULTS] == [CLEARED_RESULT] * (12 - KEEP_RECENT_TOOL_RESULTS)
    assert all(c.startswith("result") for c in contents[12 - KEEP_RECENT_TOOL_RESULTS :])
    assert validate_conversation(result.conversation) is None
    recorded = [data for kind, data in recorder.events if kind == "replacement"]
    assert len(recorded) == result.count("clear") and all(d["path"] == "" and d["preview"] == CLEARED_RESULT for d in recorded)
    assert all(d["layer"] == "clear" and d["resets_anchor"] is True for d in recorded), "a replay must drop the anchor there"
    assert not any(d["drops_images"] for d in recorded), "results without images drop none"
    assert runtime.anchor is None


def test_state_carrying_tools_are_never_cleared() -> None:
    clock = Clock()
    runtime = runtime_with(clock)
    clock.now += 10 * COLD_CACHE_SECONDS
    result = asyncio.run(manage_context(history(12, tool="todo_write"), runtime, SummaryProvider()))
    assert result.count("clear") == 0


def test_a_runtime_told_of_no_clearable_tools_clears_nothing() -> None:
    clock = Clock()
    runtime = ContextState(model="m", context_window=200_000, clock=clock)
    runtime.record_usage(5_000, 3)
    clock.now += 10 * COLD_CACHE_SECONDS
    assert asyncio.run(manage_context(history(12), runtime, SummaryProvider())).count("clear") == 0


def test_clearing_happens_once_and_then_the_prefix_is_stable_again() -> None:
    clock = Clock()
    runtime = runtime_with(clock)
    clock.now += COLD_CACHE_SECONDS
    first = asyncio.run(manage_context(history(12), runtime, SummaryProvider()))
    runtime.record_usage(3_000, len(first.conversation))
    again = asyncio.run(manage_context([*first.conversation, Message.user("more")], runtime, SummaryProvider()))
    assert again.count("clear") == 0
    assert again.conversation[: len(first.conversation)] == first.conversation


def test_a_second_long_pause_clears_only_what_aged_since_and_records_nothing_twice() -> None:
    clock, recorder = Clock(), RecordingSession()
    runtime = runtime_with(clock, recorder)
    clock.now += COLD_CACHE_SECONDS
    first = asyncio.run(manage_context(history(12), runtime, SummaryProvider()))
    runtime.record_usage(3_000, len(first.conversation))
    later = [*first.conversation]
    for n in range(12, 15):
        later += [Message.assistant(f"step {n}", [ToolCall(f"c{n}", "read_file", '{"path": "x"}')]), Message.tool(f"c{n}", f"result {n} " * 50)]
    clock.now += COLD_CACHE_SECONDS
    again = asyncio.run(manage_context([*later, Message.user("and now?")], runtime, SummaryProvider()))
    assert (first.count("clear"), again.count("clear")) == (12 - KEEP_RECENT_TOOL_RESULTS, 3)
    assert results(again.conversation)[: 15 - KEEP_RECENT_TOOL_RESULTS] == [CLEARED_RESULT] * (15 - KEEP_RECENT_TOOL_RESULTS)
    assert len([data for kind, data in recorder.events if kind == "replacement"]) == 15 - KEEP_RECENT_TOOL_RESULTS


def test_a_resumed_session_sends_the_cleared_text(tmp_path: Path) -> None:
    clock = Clock()
    runtime = runtime_with(clock)
    clock.now += COLD_CACHE_SECONDS
    first = asyncio.run(manage_context(history(8), runtime, SummaryProvider()))
    restored = ContextState(
        model="m",
        context_window=200_000,
        replacements=runtime.replacements,
        clock=clock,
        last_call_at=clock.now,
        clearable_tools=CLEARABLE,
    )
    again = asyncio.run(manage_context(history(8), restored, SummaryProvider()))
    assert results(again.conversation) == results(first.conversation)
