"""The unchanged-reread note at the runner: given while the earlier read is in view, never after context governance changed it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Sequence

from pseudoclaude.agent.context import CompactionEngine, ContextEngine, NoCompaction, PrepareRequest
from pseudoclaude.agent import RunConfig, Runner
from pseudoclaude.compact import ContextOutcome, ContextState, LayerAction
from pseudoclaude.llm.messages import Message
from pseudoclaude.llm.retry import RetryPolicy
from pseudoclaude.tools.base import ToolContext
from pseudoclaude.tools.read_file import ReadFileTool
from tests.fakes.script import Reply
from tests.fakes.scripted import ScriptedProvider, call

FAST_RETRY = RetryPolicy(max_attempts=2, base_delay=0.0, max_delay=0.0)
READ = call("read_file", path="a.txt")


def make_runner(provider: ScriptedProvider, workspace: Path, context: ContextEngine, conversation: Sequence[Message] = ()) -> Runner:
    (workspace / "a.txt").write_text("".join(f"line {i} of a.txt\n" for i in range(1, 41)))
    return Runner(
        provider=provider,
        tools=[ReadFileTool()],
        tool_context=ToolContext(workspace=workspace),
        config=RunConfig(model="scripted-model", system="s", retry=FAST_RETRY),
        context=context,
        conversation=conversation,
    )


def collect(runner: Runner, prompt: str | None = None, *, compact: bool = False) -> None:
    async def go() -> None:
        async for _ in runner.compact() if compact else runner.run(prompt):
            pass

    asyncio.run(go())


def results(provider: ScriptedProvider) -> list[str]:
    """The content of the newest tool result of every request that ends with one."""
    last = [request.messages[-1].tool_result for request in provider.requests]
    return [result.content for result in last if result is not None]


def test_a_repeated_read_is_a_note_until_a_compaction_changed_the_context(tmp_path: Path) -> None:
    history = [Message.user(f"request {n} " * 300) if n % 2 == 0 else Message.assistant(f"answer {n} " * 300) for n in range(20)]
    provider = ScriptedProvider(
        [
            Reply(calls=(READ,)),
            Reply(calls=(READ,)),
            Reply(text="read it"),
            Reply(text="<summary>We read a.txt.</summary>"),
            Reply(calls=(READ,)),
            Reply(text="read it again"),
        ]
    )
    engine = CompactionEngine(ContextState(model="scripted-model", context_window=60_000), provider, retry=FAST_RETRY)
    runner = make_runner(provider, tmp_path, engine, history)
    collect(runner, "read a.txt twice")
    collect(runner, compact=True)
    collect(runner, "read a.txt once more")
    first, second, after_compaction = results(provider)
    assert first.endswith("    40\tline 40 of a.txt\n… lines 1-40 of 40 (end of file)\n")
    assert second.startswith("a.txt is unchanged since your read at turn 1 (lines 1-40); its content is above.")
    assert "We read a.txt." in provider.requests[-1].messages[0].text
    assert after_compaction == first


class ChangesOnce(NoCompaction):
    """An engine whose ``changed_at``-th prepare reports that a layer replaced earlier results."""

    def __init__(self, changed_at: int) -> None:
        self.calls = 0
        self.changed_at = changed_at

    async def prepare(self, request: PrepareRequest) -> ContextOutcome:
        self.calls += 1
        actions = (LayerAction("offload", 1, "offloaded 1 result"),) if self.calls == self.changed_at else ()
        return ContextOutcome(request.conversation, 0, 0, actions)


def test_any_layer_action_makes_the_next_read_real(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply(calls=(READ,)), Reply(calls=(READ,)), Reply(calls=(READ,)), Reply(text="done")])
    runner = make_runner(provider, tmp_path, ChangesOnce(changed_at=3))
    collect(runner, "read a.txt three times")
    first, second, third = results(provider)
    assert "unchanged since your read at turn 1" in second
    assert third == first
