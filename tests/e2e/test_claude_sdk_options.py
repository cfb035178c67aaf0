"""The Agent SDK's options beyond the basics (issue 27 item 4), the real ``claude-agent-sdk`` driving the real CLI.

``can_use_tool``'s ``tool_use_id`` and ``updated_input``, in-process SDK MCP
servers (``create_sdk_mcp_server``), ``agents=``, ``output_format`` (structured
output), an interrupt's aborted call and ``terminal_reason``, and the init
message's commands and agents. Each test starts one CLI process through the SDK
against a wire-level fake provider.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.support import fake_server
from tests.e2e.test_claude_sdk import cli_path, collect, options, until_result, with_client, workspace  # noqa: F401 - fixtures
from tests.fakes.script import Call, Reply

sdk = pytest.importorskip("claude_agent_sdk")

pytestmark = pytest.mark.slow


async def _one_prompt(text: str) -> Any:
    yield {"type": "user", "message": {"role": "user", "content": text}, "parent_tool_use_id": None, "session_id": "default"}


def collect_streamed(text: str, opts: Any) -> list[Any]:
    """``query()`` with a streamed prompt (what ``can_use_tool`` and SDK MCP servers need)."""

    async def go() -> list[Any]:
        return [message async for message in sdk.query(prompt=_one_prompt(text), options=opts)]

    return asyncio.run(asyncio.wait_for(go(), 60))


def test_can_use_tool_gets_the_call_id_and_its_updated_input_is_what_runs(cli_path: str, workspace: Path) -> None:
    asked: list[tuple[str, dict[str, Any], Any]] = []

    async def sanitize(name: str, tool_input: dict[str, Any], context: Any) -> Any:
        asked.append((name, dict(tool_input), context.tool_use_id))
        rewrite = "echo safe > out.txt" if "out.txt" in tool_input["command"] else "curl -s http://127.0.0.1:9/"
        return sdk.PermissionResultAllow(updated_input={**tool_input, "command": rewrite})

    call = Call("run_command", json.dumps({"command": "echo unsafe > out.txt"}), id="toolu_rewrite_1")
    other = Call("run_command", json.dumps({"command": "touch other.txt"}), id="toolu_rewrite_2")
    with fake_server("anthropic", [Reply(calls=(call, other)), Reply(text="Done.")]) as server:
        opts = options(  # without the sandbox every command that writes asks (inside it, it would just run)
            cli_path, "anthropic", server.url, workspace, can_use_tool=sanitize, disallowed_tools=["Bash(curl:*)"], extra_args={"sandbox": "off"}
        )
        messages = collect_streamed("write it", opts)
        sent = json.dumps(server.requests[-1])
    assert asked == [("Bash", {"command": "echo unsafe > out.txt"}, "toolu_rewrite_1"), ("Bash", {"command": "touch other.txt"}, "toolu_rewrite_2")]
    assert (workspace / "out.txt").read_text() == "safe\n", "the rewritten command ran, not the model's"
    assert not (workspace / "other.txt").exists()
    first, second = [m.content[0] for m in messages if isinstance(m, sdk.UserMessage)]
    assert first.tool_use_id == "toolu_rewrite_1" and "echo safe > out.txt" in str(first.content)
    assert second.is_error and "rewrote this call to is refused" in str(second.content), "a rewrite is still judged by the deny rules"
    assert "echo safe > out.txt" in sent, "the model reads which command ran"
    assert messages[-1].subtype == "success" and [d["tool_use_id"] for d in messages[-1].permission_denials] == ["toolu_rewrite_2"]
    session_files = list((workspace.parent / "home").rglob("*.jsonl"))
    assert any("echo safe > out.txt" in path.read_text() for path in session_files), "the session records what ran"


def test_an_in_process_sdk_mcp_server_is_called_through_the_sdk(cli_path: str, workspace: Path) -> None:
    added: list[dict[str, Any]] = []

    @sdk.tool("add", "Add two numbers", {"a": int, "b": int})
    async def add(args: dict[str, Any]) -> dict[str, Any]:
        added.append(args)
        return {"content": [{"type": "text", "text": f"sum={args['a'] + args['b']}"}]}

    server = sdk.create_sdk_mcp_server("calc", tools=[add])
    call = Call("mcp__calc__add", json.dumps({"a": 2, "b": 40}))
    with fake_server("anthropic", [Reply(calls=(call,)), Reply(text="42.")]) as fake:
        opts = options(cli_path, "anthropic", fake.url, workspace, mcp_servers={"calc": server}, permission_mode="bypassPermissions")
        messages = collect_streamed("add", opts)
        offered = [t["name"] for t in fake.requests[0]["tools"]]
        sent = json.dumps(fake.requests[-1])
    assert messages[0].data["mcp_servers"] == [{"name": "calc", "status": "connected"}] and "mcp__calc__add" in offered
    assert added == [{"a": 2, "b": 40}] and "sum=42" in sent
    assert messages[-1].subtype == "success" and messages[-1].result == "42."


def test_sdk_agents_and_custom_commands_are_listed_offered_and_run(cli_path: str, workspace: Path) -> None:
    commands = workspace / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $ARGUMENTS with the reviewer agent.\n")
    agents = {"reviewer": sdk.AgentDefinition(description="Reviews code for bugs", prompt="You review code. Be terse.", tools=["Read"])}
    seen: dict[str, Any] = {}

    async def body(client: Any) -> None:
        info = await client.get_server_info()
        seen["commands"] = [(c["name"], c["description"]) for c in info["commands"]]
        seen["agents"] = [a["name"] for a in info["agents"]]
        await client.query("/review notes.txt")
        seen["messages"] = await until_result(client)

    task = Call("task", json.dumps({"description": "review notes", "prompt": "Review notes.txt", "subagent_type": "reviewer"}))
    script = [Reply(calls=(task,)), Reply(text="No bugs in notes.txt."), Reply(text="The reviewer found no bugs.")]
    with fake_server("anthropic", script) as server:
        with_client(options(cli_path, "anthropic", server.url, workspace, agents=agents, permission_mode="bypassPermissions"), body)
        first, sub = server.requests[0], server.requests[1]
    assert seen["commands"] == [("compact", "Summarize the conversation now"), ("review", "Review a file")]
    assert "reviewer" in seen["agents"] and "explore" in seen["agents"]
    init = seen["messages"][0]
    assert init.data["slash_commands"] == ["compact", "review"] and "reviewer" in init.data["agents"]
    assert "Review notes.txt with the reviewer agent." in json.dumps(first["messages"]), "the custom command expanded"
    task_tool = next(t for t in first["tools"] if t["name"] == "task")
    assert "reviewer" in task_tool["input_schema"]["properties"]["subagent_type"]["enum"] and "Reviews code for bugs" in task_tool["description"]
    assert "You review code. Be terse." in json.dumps(sub["system"]) and [t["name"] for t in sub["tools"]] == ["read_file"]
    assert seen["messages"][-1].result == "The reviewer found no bugs."


def test_output_format_returns_structured_output_after_a_nudge_and_a_retry(cli_path: str, workspace: Path) -> None:
    schema = {"type": "object", "properties": {"lines": {"type": "integer"}}, "required": ["lines"], "additionalProperties": False}
    script = [
        Reply(text="It has three lines."),
        Reply(calls=(Call("structured_output", json.dumps({"lines": "three"})),)),
        Reply(calls=(Call("structured_output", json.dumps({"lines": 3})),)),
        Reply(text="Done."),
    ]
    with fake_server("anthropic", script) as server:
        opts = options(cli_path, "anthropic", server.url, workspace, output_format={"type": "json_schema", "schema": schema})
        messages = collect("How many lines in notes.txt?", opts)
        tools = [t["name"] for t in server.requests[0]["tools"]]
        nudged, retried = json.dumps(server.requests[1]["messages"]), json.dumps(server.requests[2]["messages"])
    assert "structured_output" in tools
    assert "without giving the structured output" in nudged and "is not of type" in retried
    result = messages[-1]
    assert result.subtype == "success" and result.structured_output == {"lines": 3} and result.terminal_reason == "completed"


def test_a_run_that_never_gives_structured_output_is_an_error(cli_path: str, workspace: Path) -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    with fake_server("anthropic", [Reply(text="no"), Reply(text="still no"), Reply(text="never")]) as server:
        with pytest.raises(sdk.ResultError) as failure:
            collect("go", options(cli_path, "anthropic", server.url, workspace, output_format={"type": "json_schema", "schema": schema}))
        assert len(server.requests) == 3, "asked twice more, then gave up"
    assert failure.value.subtype == "error_max_structured_output_retries" and "structured_output" not in failure.value.data
    assert failure.value.terminal_reason == "structured_output_retry_exhausted"


def test_a_deny_with_interrupt_refuses_the_call_and_stops_the_prompt(cli_path: str, workspace: Path) -> None:
    async def stop(name: str, tool_input: dict[str, Any], context: Any) -> Any:
        return sdk.PermissionResultDeny(message="stop everything", interrupt=True)

    call = Call("write_file", json.dumps({"path": "x.txt", "content": "x"}))
    with fake_server("anthropic", [Reply(calls=(call,)), Reply(text="never asked")]) as server:
        with pytest.raises(sdk.ResultError) as failure:
            collect_streamed("write", options(cli_path, "anthropic", server.url, workspace, can_use_tool=stop))
        assert len(server.requests) == 1, "the model is not called again after the interrupt"
    assert failure.value.subtype == "error_during_execution" and failure.value.terminal_reason in ("aborted_tools", "aborted_streaming")
    assert not (workspace / "x.txt").exists()
