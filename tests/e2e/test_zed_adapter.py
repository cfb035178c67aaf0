"""Zed's ACP adapter (``@zed-industries/claude-agent-acp``) drives our CLI, unchanged, through ``CLAUDE_CODE_EXECUTABLE``.

The adapter is what Zed, JetBrains and the Neovim/Emacs ACP clients run for
"Claude Code": it speaks ACP to the editor and drives the executable with the
TypeScript Agent SDK (``--input-format stream-json --replay-user-messages
--permission-prompt-tool stdio ...``). Here the real adapter runs under node,
pointed at a launcher that runs ``python -m pseudoclaude`` against the fake
Anthropic server, and the official ACP Python SDK plays the editor. ``.ci/run``
installs the adapter (``.ci/node``); outside CI a missing adapter skips, in CI
it fails.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any, Awaitable, Callable

import pytest

from tests.e2e.support import cli_env, fake_server
from tests.fakes.script import Call, Reply, StallStream

acp = pytest.importorskip("acp")

from tests.acp.support import RecordingClient  # noqa: E402

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
ADAPTER = Path(os.environ.get("PSEUDOCLAUDE_ACP_ADAPTER") or REPO / ".ci/node/node_modules/@zed-industries/claude-agent-acp/dist/index.js")


@pytest.fixture
def adapter() -> tuple[str, Path]:
    node = shutil.which("node")
    if node is None or not ADAPTER.is_file():
        missing = "node" if node is None else str(ADAPTER)
        if os.environ.get("CI") == "true":
            pytest.fail(f"Zed's ACP adapter is not installed ({missing} missing): .ci/run installs it with npm")
        pytest.skip(f"Zed's ACP adapter is not installed ({missing} missing): npm install --prefix .ci/node @zed-industries/claude-agent-acp")
    return node, ADAPTER


def launcher(folder: Path) -> Path:
    """What ``CLAUDE_CODE_EXECUTABLE`` names: our CLI, with every argument the SDK passes."""
    path = folder / "pseudoclaude-for-zed"
    path.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m pseudoclaude "$@"\n')
    path.chmod(0o755)
    return path


def adapter_env(url: str, tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {
        **cli_env("anthropic", url, home / ".pseudoclaude"),
        "HOME": str(home),
        "PYTHONPATH": str(REPO),
        "CLAUDE_CODE_EXECUTABLE": str(launcher(tmp_path)),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
    }


def drive(adapter: tuple[str, Path], client: RecordingClient, env: dict[str, str], workspace: Path, body: Callable[[Any, str], Awaitable[Any]]) -> Any:
    """The adapter under node, initialized, with one new session; ``body(conn, session_id)``; every process reaped."""
    node, script_path = adapter

    async def go() -> Any:
        async with acp.spawn_agent_process(client, node, str(script_path), env=env, cwd=workspace) as (conn, _process):
            await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
            session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
            return await body(conn, session.session_id)

    return asyncio.run(asyncio.wait_for(go(), 90))


def test_zed_adapter_cancels_a_prompt_and_the_next_one_answers(adapter: tuple[str, Path], tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    client = RecordingClient()
    script = [StallStream(Reply(text="Let me think about this for a long while."), after_deltas=1), Reply(text="Back again.")]
    with fake_server("anthropic", script) as server:

        async def body(conn: Any, session_id: str) -> tuple[str, str]:
            running = asyncio.ensure_future(conn.prompt(session_id=session_id, prompt=[acp.text_block("Think")]))
            assert await asyncio.to_thread(server.stalled.wait, 60)
            await conn.cancel(session_id=session_id)
            stopped = await running
            after = await conn.prompt(session_id=session_id, prompt=[acp.text_block("Still there?")])
            return str(stopped.stop_reason), str(after.stop_reason)

        stopped, after = drive(adapter, client, adapter_env(server.url, tmp_path), workspace, body)
        assert server.rejections == []
    assert (stopped, after) == ("cancelled", "end_turn")
    assert client.text().endswith("Back again.")


def test_zed_adapter_edits_a_file_after_the_editor_allows_it(adapter: tuple[str, Path], tmp_path: Path) -> None:
    node, script_path = adapter
    workspace = tmp_path / "ws"
    workspace.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    script = [
        Reply(text="I will write it.", calls=(Call("write_file", json.dumps({"path": "hello.txt", "content": "hello from zed\n"})),)),
        Reply(text="Done: hello.txt is written."),
    ]
    client = RecordingClient("allow_once")
    with fake_server("anthropic", script) as server:
        env = {
            **cli_env("anthropic", server.url, home / ".pseudoclaude"),
            "HOME": str(home),
            "PYTHONPATH": str(REPO),
            "CLAUDE_CODE_EXECUTABLE": str(launcher(tmp_path)),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        }

        async def go() -> str:
            async with acp.spawn_agent_process(client, node, str(script_path), env=env, cwd=workspace) as (conn, _process):
                await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
                session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
                reply = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("Write hello.txt")])
                return str(reply.stop_reason)

        stop = asyncio.run(asyncio.wait_for(go(), 60))
        assert server.rejections == []
    assert stop == "end_turn"
    assert client.permissions, "the editor was never asked: the adapter refuses a can_use_tool request without Claude Code's tool_use_id"
    assert (workspace / "hello.txt").read_text() == "hello from zed\n"
    ((tool_call, options),) = client.permissions
    assert tool_call.tool_call_id and {option.kind for option in options} >= {"allow_once", "reject_once"}
    assert "Done: hello.txt is written." in client.text()
    started = client.of("tool_call")
    assert started and started[0].tool_call_id == tool_call.tool_call_id
