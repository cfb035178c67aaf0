"""The runner's context seam, with a fake ``ContextEngine``: prepared before every model call, the automatic
path's compaction hooks, and a run that goes on after a failed automatic summary."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


from pseudoclaude.agent import NoCompaction, PrepareRequest
from pseudoclaude.compact import ContextOutcome
from pseudoclaude.compact.layer import LayerAction
from pseudoclaude.llm.errors import ServerError
from tests.agent.test_hooks import collect, entry, hooks_for, make_runner, payloads, recorder, stop_of
from tests.fakes.script import Reply
from tests.fakes.scripted import ScriptedProvider, call


@dataclass
class FakeEngine(NoCompaction):
    """Counts ``prepare`` calls; ``mode`` "pass" sends as is, "summarize" reports a summary, "fail" a failed one."""

    mode: str = "pass"
    prepared: list[bool] = field(default_factory=list)

    @property
    def can_recover(self) -> bool:
        return False

    async def prepare(self, request: PrepareRequest) -> ContextOutcome:
        self.prepared.append(request.forced)
        messages = request.conversation
        if self.mode == "pass" or len(self.prepared) > 1:
            return ContextOutcome(messages, 100, 100)
        if request.before_summary is not None:
            await request.before_summary(5_000)
        if self.mode == "fail":
            error = ServerError("boom")
            return ContextOutcome(messages, 5_000, 5_000, warnings=("context compaction failed: boom",), error=error)
        action = LayerAction("compact", 1, "context compacted: 5000 -> 900", {"trigger": "auto", "before_tokens": 5_000, "after_tokens": 900})
        return ContextOutcome(messages, 5_000, 900, actions=(action,), summary="s")


def test_context_management_runs_before_every_model_call(tmp_path: Path) -> None:
    engine = FakeEngine()
    script = [Reply(calls=(call("echo", text="a"),)), Reply(calls=(call("echo", text="b"),)), Reply(text="done")]
    provider = ScriptedProvider(script)
    runner = make_runner(provider, hooks_for(tmp_path, []), tmp_path, context=engine)
    collect(runner, "go")
    assert len(provider.requests) == 3
    assert len(engine.prepared) == len(provider.requests) and not any(engine.prepared)


def test_the_automatic_path_fires_the_compaction_hooks(tmp_path: Path) -> None:
    hooks = hooks_for(tmp_path, [{"hooks": {name: [entry(recorder(tmp_path, name), "auto")] for name in ("PreCompact", "PostCompact")}}])
    runner = make_runner(ScriptedProvider([Reply(text="done")]), hooks, tmp_path, context=FakeEngine("summarize"))
    collect(runner, "go")
    [pre], [post] = payloads(tmp_path, "PreCompact"), payloads(tmp_path, "PostCompact")
    assert pre["trigger"] == "auto" and pre["before_tokens"] == 5_000
    assert post["trigger"] == "auto" and (post["before_tokens"], post["after_tokens"]) == (5_000, 900)


def test_a_run_continues_after_a_failed_automatic_summary(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply(calls=(call("echo", text="a"),)), Reply(text="done")])
    engine = FakeEngine("fail")
    runner = make_runner(provider, hooks_for(tmp_path, []), tmp_path, context=engine)
    events = collect(runner, "go")
    assert len(provider.requests) == 2 and len(engine.prepared) == 2
    assert runner.conversation[-1].text == "done"
    assert stop_of(events).reason not in ("error",)
