"""Hooks through the runner, with real shell scripts that record their stdin."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

import pytest

from pseudoclaude.agent import events as ev
from pseudoclaude.agent.context import CompactionEngine
from pseudoclaude.agent.hooks.config import HookCommand, HookConfig
from pseudoclaude.agent.hooks import MAX_STOP_CONTINUATIONS, SessionHooks
from pseudoclaude.agent import RunConfig, Runner
from pseudoclaude.compact import ContextState
from pseudoclaude.llm.messages import Message
from pseudoclaude.llm.retry import RetryPolicy
from pseudoclaude.tools.base import Tool, ToolContext, ToolOutput, ToolTraits
from pseudoclaude.tools.permissions import PermissionPolicy
from tests.agent.tools import EchoTool, WriterTool
from tests.compact.support import RecordingSession
from tests.fakes.script import HttpError, Reply
from tests.fakes.scripted import ScriptedProvider, call, validate_conversation


def script(tmp: Path, name: str, body: str) -> str:
    """A real executable hook script; returns the command that runs it."""
    path = tmp / f"{name}.sh"
    path.write_text("#!/bin/bash\n" + body + "\n")
    path.chmod(0o755)
    return str(path)


def recorder(tmp: Path, event: str, then: str = "exit 0") -> str:
    """A script appending its stdin (one JSON payload a line) to ``<event>.jsonl``, then running ``then``."""
    return script(tmp, f"record-{event}", f'cat >> "{tmp}/{event}.jsonl"\n{then}')


def payloads(tmp: Path, event: str) -> list[dict[str, Any]]:
    path = tmp / f"{event}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def hooks_for(tmp: Path, layers: Sequence[Mapping[str, Any]], **extra: Any) -> SessionHooks:
    return SessionHooks(HookConfig.from_settings(*layers), workspace=tmp, session_id="s-1", transcript_path=tmp / "session.jsonl", **extra)


def entry(command: str, matcher: str | None = None, timeout: float | None = None) -> dict[str, Any]:
    hook: dict[str, Any] = {"type": "command", "command": command}
    if timeout is not None:
        hook["timeout"] = timeout
    group: dict[str, Any] = {"hooks": [hook]}
    if matcher is not None:
        group["matcher"] = matcher
    return group


def make_runner(provider: ScriptedProvider, hooks: SessionHooks, tmp: Path, tools: Sequence[Tool] = (), **kwargs: Any) -> Runner:
    return Runner(
        provider=provider,
        tools=list(tools) or [EchoTool(), WriterTool()],
        tool_context=ToolContext(workspace=tmp),
        config=RunConfig(model="scripted-model", system="test", retry=RetryPolicy(max_attempts=1, base_delay=0, max_delay=0)),
        hooks=hooks,
        **kwargs,
    )


def collect(runner: Runner, prompt: str | None) -> list[ev.Event]:
    async def go() -> list[ev.Event]:
        return [event async for event in runner.run(prompt)]

    return asyncio.run(go())


def stop_of(events: Sequence[ev.Event]) -> ev.Stop:
    last = events[-1]
    assert isinstance(last, ev.Stop)
    return last


def progress(events: Sequence[ev.Event], kind: str) -> list[ev.Progress]:
    return [e for e in events if isinstance(e, ev.Progress) and e.kind == kind]


# --- configuration -----------------------------------------------------------------------------


def test_layers_concatenate_in_order_and_a_repeated_command_runs_once() -> None:
    user = {"hooks": {"Stop": [entry("user.sh")], "PreToolUse": [entry("check.sh", "write")]}}
    project = {"hooks": {"Stop": [entry("project.sh"), entry("user.sh")]}}
    config = HookConfig.from_settings(user, project, {})
    assert config.commands("Stop") == (HookCommand("user.sh"), HookCommand("project.sh"))
    assert config.commands("PreToolUse", "write") == (HookCommand("check.sh"),)
    assert config.commands("PreToolUse", "echo") == ()


def test_matchers_are_whole_name_regexes_and_claude_code_names_match_their_tools() -> None:
    config = HookConfig.from_settings({"hooks": {"PreToolUse": [entry("a", "edit_file|write_file"), entry("b", "Bash"), entry("c", "*")]}})
    assert [h.command for h in config.commands("PreToolUse", "write_file")] == ["a", "c"]
    assert [h.command for h in config.commands("PreToolUse", "run_command")] == ["b", "c"]
    assert [h.command for h in config.commands("PreToolUse", "edit_file_extra")] == ["c"]


def test_malformed_entries_are_skipped_with_a_problem_each() -> None:
    config = HookConfig.from_settings(
        {
            "hooks": {
                "Bogus": [entry("n")],
                "Stop": [
                    {"matcher": "(", "hooks": [{"command": "x"}]},
                    {"hooks": [{"type": "http", "url": "http://x"}, {"command": ""}, {"command": "ok.sh", "timeout": -1}]},
                    "not an object",
                ],
            }
        }
    )
    assert config.commands("Stop") == (HookCommand("ok.sh", 60.0),)
    text = "\n".join(config.problems)
    for expected in ("'Bogus'", "regular expression", "type 'http' are not supported", "non-empty string", "timeout", "Stop[2]"):
        assert expected in text


def test_disable_all_hooks_turns_every_hook_off() -> None:
    config = HookConfig.from_settings({"hooks": {"Stop": [entry("a")]}}, {"disableAllHooks": True})
    assert not config and config.commands("Stop") == ()


# --- each event fires with its payload ---------------------------------------------------------


def test_prompt_tool_and_stop_events_fire_with_their_payloads(tmp_path: Path) -> None:
    names = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd")
    hooks = hooks_for(tmp_path, [{"hooks": {name: [entry(recorder(tmp_path, name))] for name in names}}])
    provider = ScriptedProvider([Reply(calls=(call("echo", text="hi"),)), Reply(text="All done.")])
    runner = make_runner(provider, hooks, tmp_path)
    events = collect(runner, "say hi")
    asyncio.run(hooks.end("prompt_input_exit"))
    assert events[-1] == ev.Stop("end_turn", "All done.", 2)
    common = {"session_id": "s-1", "transcript_path": str(tmp_path / "session.jsonl"), "cwd": str(tmp_path), "permission_mode": "default"}
    for name in names:
        [payload] = payloads(tmp_path, name)
        assert {**payload, **common, "hook_event_name": name} == payload
    assert payloads(tmp_path, "SessionStart")[0]["source"] == "startup"
    assert payloads(tmp_path, "UserPromptSubmit")[0]["prompt"] == "say hi"
    pre, post = payloads(tmp_path, "PreToolUse")[0], payloads(tmp_path, "PostToolUse")[0]
    assert (pre["tool_name"], pre["tool_input"]) == ("echo", {"text": "hi"})
    assert pre["tool_use_id"] == post["tool_use_id"] != "", "Claude Code's PreToolUse names the call, as PostToolUse does"
    assert post["tool_response"] == {"content": "echo: hi", "is_error": False, "summary": "echoed 2 chars"}
    stop = payloads(tmp_path, "Stop")[0]
    assert stop["stop_hook_active"] is False and stop["last_assistant_message"] == "All done."
    assert payloads(tmp_path, "SessionEnd")[0]["reason"] == "prompt_input_exit"


def test_session_start_fires_once_per_session(tmp_path: Path) -> None:
    hooks = hooks_for(tmp_path, [{"hooks": {"SessionStart": [entry(recorder(tmp_path, "SessionStart"))]}}], source="resume")
    runner = make_runner(ScriptedProvider([Reply(text="one"), Reply(text="two")]), hooks, tmp_path)
    collect(runner, "first")
    collect(runner, "second")
    assert [p["source"] for p in payloads(tmp_path, "SessionStart")] == ["resume"]


def test_compaction_hooks_fire_with_trigger_and_token_counts(tmp_path: Path) -> None:
    hooks = hooks_for(tmp_path, [{"hooks": {name: [entry(recorder(tmp_path, name), "manual")] for name in ("PreCompact", "PostCompact")}}])
    state = ContextState(model="scripted-model", context_window=60_000, session=RecordingSession(tmp_path / "spill"))
    history = [Message.user(f"request {n} " * 300) if n % 2 == 0 else Message.assistant(f"answer {n} " * 300) for n in range(40)]
    provider = ScriptedProvider([Reply(text="<summary>s</summary>")])
    runner = make_runner(provider, hooks, tmp_path, context=CompactionEngine(state, provider), conversation=history)

    async def go() -> list[ev.Event]:
        return [event async for event in runner.compact("focus on the parser")]

    asyncio.run(go())
    [pre], [post] = payloads(tmp_path, "PreCompact"), payloads(tmp_path, "PostCompact")
    assert pre["trigger"] == "manual" and pre["custom_instructions"] == "focus on the parser" and pre["before_tokens"] > 500
    assert post["trigger"] == "manual" and post["before_tokens"] > post["after_tokens"] > 0


def test_stdout_of_session_start_and_prompt_submit_is_added_to_the_prompt(tmp_path: Path) -> None:
    layers = [{"hooks": {"SessionStart": [entry("echo 'branch: main'")], "UserPromptSubmit": [entry("echo 'ticket: ABC-1'")]}}]
    provider = ScriptedProvider([Reply(text="ok")])
    collect(make_runner(provider, hooks_for(tmp_path, layers), tmp_path), "fix it")
    text = provider.requests[0].messages[0].text
    assert text.startswith("fix it\n\n")
    assert '<hook_context event="SessionStart">\nbranch: main\n</hook_context>' in text
    assert text.index("branch: main") < text.index("ticket: ABC-1")


def test_hooks_run_in_the_workspace_with_the_project_dir_in_the_environment(tmp_path: Path) -> None:
    command = script(tmp_path, "where", f'pwd > "{tmp_path}/where.txt"; echo "$CLAUDE_PROJECT_DIR" >> "{tmp_path}/where.txt"')
    hooks = hooks_for(tmp_path, [{"hooks": {"Stop": [entry(command)]}}])
    collect(make_runner(ScriptedProvider([Reply(text="ok")]), hooks, tmp_path), "go")
    assert (tmp_path / "where.txt").read_text().splitlines() == [str(tmp_path), str(tmp_path)]


# --- exit 2 blocks each blockable event ----------------------------------------------------------


def test_exit_2_on_user_prompt_submit_drops_the_prompt_and_shows_the_reason(tmp_path: Path) -> None:
    command = recorder(tmp_path, "UserPromptSubmit", "echo 'no secrets in prompts' >&2; exit 2")
    provider = ScriptedProvider([Reply(text="never")])
    runner = make_runner(provider, hooks_for(tmp_path, [{"hooks": {"UserPromptSubmit": [entry(command)]}}]), tmp_path)
    events = collect(runner, "my password is hunter2")
    assert provider.requests == [] and runner.conversation == ()
    assert progress(events, "hook")[0].data["reason"] == "no secrets in prompts"
    assert stop_of(events).reason == "error" and "no secrets in prompts" in stop_of(events).message


def test_exit_2_on_pre_tool_use_denies_the_call_with_stderr_as_the_reason(tmp_path: Path) -> None:
    command = recorder(tmp_path, "PreToolUse", "echo 'writes are frozen today' >&2; exit 2")
    writer, echo = WriterTool(), EchoTool()
    provider = ScriptedProvider([Reply(calls=(call("write", tag="a"), call("echo", text="b"))), Reply(text="ok")])
    hooks = hooks_for(tmp_path, [{"hooks": {"PreToolUse": [entry(command, "write")]}}])
    collect(make_runner(provider, hooks, tmp_path, [writer, echo]), "go")
    assert writer.order == [] and echo.calls == [{"text": "b"}]
    results = [m.tool_result for m in provider.requests[1].messages if m.tool_result]
    assert results[0] is not None and results[0].is_error and "writes are frozen today" in results[0].content
    assert [p["tool_name"] for p in payloads(tmp_path, "PreToolUse")] == ["write"]


def test_exit_2_on_stop_continues_with_stderr_as_the_next_instruction_a_bounded_number_of_times(tmp_path: Path) -> None:
    command = recorder(tmp_path, "Stop", "echo 'the tests still fail' >&2; exit 2")
    provider = ScriptedProvider(lambda body: Reply(text="I am done."))
    runner = make_runner(provider, hooks_for(tmp_path, [{"hooks": {"Stop": [entry(command)]}}]), tmp_path)
    events = collect(runner, "fix the tests")
    assert len(provider.requests) == 1 + MAX_STOP_CONTINUATIONS
    assert provider.requests[1].messages[-1].text == "[Stop hook] the tests still fail"
    assert [p["stop_hook_active"] for p in payloads(tmp_path, "Stop")] == [False] + [True] * MAX_STOP_CONTINUATIONS
    assert "stopping after" in progress(events, "warning")[-1].message
    assert stop_of(events).reason == "end_turn" and validate_conversation(runner.build_request().messages) is None


def test_a_stop_hook_json_block_continues_once_and_then_lets_the_agent_stop(tmp_path: Path) -> None:
    body = """if grep -q '"stop_hook_active": false'; then echo '{"decision": "block", "reason": "Run the linter first."}'; fi"""
    provider = ScriptedProvider([Reply(text="done"), Reply(text="linted, done")])
    runner = make_runner(provider, hooks_for(tmp_path, [{"hooks": {"Stop": [entry(script(tmp_path, "stop", body))]}}]), tmp_path)
    events = collect(runner, "go")
    assert provider.requests[1].messages[-1].text == "[Stop hook] Run the linter first."
    assert events[-1] == ev.Stop("end_turn", "linted, done", 2)


# --- JSON output (Claude Code's protocol) ----------------------------------------------------------


def _pre_tool_json(tmp: Path, decision: str, reason: str = "policy") -> SessionHooks:
    output = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision, "permissionDecisionReason": reason}})
    return hooks_for(tmp, [{"hooks": {"PreToolUse": [entry(f"echo '{output}'")]}}])


def test_permission_decision_deny_refuses_the_call(tmp_path: Path) -> None:
    writer = WriterTool()
    provider = ScriptedProvider([Reply(calls=(call("write"),)), Reply(text="ok")])
    collect(make_runner(provider, _pre_tool_json(tmp_path, "deny", "not on Fridays"), tmp_path, [writer]), "go")
    result = provider.requests[1].messages[-1].tool_result
    assert writer.order == [] and result is not None and "not on Fridays" in result.content


def test_permission_decision_allow_skips_the_approval_a_headless_run_cannot_give(tmp_path: Path) -> None:
    policy = PermissionPolicy(mode="default", workspace=tmp_path)
    for decision, ran in (("allow", True), ("ask", False)):
        writer = WriterTool()
        provider = ScriptedProvider([Reply(calls=(call("write"),)), Reply(text="ok")])
        collect(make_runner(provider, _pre_tool_json(tmp_path, decision), tmp_path, [writer], permissions=policy), "go")
        assert (writer.order == [""]) is ran, decision


def test_permission_decision_allow_does_not_lift_the_hard_deny_list(tmp_path: Path) -> None:
    shell = EchoTool(name="run_command", input_schema={"type": "object", "properties": {"command": {"type": "string"}}})
    provider = ScriptedProvider([Reply(calls=(call("run_command", command="rm -rf /"),)), Reply(text="ok")])
    policy = PermissionPolicy(mode="bypass", workspace=tmp_path)
    collect(make_runner(provider, _pre_tool_json(tmp_path, "allow"), tmp_path, [shell], permissions=policy), "go")
    result = provider.requests[1].messages[-1].tool_result
    assert shell.calls == [] and result is not None and result.is_error


def test_post_tool_use_feedback_and_context_reach_the_model_in_the_tool_result(tmp_path: Path) -> None:
    feedback = script(tmp_path, "lint", "echo 'line 3: unused import' >&2; exit 2")
    context = """echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "formatted with black"}}'"""
    provider = ScriptedProvider([Reply(calls=(call("echo", text="x"),)), Reply(text="ok")])
    hooks = hooks_for(tmp_path, [{"hooks": {"PostToolUse": [entry(feedback), entry(context, "echo")]}}])
    collect(make_runner(provider, hooks, tmp_path), "go")
    result = provider.requests[1].messages[-1].tool_result
    assert result is not None and result.content.startswith("echo: x\n\n")
    assert "PostToolUse hook feedback: line 3: unused import" in result.content and "formatted with black" in result.content


class ShapedTool:
    """A tool whose output is already fitted to the budget, with its complete output saved elsewhere."""

    name = "shaped"
    description = "Return a shaped output."
    input_schema: dict[str, Any] = {"type": "object", "properties": {}}
    traits = ToolTraits(kind="read", clearable=True)

    async def run(self, args: Any, ctx: ToolContext) -> ToolOutput:
        return ToolOutput("head ... tail", shaped=True, full_output="/tmp/complete.txt")


def test_post_tool_use_context_keeps_what_the_tool_said_about_its_shaped_output(tmp_path: Path) -> None:
    context = """echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "noted"}}'"""
    provider = ScriptedProvider([Reply(calls=(call("shaped"),)), Reply(text="ok")])
    hooks = hooks_for(tmp_path, [{"hooks": {"PostToolUse": [entry(context)]}}])
    runner = make_runner(provider, hooks, tmp_path, tools=[ShapedTool()])
    collect(runner, "go")
    result = next(m.tool_result for m in runner.conversation if m.tool_result is not None)
    assert "noted" in result.content and result.shaped and result.full_output == "/tmp/complete.txt"


def test_continue_false_ends_the_run_after_the_tool_round(tmp_path: Path) -> None:
    halt = """echo '{"continue": false, "stopReason": "budget exhausted", "systemMessage": "halting"}'"""
    provider = ScriptedProvider([Reply(calls=(call("echo", text="x"),)), Reply(text="never")])
    runner = make_runner(provider, hooks_for(tmp_path, [{"hooks": {"PostToolUse": [entry(halt)]}}]), tmp_path)
    events = collect(runner, "go")
    assert len(provider.requests) == 1 and "budget exhausted" in stop_of(events).message
    assert progress(events, "hook")[0].message == "halting"
    assert validate_conversation([*runner.conversation, Message.assistant("x")]) is None


# --- failures: warnings, and the agent goes on ---------------------------------------------------


def test_a_hanging_hook_is_killed_at_its_timeout_and_the_run_goes_on(tmp_path: Path) -> None:
    command = script(tmp_path, "hang", f'echo $$ > "{tmp_path}/pid"; sleep 30')
    provider = ScriptedProvider([Reply(text="answered")])
    hooks = hooks_for(tmp_path, [{"hooks": {"UserPromptSubmit": [entry(command, timeout=0.5)]}}])
    started = time.monotonic()
    events = collect(make_runner(provider, hooks, tmp_path), "go")
    assert time.monotonic() - started < 5
    assert "timed out after" in progress(events, "warning")[0].message
    assert events[-1] == ev.Stop("end_turn", "answered", 1)
    with pytest.raises(ProcessLookupError):
        os.kill(int((tmp_path / "pid").read_text()), 0)


def test_invalid_json_output_is_a_warning_and_ignored(tmp_path: Path) -> None:
    hooks = hooks_for(tmp_path, [{"hooks": {"UserPromptSubmit": [entry("""echo '{"decision": "block", oops'""")]}}])
    provider = ScriptedProvider([Reply(text="fine")])
    events = collect(make_runner(provider, hooks, tmp_path), "the prompt")
    assert "invalid JSON" in progress(events, "warning")[0].message
    assert provider.requests[0].messages[0].text == "the prompt"


def test_any_other_exit_code_is_a_warning_and_the_agent_goes_on(tmp_path: Path) -> None:
    hooks = hooks_for(tmp_path, [{"hooks": {"PreToolUse": [entry("echo 'lint crashed' >&2; exit 1")]}}])
    echo = EchoTool()
    provider = ScriptedProvider([Reply(calls=(call("echo", text="x"),)), Reply(text="ok")])
    events = collect(make_runner(provider, hooks, tmp_path, [echo]), "go")
    assert echo.calls == [{"text": "x"}]
    assert "failed with exit code 1: lint crashed" in progress(events, "warning")[0].message


def test_the_stop_hook_is_not_run_when_the_context_overflowed(tmp_path: Path) -> None:
    hooks = hooks_for(tmp_path, [{"hooks": {"Stop": [entry(recorder(tmp_path, "Stop", "exit 2"))]}}])
    state = ContextState(model="scripted-model", context_window=60_000, session=RecordingSession(tmp_path / "spill"))
    too_long = HttpError(400, "context_length", "prompt is too long")
    provider = ScriptedProvider([too_long, Reply(text="<summary>s</summary>"), too_long])
    long_talk = [Message.user(f"q{i} " * 3000) if i % 2 == 0 else Message.assistant(f"a{i} " * 3000) for i in range(8)]
    runner = make_runner(provider, hooks, tmp_path, context=CompactionEngine(state, provider), conversation=long_talk)
    events = collect(runner, "go")
    assert stop_of(events).reason == "context_overflow"
    assert payloads(tmp_path, "Stop") == []


def test_a_hook_never_blocks_the_event_loop(tmp_path: Path) -> None:
    hooks = hooks_for(tmp_path, [{"hooks": {"Stop": [entry("sleep 0.4")]}}])

    async def go() -> int:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.02)
                ticks += 1

        task = asyncio.ensure_future(ticker())
        await hooks.stop("x", active=False)
        task.cancel()
        return ticks

    assert asyncio.run(go()) >= 10


def test_a_background_child_holding_the_output_does_not_hold_the_agent(tmp_path: Path) -> None:
    hooks = hooks_for(tmp_path, [{"hooks": {"Stop": [entry("sleep 30 & echo started", timeout=20)]}}])
    started = time.monotonic()
    outcome = asyncio.run(hooks.stop("x", active=False))
    assert time.monotonic() - started < 5 and outcome.events == ()
