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
        return sdk.PermissionResultAllow(updated_input={**tool_input, "command": "echo safe > out.txt"})

    call = Call("run_command", json.dumps({"command": "echo unsafe > out.txt"}), id="toolu_rewrite_1")
    with fake_server("anthropic", [Reply(calls=(call,)), Reply(text="Done.")]) as server:
        messages = collect_streamed("write it", options(cli_path, "anthropic", server.url, workspace, can_use_tool=sanitize))
        sent = json.dumps(server.requests[-1])
    assert asked == [("Bash", {"command": "echo unsafe > out.txt"}, "toolu_rewrite_1")]
    assert (workspace / "out.txt").read_text() == "safe\n", "the rewritten command ran, not the model's"
    result_message = next(m for m in messages if isinstance(m, sdk.UserMessage))
    (block,) = result_message.content
    assert block.tool_use_id == "toolu_rewrite_1" and "echo safe > out.txt" in str(block.content)
    assert "echo safe > out.txt" in sent, "the model reads which command ran"
    assert messages[-1].subtype == "success" and messages[-1].permission_denials == []
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
    init = messages[0]
    assert messages[0].data["mcp_servers"] == [{"name": "calc", "status": "connected"}] and "mcp__calc__add" in offered
    assert added == [{"a": 2, "b": 40}] and "sum=42" in sent
    assert messages[-1].subtype == "success" and messages[-1].result == "42."
