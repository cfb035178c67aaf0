"""The official Claude Agent SDK (``claude-agent-sdk``) drives our CLI, unchanged, against the wire-level fakes.

The SDK runs the executable it is given as ``cli_path`` with
``--output-format stream-json --verbose --input-format stream-json ...`` and
speaks the control protocol on stdin/stdout: these tests pass a two-line
wrapper that runs ``python -m pseudoclaude``, so every byte goes through the
real SDK parser and the real CLI process.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any, Awaitable, Callable

import pytest

from tests.e2e.support import cli_env, fake_server
from tests.fakes.script import Call, Reply

sdk = pytest.importorskip("claude_agent_sdk")

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cli_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    wrapper = tmp_path_factory.mktemp("bin") / "pseudoclaude"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m pseudoclaude "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    return ws


def options(cli_path: str, kind: str, url: str, ws: Path, **extra: Any) -> Any:
    env = {**cli_env(kind, url, ws.parent / "home"), "PYTHONPATH": str(REPO)}
    return sdk.ClaudeAgentOptions(cli_path=cli_path, cwd=str(ws), env=env, **extra)


def collect(prompt: str, opts: Any) -> list[Any]:
    async def go() -> list[Any]:
        return [message async for message in sdk.query(prompt=prompt, options=opts)]

    return asyncio.run(asyncio.wait_for(go(), 90))


def with_client(opts: Any, body: Callable[[Any], Awaitable[None]]) -> None:
    async def go() -> None:
        async with sdk.ClaudeSDKClient(options=opts) as client:
            await body(client)

    asyncio.run(asyncio.wait_for(go(), 90))


async def until_result(client: Any) -> list[Any]:
    return [message async for message in client.receive_response()]


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_query_with_a_tool_call_yields_claude_code_messages(kind: str, cli_path: str, workspace: Path) -> None:
    script = [
        Reply(text="Let me read the notes.", calls=(Call("read_file", json.dumps({"path": "notes.txt"})),)),
        Reply(text="The notes have 3 lines.", cache_read_tokens=40),
    ]
    with fake_server(kind, script) as server:
        messages = collect("How many lines?", options(cli_path, kind, server.url, workspace, permission_mode="bypassPermissions"))
        assert server.rejections == []
    init, first, tool_results, last, result = messages
    assert isinstance(init, sdk.SystemMessage) and init.subtype == "init"
    assert init.data["permissionMode"] == "bypassPermissions" and "Read" in init.data["tools"] and "Bash" in init.data["tools"]
    assert init.data["cwd"] == str(workspace) and init.data["session_id"] == result.session_id
    assert isinstance(first, sdk.AssistantMessage)
    text, use = first.content
    assert isinstance(text, sdk.TextBlock) and text.text == "Let me read the notes."
    assert isinstance(use, sdk.ToolUseBlock) and use.name == "Read" and use.input == {"file_path": "notes.txt"}
    assert first.usage is not None and first.usage["cache_read_input_tokens"] == 0
    assert isinstance(tool_results, sdk.UserMessage)
    (block,) = tool_results.content
    assert isinstance(block, sdk.ToolResultBlock) and block.tool_use_id == use.id and "gamma" in str(block.content) and not block.is_error
    assert isinstance(last, sdk.AssistantMessage) and last.content == [sdk.TextBlock(text="The notes have 3 lines.")]
    assert last.usage is not None and last.usage["cache_read_input_tokens"] == 40, "the second request reads what the first wrote"
    assert isinstance(result, sdk.ResultMessage)
    assert result.subtype == "success" and not result.is_error and result.result == "The notes have 3 lines."
    assert result.num_turns == 2 and result.session_id and result.permission_denials == []
    assert result.total_cost_usd is not None and result.total_cost_usd > 0
    assert result.usage is not None and result.usage["cache_read_input_tokens"] == 40
    assert result.duration_ms >= result.duration_api_ms > 0


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_client_runs_two_turns_in_one_session(kind: str, cli_path: str, workspace: Path) -> None:
    results: list[Any] = []

    async def body(client: Any) -> None:
        await client.query("Remember the word kumquat.")
        results.append(await until_result(client))
        await client.query("Which word?")
        results.append(await until_result(client))

    with fake_server(kind, [Reply(text="Noted."), Reply(text="kumquat")]) as server:
        with_client(options(cli_path, kind, server.url, workspace), body)
        assert server.rejections == [] and "kumquat" in json.dumps(server.requests[1])
    first, second = results[0][-1], results[1][-1]
    assert first.result == "Noted." and second.result == "kumquat"
    assert first.session_id == second.session_id and second.subtype == "success"


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_interrupt_stops_the_turn_and_the_session_goes_on(kind: str, cli_path: str, workspace: Path) -> None:
    seen: dict[str, Any] = {}

    async def body(client: Any) -> None:
        await client.query("Wait for a while.")
        async for message in client.receive_messages():
            if isinstance(message, sdk.AssistantMessage) and any(isinstance(b, sdk.ToolUseBlock) for b in message.content):
                break
        await asyncio.sleep(0.5)
        await client.interrupt()
        seen["interrupted"] = await until_result(client)
        await client.query("Are you there?")
        seen["after"] = await until_result(client)

    script = [Reply(text="Sleeping.", calls=(Call("run_command", json.dumps({"command": "sleep 30"})),)), Reply(text="Still here.")]
    with fake_server(kind, script) as server:
        with_client(options(cli_path, kind, server.url, workspace, permission_mode="bypassPermissions"), body)
        assert server.rejections == [], "the interrupted call was left without a result"
        assert "interrupted" in json.dumps(server.requests[-1]).lower()
    stopped = seen["interrupted"][-1]
    assert isinstance(stopped, sdk.ResultMessage) and stopped.is_error and stopped.subtype == "error_during_execution"
    assert stopped.terminal_reason == "aborted_tools"
    aborted = [b for m in seen["interrupted"] if isinstance(m, sdk.UserMessage) for b in m.content if isinstance(b, sdk.ToolResultBlock)]
    assert len(aborted) == 1 and aborted[0].is_error and "interrupted" in str(aborted[0].content), "the aborted call gets its tool_result"
    assert seen["after"][-1].terminal_reason == "completed"
    assert seen["after"][-1].subtype == "success" and seen["after"][-1].result == "Still here."


def test_default_mode_denials_are_listed_and_can_use_tool_decides(cli_path: str, workspace: Path) -> None:
    write = Call("write_file", json.dumps({"path": "out.txt", "content": "x"}))
    with fake_server("anthropic", [Reply(calls=(write,)), Reply(text="I could not write.")]) as server:
        result = collect("Write out.txt", options(cli_path, "anthropic", server.url, workspace))[-1]
    assert result.subtype == "success" and not (workspace / "out.txt").exists()
    (denial,) = result.permission_denials
    assert denial["tool_name"] == "Write" and denial["tool_input"] == {"file_path": "out.txt", "content": "x"} and denial["tool_use_id"]

    asked: list[tuple[str, dict[str, Any]]] = []

    async def decide(name: str, tool_input: dict[str, Any], context: Any) -> Any:
        asked.append((name, tool_input))
        if tool_input.get("file_path") == "ok.txt":
            return sdk.PermissionResultAllow()
        return sdk.PermissionResultDeny(message="not that one")

    async def prompts() -> Any:
        yield {"type": "user", "message": {"role": "user", "content": "Write two files"}, "parent_tool_use_id": None, "session_id": "default"}

    calls = (Call("write_file", json.dumps({"path": "ok.txt", "content": "yes"})), Call("write_file", json.dumps({"path": "no.txt", "content": "no"})))
    with fake_server("anthropic", [Reply(calls=calls), Reply(text="One written.")]) as server:

        async def go() -> list[Any]:
            opts = options(cli_path, "anthropic", server.url, workspace, can_use_tool=decide)
            return [m async for m in sdk.query(prompt=prompts(), options=opts)]

        messages = asyncio.run(asyncio.wait_for(go(), 90))
        assert "not that one" in json.dumps(server.requests[-1])
    assert [name for name, _ in asked] == ["Write", "Write"]
    assert (workspace / "ok.txt").read_text() == "yes" and not (workspace / "no.txt").exists()
    assert [d["tool_input"]["file_path"] for d in messages[-1].permission_denials] == ["no.txt"]


def test_control_requests_switch_mode_and_refuse_what_is_not_implemented(cli_path: str, workspace: Path) -> None:
    seen: dict[str, Any] = {}

    async def body(client: Any) -> None:
        info = await client.get_server_info()
        seen["commands"] = [c["name"] for c in info["commands"]]
        usage = await client.get_context_usage()
        seen["usage"] = (usage["rawMaxTokens"], usage["totalTokens"], [c["name"] for c in usage["categories"]])
        await client.set_permission_mode("acceptEdits")
        await client.query("Write it.")
        seen["result"] = (await until_result(client))[-1]
        with pytest.raises(Exception, match="unsupported control request subtype: rewind_files"):
            await client.rewind_files("some-message")

    write = Call("write_file", json.dumps({"path": "made.txt", "content": "made"}))
    with fake_server("anthropic", [Reply(calls=(write,)), Reply(text="Written.")]) as server:
        with_client(options(cli_path, "anthropic", server.url, workspace), body)
    assert seen["commands"] == ["compact"]
    assert seen["usage"][0] == 200_000 and seen["usage"][1] > 0 and "Messages" in seen["usage"][2]
    assert seen["result"].subtype == "success" and (workspace / "made.txt").read_text() == "made"


def test_sdk_hook_callbacks_guard_tool_calls(cli_path: str, workspace: Path) -> None:
    seen: list[dict[str, Any]] = []

    ids: list[Any] = []

    async def guard(data: Any, tool_use_id: Any, context: Any) -> Any:
        seen.append(data)
        ids.append(tool_use_id)
        if "rm -rf" in data["tool_input"].get("command", ""):
            return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no rm -rf"}}
        return {}

    async def after(data: Any, tool_use_id: Any, context: Any) -> Any:
        return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "checked by the SDK"}}

    hooks = {"PreToolUse": [sdk.HookMatcher(matcher="Bash", hooks=[guard])], "PostToolUse": [sdk.HookMatcher(matcher="Bash", hooks=[after])]}
    (workspace / "build").mkdir()
    calls = (Call("run_command", json.dumps({"command": "rm -rf build"})), Call("run_command", json.dumps({"command": "echo fine"})))
    with fake_server("anthropic", [Reply(calls=calls), Reply(text="Done.")]) as server:
        result = collect("clean", options(cli_path, "anthropic", server.url, workspace, hooks=hooks, permission_mode="bypassPermissions"))[-1]
        sent = json.dumps(server.requests[-1])
    assert (workspace / "build").is_dir() and "no rm -rf" in sent and "checked by the SDK" in sent
    assert [d["tool_input"]["command"] for d in result.permission_denials] == ["rm -rf build"]
    assert [(p["tool_name"], p["hook_event_name"]) for p in seen] == [("Bash", "PreToolUse"), ("Bash", "PreToolUse")]
    assert len(set(ids)) == 2 and all(isinstance(i, str) and i for i in ids), "each callback is told which call it judges"


def test_sdk_hooks_we_cannot_honour_are_refused_not_ignored(cli_path: str, workspace: Path) -> None:
    async def guard(data: Any, tool_use_id: Any, context: Any) -> Any:
        return {}

    hooks = {"PreToolUse": [sdk.HookMatcher(matcher="Bash", hooks=[guard], on_failure="block")]}
    with fake_server("anthropic", [Reply(text="never")]) as server:
        with pytest.raises(Exception, match="a failing hook is a warning here"):
            collect("hi", options(cli_path, "anthropic", server.url, workspace, hooks=hooks))
        assert server.requests == []


def test_sdk_options_become_flags_we_honour(cli_path: str, workspace: Path) -> None:
    """System prompt append, allowed and disallowed tools, max turns and partial messages, as the SDK passes them."""
    bash = Call("run_command", json.dumps({"command": "echo hi"}))
    read = Call("read_file", json.dumps({"path": "notes.txt"}))
    with fake_server("anthropic", [Reply(text="Two things.", calls=(bash, read)), Reply(text="Done.")]) as server:
        opts = options(
            cli_path,
            "anthropic",
            server.url,
            workspace,
            system_prompt={"type": "preset", "preset": "claude_code", "append": "Always answer in haiku."},
            allowed_tools=["Bash(echo:*)"],
            disallowed_tools=["Read"],
            max_turns=4,
            include_partial_messages=True,
        )
        messages = collect("go", opts)
        assert "Always answer in haiku." in json.dumps(server.requests[0]["system"])
    result = messages[-1]
    assert [d["tool_name"] for d in result.permission_denials] == ["Read"]
    partial = [m for m in messages if isinstance(m, sdk.StreamEvent)]
    deltas = "".join(m.event["delta"].get("text", "") for m in partial if m.event["type"] == "content_block_delta")
    assert "Two things." in deltas and partial[0].event["type"] == "message_start"
    assistant = next(m for m in messages if isinstance(m, sdk.AssistantMessage) and any(isinstance(b, sdk.ToolUseBlock) for b in m.content))
    for position, block in enumerate(assistant.content):
        if isinstance(block, sdk.ToolUseBlock):
            pieces = [m.event["delta"]["partial_json"] for m in partial if m.event["type"] == "content_block_delta" and m.event["index"] == position]
            assert len(pieces) > 1 and json.loads("".join(pieces)) == block.input, "the SDK reassembles each call's streamed arguments"
    bash_result = next(m for m in messages if isinstance(m, sdk.UserMessage) and not m.content[0].is_error)
    assert "hi" in str(bash_result.content[0].content)


def test_a_missing_provider_still_prints_a_result_object(cli_path: str, workspace: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    env.update(PYTHONPATH=str(REPO), PSEUDOCLAUDE_HOME=str(workspace.parent / "home"))
    opts = sdk.ClaudeAgentOptions(cli_path=cli_path, cwd=str(workspace), env=env)
    with pytest.raises(Exception, match="needs ANTHROPIC_API_KEY|provider"):
        collect("hi", opts)
