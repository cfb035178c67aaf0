"""The later Claude Code hook events through the runner and the permission policy, with real hook scripts."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from pseudoclaude.agent import events as ev
from pseudoclaude.agent.hooks.config import HookCommand, HookConfig
from pseudoclaude.agent.hooks.gate import HookAwareApprover
from pseudoclaude.agent.hooks.payload import permission_suggestions
from pseudoclaude.agent.hooks.prompt import PROMPT_SYSTEM
from pseudoclaude.tools.patch_shape import NO_NEWLINE, edit_response, structured_patch, write_response
from pseudoclaude.tools.permissions import ApprovalAnswer, ApprovalRequest, PermissionPolicy
from pseudoclaude.tools.base import ToolContext, ToolOutput, ToolTraits
from tests.agent.test_hooks import collect, entry, hooks_for, make_runner, payloads, progress, recorder, stop_of
from tests.agent.tools import EchoTool, WriterTool
from tests.fakes.script import Reply
from tests.fakes.scripted import ScriptedProvider, call


def permission_json(behavior: str, **extra: Any) -> str:
    body = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": behavior, **extra}}}
    return f"echo '{json.dumps(body)}'"


@dataclass
class ShellTool:
    """A stand-in for run_command: judged as a command line by the policy, records what it would run."""

    name: str = "run_command"
    description: str = "Pretend to run a command."
    input_schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {"command": {"type": "string"}}})
    traits: ToolTraits = ToolTraits(kind="execute", clearable=True, key_argument="command", claude_names=("Bash",))
    calls: list[str] = field(default_factory=list)

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        self.calls.append(args["command"])
        return ToolOutput("ran")


class RecordingApprover:
    """The user, answering every question with ``answer``."""

    def __init__(self, answer: str = "deny") -> None:
        self.answer = answer
        self.asked: list[ApprovalRequest] = []

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.asked.append(request)
        return ApprovalAnswer("once" if self.answer == "once" else "deny", "no")


def tool_result(provider: ScriptedProvider, request: int = 1) -> str:
    result = provider.requests[request].messages[-1].tool_result
    assert result is not None
    return result.content


# --- PermissionRequest ---------------------------------------------------------------------------


def test_permission_request_allow_does_not_lift_the_hard_deny_list(tmp_path: Path) -> None:
    shell = ShellTool()
    hooks = hooks_for(tmp_path, [{"hooks": {"PermissionRequest": [entry(recorder(tmp_path, "PermissionRequest", permission_json("allow")))]}}])
    provider = ScriptedProvider([Reply(calls=(call("run_command", command="rm -rf /"),)), Reply(text="ok")])
    collect(make_runner(provider, hooks, tmp_path, [shell], permissions=PermissionPolicy(mode="default", workspace=tmp_path)), "go")
    assert shell.calls == [] and payloads(tmp_path, "PermissionRequest") == []


def test_permission_request_allow_with_an_updated_input_runs_the_call_with_it(tmp_path: Path) -> None:
    for updated, ran in (({"tag": "safer"}, ["safer"]), ({"tag": "a"}, ["a"])):
        writer = WriterTool()
        hooks = hooks_for(tmp_path, [{"hooks": {"PermissionRequest": [entry(permission_json("allow", updatedInput=updated))]}}])
        provider = ScriptedProvider([Reply(calls=(call("write", tag="a"),)), Reply(text="ok")])
        collect(make_runner(provider, hooks, tmp_path, [writer], permissions=PermissionPolicy(mode="default", workspace=tmp_path)), "go")
        assert writer.order == ran, updated


def test_an_updated_input_is_judged_again_and_cannot_pass_the_hard_deny_list(tmp_path: Path) -> None:
    shell = ShellTool()
    for event in ("PreToolUse", "PermissionRequest"):
        if event == "PreToolUse":
            body = {"hookSpecificOutput": {"hookEventName": event, "permissionDecision": "allow", "updatedInput": {"command": "rm -rf /"}}}
            output = f"echo '{json.dumps(body)}'"
        else:
            output = permission_json("allow", updatedInput={"command": "rm -rf /"})
        provider = ScriptedProvider([Reply(calls=(call("run_command", command="touch x"),)), Reply(text="ok")])
        hooks = hooks_for(tmp_path, [{"hooks": {event: [entry(output)]}}])
        collect(make_runner(provider, hooks, tmp_path, [shell], permissions=PermissionPolicy(mode="default", workspace=tmp_path)), "go")
        assert shell.calls == [] and "the input a hook rewrote this call to is refused" in tool_result(provider), event


def test_a_pre_tool_use_allow_with_an_updated_input_runs_with_it_in_a_headless_run(tmp_path: Path) -> None:
    shell = ShellTool()
    body = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "echo safer"}}}
    provider = ScriptedProvider([Reply(calls=(call("run_command", command="echo risky"),)), Reply(text="ok")])
    hooks = hooks_for(tmp_path, [{"hooks": {"PreToolUse": [entry(f"echo '{json.dumps(body)}'")]}}])
    collect(make_runner(provider, hooks, tmp_path, [shell], permissions=PermissionPolicy(mode="default", workspace=tmp_path)), "go")
    assert shell.calls == ["echo safer"]


def test_permission_request_deny_with_interrupt_ends_the_run_after_the_round(tmp_path: Path) -> None:
    writer = WriterTool()
    hooks = hooks_for(tmp_path, [{"hooks": {"PermissionRequest": [entry(permission_json("deny", message="frozen", interrupt=True))]}}])
    provider = ScriptedProvider([Reply(calls=(call("write"),)), Reply(text="never")])
    events = collect(make_runner(provider, hooks, tmp_path, [writer], permissions=PermissionPolicy(mode="default", workspace=tmp_path)), "go")
    assert writer.order == [] and len(provider.requests) == 1
    assert "stopped by a hook: frozen" in stop_of(events).message


def test_with_a_user_to_ask_no_decision_asks_them_with_a_notification_and_a_decision_does_not(tmp_path: Path) -> None:
    decide = f"tail -n 1 '{tmp_path}/PermissionRequest.jsonl' | grep -q '\"tag\": \"hooked\"' && " + permission_json("allow") + "; exit 0"
    layers = [
        {
            "hooks": {
                "PermissionRequest": [entry(recorder(tmp_path, "PermissionRequest", decide))],
                "Notification": [entry(recorder(tmp_path, "Notification"), "permission_prompt")],
            }
        }
    ]
    user = RecordingApprover("deny")
    policy = PermissionPolicy(mode="default", workspace=tmp_path, approver=HookAwareApprover(user))
    writer = WriterTool()
    provider = ScriptedProvider([Reply(calls=(call("write", tag="hooked"), call("write", tag="asked"))), Reply(text="ok")])
    collect(make_runner(provider, hooks_for(tmp_path, layers), tmp_path, [writer], permissions=policy), "go")
    assert writer.order == ["hooked"] and [r.args["tag"] for r in user.asked] == ["asked"]
    assert [p["tool_input"]["tag"] for p in payloads(tmp_path, "PermissionRequest")] == ["hooked", "asked"]
    assert all(isinstance(p["permission_suggestions"], list) for p in payloads(tmp_path, "PermissionRequest"))
    (notified,) = payloads(tmp_path, "Notification")
    assert notified["notification_type"] == "permission_prompt" and "permission to use write" in notified["message"]


def test_a_pre_tool_use_ask_goes_to_permission_request_before_the_user(tmp_path: Path) -> None:
    ask = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}})
    layers = [
        {"hooks": {"PreToolUse": [entry(f"echo '{ask}'")], "PermissionRequest": [entry(recorder(tmp_path, "PermissionRequest", permission_json("allow")))]}}
    ]
    writer = WriterTool()
    provider = ScriptedProvider([Reply(calls=(call("write", tag="a"),)), Reply(text="ok")])
    collect(make_runner(provider, hooks_for(tmp_path, layers), tmp_path, [writer], permissions=PermissionPolicy(mode="bypass", workspace=tmp_path)), "go")
    assert writer.order == ["a"] and len(payloads(tmp_path, "PermissionRequest")) == 1


# --- PostToolUseFailure -----------------------------------------------------------------------


def test_a_failed_call_runs_post_tool_use_failure_and_not_post_tool_use(tmp_path: Path) -> None:
    layers = [{"hooks": {"PostToolUse": [entry(recorder(tmp_path, "PostToolUse"))], "PostToolUseFailure": [entry(recorder(tmp_path, "PostToolUseFailure"))]}}]
    provider = ScriptedProvider([Reply(calls=(call("echo", text=3), call("echo", text="fine"))), Reply(text="ok")])
    collect(make_runner(provider, hooks_for(tmp_path, layers), tmp_path, [EchoTool()]), "go")
    (failed,) = payloads(tmp_path, "PostToolUseFailure")
    assert failed["tool_name"] == "echo" and failed["error"] == "Error: 'text' must be a string" and failed["tool_use_id"]
    (succeeded,) = payloads(tmp_path, "PostToolUse")
    assert succeeded["tool_input"] == {"text": "fine"} and succeeded["tool_use_id"] != failed["tool_use_id"]
    assert isinstance(succeeded["duration_ms"], int)


# --- prompt hooks ---------------------------------------------------------------------------------


class ScriptedAsker:
    """The model a prompt hook asks, at the ``PromptAsker`` seam."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.questions: list[tuple[str, str, str | None]] = []

    async def ask(self, system: str, prompt: str, model: str | None) -> str:
        self.questions.append((system, prompt, model))
        return self.answers.pop(0)


def prompt_layer(event: str, prompt: str, **extra: Any) -> dict[str, Any]:
    return {"hooks": {event: [{"hooks": [{"type": "prompt", "prompt": prompt, **extra}]}]}}


def test_a_prompt_hooks_ok_false_denies_a_tool_call_with_its_reason(tmp_path: Path) -> None:
    asker = ScriptedAsker('{"ok": false, "reason": "writes need a ticket"}')
    writer = WriterTool()
    hooks = hooks_for(tmp_path, [prompt_layer("PreToolUse", "Is this call safe?", model="small-model")], asker=asker)
    provider = ScriptedProvider([Reply(calls=(call("write"),)), Reply(text="ok")])
    collect(make_runner(provider, hooks, tmp_path, [writer]), "go")
    assert writer.order == [] and "writes need a ticket" in tool_result(provider)
    ((system, prompt, model),) = asker.questions
    assert system == PROMPT_SYSTEM and model == "small-model"
    assert prompt.startswith("Is this call safe?\n\n{") and json.loads(prompt.split("\n\n", 1)[1])["tool_name"] == "write"


def test_a_prompt_hook_answer_without_its_json_is_a_warning_and_the_run_goes_on(tmp_path: Path) -> None:
    hooks = hooks_for(tmp_path, [prompt_layer("Stop", "Done? $ARGUMENTS")], asker=ScriptedAsker("Looks fine to me."))
    provider = ScriptedProvider([Reply(text="done")])
    events = collect(make_runner(provider, hooks, tmp_path), "go")
    assert 'got no {"ok": ...} JSON from the model' in progress(events, "warning")[0].message
    assert stop_of(events) == ev.Stop("end_turn", "done", 1)


def test_a_prompt_hook_without_a_model_warns(tmp_path: Path) -> None:
    events = collect(make_runner(ScriptedProvider([Reply(text="done")]), hooks_for(tmp_path, [prompt_layer("Stop", "Done?")]), tmp_path), "go")
    assert "this session has no model to ask" in progress(events, "warning")[0].message


# --- settings -------------------------------------------------------------------------------------


def test_prompt_hooks_parse_with_their_own_timeout_and_only_they_take_a_model() -> None:
    config = HookConfig.from_settings(
        {"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "judge", "model": "m"}, {"type": "command", "command": "x", "model": "m"}]}]}}
    )
    assert config.commands("Stop") == (HookCommand("judge", 30.0, "prompt", "m"), HookCommand("x"))
    assert any("only a prompt hook takes a model" in problem for problem in config.problems)


def test_an_event_that_never_fires_here_is_accepted_with_one_notice_across_layers() -> None:
    layer = {"hooks": {"TeammateIdle": [entry("a")], "Stop": [entry("b")]}}
    config = HookConfig.from_settings(layer, layer)
    assert config.problems == ("hooks: TeammateIdle hooks never fire in PseudoClaude: PseudoClaude has no agent teams",)
    assert [h.command for h in config.commands("Stop")] == ["b"] and "TeammateIdle" not in config.groups


# --- the edit tools' tool_response ----------------------------------------------------------------


def test_structured_patch_has_jsdiffs_hunks_with_three_lines_of_context() -> None:
    old = "".join(f"{n}\n" for n in range(1, 21))
    new = old.replace("2\n", "two\n", 1).replace("18\n", "eighteen\n")
    first, second = structured_patch(old, new)
    assert first == {"oldStart": 1, "oldLines": 5, "newStart": 1, "newLines": 5, "lines": [" 1", "-2", "+two", " 3", " 4", " 5"]}
    assert second == {"oldStart": 15, "oldLines": 6, "newStart": 15, "newLines": 6, "lines": [" 15", " 16", " 17", "-18", "+eighteen", " 19", " 20"]}


def test_a_last_line_without_a_newline_is_marked_as_jsdiff_marks_it() -> None:
    assert structured_patch("a\nb", "a\nc") == [
        {"oldStart": 1, "oldLines": 2, "newStart": 1, "newLines": 2, "lines": [" a", "-b", NO_NEWLINE, "+c", NO_NEWLINE]}
    ]


def test_permission_suggestions_name_the_rule_always_would_save() -> None:
    assert permission_suggestions("run_command(git status:*)", "Bash") == [
        {
            "type": "addRules",
            "rules": [{"toolName": "Bash", "ruleContent": "git status:*"}],
            "behavior": "allow",
            "destination": "localSettings",
            "pseudoclaude_rule": "run_command(git status:*)",
        }
    ]
    assert permission_suggestions(None, "Bash") == []


def test_edit_and_write_responses_have_claude_codes_keys(tmp_path: Path) -> None:
    edit = edit_response(tmp_path / "f", "a", "b", "a a\n", "b b\n", True)
    assert set(edit) == {"filePath", "oldString", "newString", "originalFile", "structuredPatch", "userModified", "replaceAll"}
    update = write_response(tmp_path / "f", "new\n", "old\n")
    assert update["type"] == "update" and update["originalFile"] == "old\n" and update["structuredPatch"][0]["lines"] == ["-old", "+new"]
    assert write_response(tmp_path / "f", "x", None) == {
        "type": "create",
        "filePath": str(tmp_path / "f"),
        "content": "x",
        "structuredPatch": [],
        "originalFile": None,
        "userModified": False,
    }
