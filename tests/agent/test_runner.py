from __future__ import annotations

import asyncio
from contextlib import aclosing
from pathlib import Path
from typing import Any, Sequence

from pseudoclaude.agent.closure import INTERRUPTED_RESULT
from pseudoclaude.agent.events import (
    Event,
    Progress,
    Stop,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    UsageReport,
)
from pseudoclaude.agent import RunConfig, Runner
from pseudoclaude.llm.messages import Message
from pseudoclaude.llm.retry import RetryPolicy
from pseudoclaude.tools.base import Tool, ToolContext, ToolOutput
from tests.agent.tools import READS, CrashingTool, EchoTool, SlowTool, WriterTool
from tests.fakes.script import Call, CutStream, HttpError, Reply, StreamError
from tests.fakes.scripted import ScriptedProvider, call, validate_conversation

FAST_RETRY = RetryPolicy(max_attempts=4, base_delay=0.0, max_delay=0.0)


def make_runner(provider: ScriptedProvider, tools: Sequence[Tool] = (), tmp: Path = Path("."), **config: Any) -> Runner:
    return Runner(
        provider=provider,
        tools=list(tools) or [EchoTool()],
        tool_context=ToolContext(workspace=tmp),
        config=RunConfig(model="scripted-model", system="You are a test.", retry=FAST_RETRY, **config),
    )


def collect(runner: Runner, prompt: str) -> list[Event]:
    async def go() -> list[Event]:
        return [event async for event in runner.run(prompt)]

    return asyncio.run(go())


def test_answer_without_tools_streams_text_and_stops_at_end_turn() -> None:
    provider = ScriptedProvider([Reply(text="Hello there, friend.")])
    events = collect(make_runner(provider), "hi")
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Hello there, friend."
    assert events[-1] == Stop("end_turn", "Hello there, friend.", 1)


def test_tool_round_trip_sends_result_back_to_the_model() -> None:
    provider = ScriptedProvider([Reply(calls=(call("echo", text="abc"),)), Reply(text="done")])
    runner = make_runner(provider)
    events = collect(runner, "use echo")
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [(e.name, dict(e.arguments)) for e in started] == [("echo", {"text": "abc"})]
    assert finished[0].is_error is False
    second = provider.requests[1].messages
    assert second[-1].tool_result is not None and second[-1].tool_result.content == "echo: abc"
    assert events[-1].reason == "end_turn"


def test_malformed_tool_arguments_become_an_error_result_the_model_sees() -> None:
    provider = ScriptedProvider([Reply(calls=(Call("echo", '{"text": "ab'),)), Reply(text="sorry, fixed")])
    runner = make_runner(provider)
    events = collect(runner, "go")
    result = provider.requests[1].messages[-1].tool_result
    assert result is not None and result.is_error and "not a valid JSON object" in result.content
    assert events[-1] == Stop("end_turn", "sorry, fixed", 2)


def test_consecutive_format_errors_end_the_run_cleanly() -> None:
    bad = Reply(calls=(Call("echo", "{nope"),))
    provider = ScriptedProvider([bad, bad, bad, Reply(text="never")])
    events = collect(make_runner(provider, max_format_errors=3), "go")
    assert events[-1].reason == "error" and "malformed" in events[-1].message
    assert len(provider.requests) == 3


def test_unknown_tool_and_crashing_tool_become_error_results() -> None:
    provider = ScriptedProvider([Reply(calls=(call("nosuch"), call("crash"))), Reply(text="ok")])
    runner = make_runner(provider, [EchoTool(), CrashingTool()])
    collect(runner, "go")
    results = [m.tool_result for m in provider.requests[1].messages if m.tool_result]
    assert "Unknown tool 'nosuch'" in results[0].content
    assert "RuntimeError: boom" in results[1].content


def test_max_turns_stops_the_loop() -> None:
    provider = ScriptedProvider(lambda body: Reply(calls=(call("echo", text="again"),)))
    events = collect(make_runner(provider, max_turns=3), "loop forever")
    assert events[-1].reason == "max_turns" and events[-1].turns == 3
    assert validate_conversation(provider.requests[-1].messages) is None


def test_read_only_calls_run_concurrently(tmp_path: Path) -> None:
    slow = SlowTool()
    provider = ScriptedProvider([Reply(calls=(call("slow", seconds=0.3), call("slow", seconds=0.3))), Reply(text="ok")])
    collect(make_runner(provider, [slow], tmp_path), "go")
    assert max(slow.started) < min(slow.finished)


def test_writing_calls_run_one_at_a_time_in_order(tmp_path: Path) -> None:
    writer = WriterTool()
    provider = ScriptedProvider([Reply(calls=tuple(call("write", tag=t) for t in "abc")), Reply(text="ok")])
    collect(make_runner(provider, [writer], tmp_path), "go")
    assert writer.order == ["a", "b", "c"]


def test_retryable_errors_are_retried_with_progress_events() -> None:
    provider = ScriptedProvider([HttpError(429, "rate_limit", retry_after=0), HttpError(529, "overloaded"), Reply(text="finally")])
    events = collect(make_runner(provider), "go")
    retries = [e for e in events if isinstance(e, Progress) and e.kind == "retry"]
    assert [r.data["error"] for r in retries] == ["RateLimited", "Overloaded"]
    assert events[-1] == Stop("end_turn", "finally", 1)


def test_stream_error_after_deltas_is_retried_and_partial_text_never_kept() -> None:
    provider = ScriptedProvider([StreamError(Reply(text="partial answer here"), after_deltas=1), Reply(text="whole answer")])
    runner = make_runner(provider)
    events = collect(runner, "go")
    assistant = [m for m in runner.conversation if m.role == "assistant"]
    assert [m.text for m in assistant] == ["whole answer"]
    assert events[-1].final_text == "whole answer"


def test_cut_mid_tool_call_never_executes_the_partial_call() -> None:
    echo = EchoTool()
    provider = ScriptedProvider([CutStream(Reply(calls=(call("echo", text="x"),))), Reply(text="no tools after all")])
    events = collect(make_runner(provider, [echo]), "go")
    assert echo.calls == []
    assert not any(isinstance(e, ToolCallStarted) for e in events)
    assert events[-1].final_text == "no tools after all"


def test_auth_error_is_not_retried_and_stops_with_error() -> None:
    provider = ScriptedProvider([HttpError(401, "auth", "invalid x-api-key"), Reply(text="unreachable")])
    events = collect(make_runner(provider), "go")
    assert len(provider.requests) == 1
    assert events[-1].reason == "error" and "invalid x-api-key" in events[-1].message


def test_retries_are_bounded() -> None:
    provider = ScriptedProvider(lambda body: HttpError(500, "server"))
    events = collect(make_runner(provider), "go")
    assert len(provider.requests) == FAST_RETRY.max_attempts
    assert events[-1].reason == "error"


def test_usage_is_reported_and_totalled() -> None:
    provider = ScriptedProvider([Reply(calls=(call("echo", text="a"),), input_tokens=100, cache_read_tokens=50), Reply(text="ok", input_tokens=10)])
    runner = make_runner(provider)
    events = collect(runner, "go")
    reports = [e for e in events if isinstance(e, UsageReport)]
    assert reports[-1].total["input_tokens"] == 110 and reports[-1].total["cache_read_tokens"] == 50


def test_hostile_tool_call_ids_are_replaced_before_they_reach_history() -> None:
    provider = ScriptedProvider([Reply(calls=(Call("echo", '{"text":"a"}', id="../../etc/passwd"), Call("echo", '{"text":"b"}', id=""))), Reply(text="ok")])
    runner = make_runner(provider)
    collect(runner, "go")
    ids = [c.id for c in runner.conversation[1].tool_calls]
    assert all(i.startswith("call_") and "/" not in i for i in ids) and len(set(ids)) == 2
    assert validate_conversation(provider.requests[1].messages) is None


def test_cancelling_during_a_tool_round_answers_every_call_in_order(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply(calls=(call("slow", seconds=0.01), call("slow", seconds=30), call("slow", seconds=30))), Reply(text="after")])
    runner = make_runner(provider, [SlowTool()], tmp_path)

    async def go() -> None:
        async def consume() -> None:
            async with aclosing(runner.run("go")) as events:
                async for event in events:
                    if isinstance(event, ToolCallFinished):
                        raise asyncio.CancelledError

        task = asyncio.ensure_future(consume())
        await asyncio.gather(task, return_exceptions=True)
        assert task.cancelled()

    asyncio.run(go())
    tail = runner.conversation[-4:-1]
    assert [m.tool_result.content for m in tail if m.tool_result] == ["slept", INTERRUPTED_RESULT, INTERRUPTED_RESULT]
    assert runner.conversation[-1] == Message.user("[Request interrupted by user]")
    assert validate_conversation(runner.build_request().messages) is None
    follow = collect(runner, "next prompt")
    assert follow[-1] == Stop("end_turn", "after", 1)


def test_cancelling_while_the_model_streams_keeps_the_partial_reply_and_marks_the_interrupt() -> None:
    provider = ScriptedProvider([Reply(text="a long answer in many pieces", text_chunks=8), Reply(text="second")], delay=0.05)
    runner = make_runner(provider)

    async def go() -> None:
        async def consume() -> None:
            async with aclosing(runner.run("go")) as events:
                async for event in events:
                    if isinstance(event, TextDelta):
                        asyncio.current_task().cancel()  # type: ignore[union-attr]

        await asyncio.gather(asyncio.ensure_future(consume()), return_exceptions=True)

    asyncio.run(go())
    assert [m.role for m in runner.conversation] == ["user", "assistant", "user"]
    partial = runner.conversation[1].text
    assert partial and "a long answer in many pieces".startswith(partial) and partial != "a long answer in many pieces"
    assert runner.conversation[2].text == "[Request interrupted by user]"
    follow = collect(runner, "again")
    assert follow[-1].final_text == "second"
    sent = provider.requests[-1].messages
    assert [m.role for m in sent][:2] == ["user", "assistant"] and "again" in sent[-1].text
    assert validate_conversation(sent) is None


def test_an_interrupted_answer_is_billed_for_what_it_streamed_as_the_working_line_counts_it() -> None:
    text = "".join(f"word{n:03d} " for n in range(100))
    provider = ScriptedProvider([Reply(text=text, text_chunks=10)], delay=0.02)
    runner = make_runner(provider)
    seen: list[str] = []

    async def go() -> None:
        async def consume() -> None:
            async with aclosing(runner.run("go")) as events:
                async for event in events:
                    if isinstance(event, TextDelta):
                        seen.append(event.text)
                        if len(seen) == 5:
                            asyncio.current_task().cancel()  # type: ignore[union-attr]

        await asyncio.gather(asyncio.ensure_future(consume()), return_exceptions=True)

    asyncio.run(go())
    streamed = len("".join(seen))
    assert 0 < streamed < len(text)
    assert runner.usage_total.output_tokens == streamed // 4
    assert runner.snapshot().usage_total == runner.usage_total


def test_an_answer_interrupted_after_a_retry_keeps_and_bills_only_the_retried_attempt() -> None:
    provider = ScriptedProvider([StreamError(Reply(text="stale " * 40, text_chunks=10), after_deltas=6), Reply(text="fresh " * 40, text_chunks=10)], delay=0.01)
    runner = make_runner(provider)
    seen: list[str] = []

    async def go() -> None:
        async def consume() -> None:
            async with aclosing(runner.run("go")) as events:
                async for event in events:
                    if isinstance(event, TextDelta) and "fresh" in event.text:
                        seen.append(event.text)
                        if len(seen) == 2:
                            asyncio.current_task().cancel()  # type: ignore[union-attr]

        await asyncio.gather(asyncio.ensure_future(consume()), return_exceptions=True)

    asyncio.run(go())
    kept = [message.text for message in runner.conversation if message.role == "assistant"]
    assert kept == ["".join(seen)], kept  # the failed attempt's words were shown, then dropped with it
    assert runner.usage_total.output_tokens == len("".join(seen)) // 4


def test_a_cancel_that_names_its_cause_is_recorded_as_that_cause() -> None:
    provider = ScriptedProvider([Reply(text="a long answer in many pieces", text_chunks=8)], delay=0.05)
    runner = make_runner(provider)

    async def go() -> None:
        async def consume() -> None:
            async with aclosing(runner.run("go")) as events:
                async for event in events:
                    if isinstance(event, TextDelta):
                        asyncio.current_task().cancel("the process received SIGTERM")  # type: ignore[union-attr]

        await asyncio.gather(asyncio.ensure_future(consume()), return_exceptions=True)

    asyncio.run(go())
    assert runner.conversation[-1].text == "[Request interrupted: the process received SIGTERM]"


def test_repair_runs_on_every_request_so_orphans_never_reach_the_provider() -> None:
    provider = ScriptedProvider([Reply(text="fine")])
    history = [Message.user("first"), Message.assistant("", [call_obj("c1")]), Message.tool("zz", "orphan")]
    runner = Runner(
        provider=provider,
        tools=[EchoTool()],
        tool_context=ToolContext(workspace=Path(".")),
        config=RunConfig(model="scripted-model", system="You are a test.", retry=FAST_RETRY),
        conversation=history,
    )
    events = collect(runner, "second")
    assert events[-1].reason == "end_turn"
    assert validate_conversation(provider.requests[0].messages) is None


def call_obj(call_id: str) -> Any:
    from pseudoclaude.llm.messages import ToolCall

    return ToolCall(call_id, "echo", '{"text":"x"}')


def test_a_message_queued_during_a_tool_round_joins_before_the_next_model_call(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply(calls=(call("slow", seconds=0.05),)), Reply(text="saw both")])
    runner = make_runner(provider, [SlowTool()], tmp_path)

    async def go() -> list[Event]:
        seen: list[Event] = []
        async with aclosing(runner.run("first")) as events:
            async for event in events:
                seen.append(event)
                if isinstance(event, ToolCallStarted):
                    runner.queue.put("also, use tabs")
        return seen

    events = asyncio.run(go())
    second = provider.requests[1].messages
    assert second[-1] == Message.user("also, use tabs") and second[-2].role == "tool"
    assert validate_conversation(second) is None and events[-1].final_text == "saw both"


def test_a_message_queued_while_the_answer_streams_gets_its_own_answer() -> None:
    provider = ScriptedProvider([Reply(text="first answer"), Reply(text="answer to the follow-up")])
    runner = make_runner(provider)

    async def go() -> list[Event]:
        seen: list[Event] = []
        queued = False
        async with aclosing(runner.run("hello")) as events:
            async for event in events:
                seen.append(event)
                if isinstance(event, TextDelta) and len(provider.requests) == 1 and not queued:
                    runner.queue.put("one more thing")
                    queued = True
        return seen

    events = asyncio.run(go())
    assert len(provider.requests) == 2 and provider.requests[1].messages[-1] == Message.user("one more thing")
    assert events[-1].final_text == "answer to the follow-up"


class ModeGate:
    def __init__(self) -> None:
        self.mode = "default"

    async def check(self, tool: Tool, args: Any) -> Any:
        return type("D", (), {"allowed": True, "reason": ""})()

    def mode_instructions(self) -> str:
        return f"MODE={self.mode}"


def test_switching_permission_mode_changes_only_the_suffix_after_the_cached_prefix() -> None:
    provider = ScriptedProvider([Reply(text="a"), Reply(text="b")])
    gate = ModeGate()
    runner = Runner(
        provider=provider,
        tools=[EchoTool()],
        tool_context=ToolContext(workspace=Path(".")),
        config=RunConfig(model="m", system="STABLE", system_suffix="ENV", retry=FAST_RETRY),
        permissions=gate,
    )
    collect(runner, "one")
    gate.mode = "plan"
    collect(runner, "two")
    first, second = provider.requests
    assert first.system == second.system == "STABLE"
    assert (first.system_suffix, second.system_suffix) == ("ENV\n\nMODE=default", "ENV\n\nMODE=plan")


def test_an_overflow_that_compaction_cannot_shrink_stops_without_a_pointless_retry(tmp_path: Path) -> None:
    from pseudoclaude.agent.context import CompactionEngine
    from pseudoclaude.compact import ContextState

    provider = ScriptedProvider([HttpError(400, "context_length", "prompt is too long: 9000 tokens > 8000 maximum"), Reply(text="never")])
    runner = Runner(
        provider=provider,
        tools=[EchoTool()],
        tool_context=ToolContext(workspace=tmp_path),
        config=RunConfig(model="scripted-model", system="s", retry=FAST_RETRY),
        context=CompactionEngine(ContextState(model="scripted-model", context_window=100_000), provider, retry=FAST_RETRY),
    )
    events = collect(runner, "a short question")
    assert events[-1].reason == "context_overflow" and "too long" in events[-1].message
    assert len(provider.requests) == 1


class LimitProbe:
    """A read-only tool that reports the inline result limit the runner gave the tools."""

    name = "probe"
    description = "Report the result limit."
    input_schema: dict[str, Any] = {"type": "object", "properties": {}}
    traits = READS

    async def run(self, args: Any, ctx: ToolContext) -> ToolOutput:
        return ToolOutput(str(ctx.budget.result_limit_bytes))


def test_tools_page_under_the_limit_of_the_window_the_engine_budgets_for(tmp_path: Path) -> None:
    from pseudoclaude.agent.context import CompactionEngine
    from pseudoclaude.compact import Budget, ContextState

    provider = ScriptedProvider([Reply(calls=[call("probe")]), Reply(text="done")])
    runner = Runner(
        provider=provider,
        tools=[LimitProbe()],
        tool_context=ToolContext(workspace=tmp_path),
        config=RunConfig(model="scripted-model", system="s", retry=FAST_RETRY),
        context=CompactionEngine(ContextState(model="scripted-model", context_window=32_000), provider),
    )
    collect(runner, "how much may a tool return?")
    result = provider.requests[1].messages[-1].tool_result
    assert result is not None and result.content == str(Budget.for_window(32_000).single_limit_bytes)


def test_closing_the_stream_after_its_stop_records_no_interrupt() -> None:
    provider = ScriptedProvider([Reply(text="done")])
    runner = make_runner(provider)

    async def go() -> None:
        async with aclosing(runner.run("go")) as events:
            async for event in events:
                if isinstance(event, Stop):
                    break

    asyncio.run(go())
    assert [m.role for m in runner.conversation] == ["user", "assistant"]
