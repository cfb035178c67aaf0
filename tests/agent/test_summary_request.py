"""The automatic summary through the runner: it is the main loop's request plus the instruction, announced first."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, AsyncGenerator, Callable, Mapping

from pseudoclaude.agent.closure import repair
from pseudoclaude.agent.context import CompactionEngine
from pseudoclaude.agent.events import Event, Progress, Stop
from pseudoclaude.agent import RunConfig, Runner
from pseudoclaude.compact import ContextState
from pseudoclaude.llm import Request, RetryPolicy, StreamEvent
from pseudoclaude.tools import ToolContext
from tests.agent.tools import EchoTool
from tests.fakes.script import Reply, Step, is_summary_request
from tests.fakes.scripted import ScriptedProvider, call

WINDOW = 40_000
ROUNDS = 40


def make_responder() -> Callable[[Mapping[str, Any]], Step]:
    """Echo calls of ~1k tokens each for ``ROUNDS`` main requests, then an answer; summary requests get a summary."""
    rounds = 0

    def respond(body: Mapping[str, Any]) -> Step:
        nonlocal rounds
        if is_summary_request(body):
            return Reply(text="<analysis>draft</analysis><summary>We echoed many chunks.</summary>")
        rounds += 1
        if rounds > ROUNDS:
            return Reply(text="all echoed")
        return Reply(text=f"chunk {rounds}", calls=(call("echo", text=f"chunk {rounds} " + "z" * 3_000),))

    return respond


def _body(request: Request) -> dict[str, Any]:
    return {"messages": [message.to_dict() for message in request.messages]}


@dataclass
class LoggingProvider(ScriptedProvider):
    """Notes each request in a log the test's event consumer also writes to."""

    log: list[str] = field(default_factory=list)

    async def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        self.log.append("summary request" if is_summary_request(_body(request)) else "main request")
        async for event in super().stream(request):
            yield event


def play(tmp_path: Path) -> tuple[LoggingProvider, list[Event]]:
    provider = LoggingProvider(make_responder())
    retry = RetryPolicy(max_attempts=1)
    runner = Runner(
        provider=provider,
        tools=[EchoTool()],
        tool_context=ToolContext(workspace=tmp_path),
        config=RunConfig(model="scripted-model", system="You are a test.", system_suffix="Today is Monday.", retry=retry),
        context=CompactionEngine(ContextState(model="scripted-model", context_window=WINDOW), provider, retry=retry),
    )

    async def go() -> list[Event]:
        events: list[Event] = []
        async for event in runner.run("echo the chunks"):
            events.append(event)
            if isinstance(event, Progress):
                provider.log.append(f"event {event.kind}")
        return events

    return provider, asyncio.run(go())


def test_the_summary_request_is_the_main_request_plus_the_instruction_and_nothing_else_changed(tmp_path: Path) -> None:
    provider, events = play(tmp_path)
    requests = provider.requests
    index = next(i for i, r in enumerate(requests) if is_summary_request(_body(r)))
    summary, previous = requests[index], requests[index - 1]
    assert (summary.model, summary.system, summary.system_suffix, summary.tools) == (previous.model, previous.system, previous.system_suffix, previous.tools)
    assert summary.tools and summary.tool_choice == previous.tool_choice == "auto"
    assert tuple(summary.messages[:-1]) == tuple(previous.messages)
    assert tuple(repair(summary.messages[:-1])) == tuple(summary.messages[:-1])
    assert summary.messages[-1].role == "user" and "<summary>" in summary.messages[-1].text
    after = requests[index + 1]
    assert "We echoed many chunks." in after.messages[0].text and after.tool_choice == "auto"
    newest = [m for m in after.messages if m.role == "assistant" and m.tool_calls][-1]
    assert newest not in previous.messages
    assert any(isinstance(e, Progress) and e.kind == "compact" for e in events)
    last = events[-1]
    assert isinstance(last, Stop) and last.reason == "end_turn"


def test_the_compacting_notice_reaches_the_consumer_before_the_summary_request(tmp_path: Path) -> None:
    provider, events = play(tmp_path)
    log = provider.log
    first_summary = log.index("summary request")
    assert log[first_summary - 1] == "event compacting"
    notice = next(e for e in events if isinstance(e, Progress) and e.kind == "compacting")
    assert f"({notice.data['before_tokens']} tokens)" in notice.message and notice.data["trigger"] == "auto"
    assert log.count("event compacting") == log.count("summary request")
