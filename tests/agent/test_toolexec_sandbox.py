"""A command the sandbox blocked: the tool round asks once to run it outside (issue 26).

Fakes at the two seams: a ``CommandSandbox`` that is only there (the tool round
never calls it), and a ``run_command`` whose failure reads as the sandbox's
doing whenever ``ctx.sandbox`` is set, as the real tool reports it.
"""

from __future__ import annotations

import asyncio
import json
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, AsyncIterator, Mapping

from pseudoclaude.agent import RunConfig, Runner
from pseudoclaude.agent.events import Event, ToolCallFinished
from pseudoclaude.llm.retry import RetryPolicy
from pseudoclaude.sandbox import PreparedCommand, SandboxConfig, SandboxStatus
from pseudoclaude.tools import ToolContext, ToolOutput, builtin_registry
from pseudoclaude.tools.permissions import ApprovalAnswer, PermissionMode, PermissionPolicy
from tests.fakes.scripted import ScriptedProvider, call
from tests.fakes.script import Reply
from tests.permissions.fakes import ScriptedApprover
from tests.headless.test_stream_json import Lines, FakeAgent

BLOCKED = "a write outside the workspace was refused (read-only file system: /usr/lib/node_modules)"


class FakeSandbox:
    status = SandboxStatus("bubblewrap", "workspace-write", "off", True)

    @asynccontextmanager
    async def prepare(self, command: str, *, cwd: Path, env: Mapping[str, str]) -> AsyncIterator[PreparedCommand]:
        yield PreparedCommand(("bash", "-c", command), env)

    def blocked(self, output: str, exit_code: int | None) -> str | None:
        return BLOCKED if exit_code else None


@dataclass
class FakeCommand:
    """``run_command`` as the policy knows it; fails as the sandbox's doing when confined."""

    name: str = "run_command"
    description: str = "Run a command."
    input_schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {"command": {"type": "string"}}})
    traits: Any = field(default_factory=lambda: builtin_registry().get("run_command").traits)  # type: ignore[union-attr]
    confined: list[bool] = field(default_factory=list)

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        self.confined.append(ctx.sandbox is not None)
        if ctx.sandbox is not None:
            return ToolOutput("EROFS: read-only file system\n[exit code 1]", is_error=True, display={"sandbox_blocked": BLOCKED})
        return ToolOutput("added 1 package\n[exit code 0]")


def play(
    tmp_path: Path, commands: list[str], approver: Any, sandbox: SandboxConfig = SandboxConfig(), **runner: Any
) -> tuple[FakeCommand, list[Event], ScriptedProvider]:
    """One run in which the model calls ``run_command`` with each of ``commands`` in turn, confined by a fake sandbox."""
    tool = FakeCommand()
    provider = ScriptedProvider([*(Reply(calls=(call("run_command", command=command),)) for command in commands), Reply(text="done")])
    policy = PermissionPolicy(mode=PermissionMode.DEFAULT, workspace=tmp_path, home=tmp_path / "home", approver=approver, sandbox=sandbox)
    built = Runner(
        provider=provider,
        tools=[tool],
        tool_context=ToolContext(workspace=tmp_path, sandbox=FakeSandbox()),
        config=RunConfig(model="scripted-model", system="test", retry=RetryPolicy(max_attempts=1, base_delay=0.0, max_delay=0.0)),
        permissions=policy,
        **runner,
    )

    async def go() -> list[Event]:
        return [event async for event in built.run("install it")]

    return tool, asyncio.run(go()), provider


def session(
    command: str, approver: ScriptedApprover | None, tmp_path: Path, sandbox: SandboxConfig = SandboxConfig()
) -> tuple[FakeCommand, list[Event], ScriptedProvider]:
    return play(tmp_path, [command], approver, sandbox)


def finished(events: list[Event]) -> ToolCallFinished:
    (event,) = [e for e in events if isinstance(e, ToolCallFinished)]
    return event


def test_yes_runs_the_same_call_again_outside_and_the_model_reads_that_result(tmp_path: Path) -> None:
    approver = ScriptedApprover([ApprovalAnswer("once")])
    tool, events, provider = session("npm install -g left-pad", approver, tmp_path)
    assert tool.confined == [True, False]
    assert [(r.kind, r.reason) for r in approver.requests] == [("sandbox", BLOCKED)]
    result = finished(events)
    assert not result.is_error and not result.denied
    assert result.content.startswith("(Ran outside the sandbox") and "added 1 package" in result.content
    sent = provider.requests[1].messages[-1].tool_result
    assert sent is not None and sent.content == result.content and not sent.is_error


def test_always_runs_the_prefix_outside_from_the_start_for_the_rest_of_the_session(tmp_path: Path) -> None:
    approver = ScriptedApprover([ApprovalAnswer("always")])
    tool, _, _ = play(tmp_path, ["npm install -g left-pad", "npm install -g lodash"], approver)
    assert tool.confined == [True, False, False] and len(approver.requests) == 1


def test_no_keeps_the_blocked_result_as_a_denial(tmp_path: Path) -> None:
    approver = ScriptedApprover([ApprovalAnswer("deny", "not globally")])
    tool, events, _ = session("npm install -g left-pad", approver, tmp_path)
    assert tool.confined == [True]
    result = finished(events)
    assert result.denied and result.is_error
    assert result.content.endswith("The user declined to run it outside the sandbox: not globally")
    assert "EROFS" in result.content


def test_headless_denies_in_one_line_and_stream_json_lists_the_denial(tmp_path: Path) -> None:
    tool, events, _ = session("npm install -g left-pad", None, tmp_path)
    assert tool.confined == [True]
    result = finished(events)
    last = result.content.splitlines()[-1]
    assert last.startswith(f"Blocked by the sandbox: {BLOCKED}.") and "--sandbox off" in last and "sandbox.excludedCommands" in last
    from pseudoclaude.headless import ClaudeStream

    claude = ClaudeStream(FakeAgent(), Lines())
    claude.begin()
    for event in events:
        claude.feed(event)
    (denial,) = claude.finish()["permission_denials"]
    assert denial["tool_name"] == "Bash" and denial["tool_input"] == {"command": "npm install -g left-pad"}


def test_an_excluded_prefix_runs_unconfined_from_the_start(tmp_path: Path) -> None:
    approver = ScriptedApprover([ApprovalAnswer("once")])
    tool, events, _ = session("npm install -g left-pad", approver, tmp_path, SandboxConfig(excluded_commands=("npm install",)))
    assert tool.confined == [False]
    assert [r.kind for r in approver.requests] == ["call"]  # outside the sandbox, today's question
    assert not finished(events).is_error


def hook_says(tmp_path: Path, decision: str) -> Any:
    from tests.agent.test_hooks import entry, hooks_for

    output = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision}})
    return hooks_for(tmp_path, [{"hooks": {"PreToolUse": [entry(f"echo '{output}'")]}}])


def test_a_pre_tool_use_hooks_allow_does_not_answer_the_question_to_leave_the_sandbox(tmp_path: Path) -> None:
    from pseudoclaude.agent.hooks.gate import HookAwareApprover

    hooks = hook_says(tmp_path, "allow")
    inner = ScriptedApprover([ApprovalAnswer("deny")])
    tool, events, _ = play(tmp_path, ["npm install -g x"], HookAwareApprover(inner), hooks=hooks)
    assert finished(events).denied
    assert tool.confined == [True] and [r.kind for r in inner.requests] == ["sandbox"]


def test_an_excluded_prefix_stays_outside_when_a_hook_allows_or_asks(tmp_path: Path) -> None:
    excluded = SandboxConfig(excluded_commands=("npm install",))
    tool, _, _ = play(tmp_path, ["npm install -g x"], None, excluded, hooks=hook_says(tmp_path, "allow"))
    assert tool.confined == [False]
    tool, _, _ = play(tmp_path, ["npm install -g x"], ScriptedApprover([ApprovalAnswer("once")]), excluded, hooks=hook_says(tmp_path, "ask"))
    assert tool.confined == [False]
