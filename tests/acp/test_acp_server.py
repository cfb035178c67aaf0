"""``pseudoclaude acp`` as a subprocess, driven over stdio by the official ACP SDK's client side, against the fake Anthropic server.

What an editor sees: the session it opens, the answer streamed as message
chunks, a permission question for an edit (allowed: the file is written;
rejected: it is not), the tool call with its diff and file, the plan from
``todo_write``, the modes, a cancel that leaves the session usable, and a
saved session loaded back with its history.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any, Awaitable, Callable

import pytest

from tests.e2e.support import cli_env, fake_server
from tests.fakes.script import Call, Reply

acp = pytest.importorskip("acp")

from tests.acp.support import RecordingClient  # noqa: E402

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("alpha\n")
    return ws


def drive(client: RecordingClient, server_url: str, workspace: Path, body: Callable[[Any], Awaitable[Any]], *args: str) -> Any:
    """Start ``pseudoclaude acp`` in ``workspace``, initialize, run ``body(conn)``; the process is reaped whatever happens."""
    env = {**cli_env("anthropic", server_url, workspace.parent / "home"), "PYTHONPATH": str(REPO)}

    async def go() -> Any:
        async with acp.spawn_agent_process(client, sys.executable, "-m", "pseudoclaude", "acp", *args, env=env, cwd=workspace) as (conn, _process):
            reply = await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
            assert reply.agent_capabilities.load_session and reply.agent_info.name == "pseudoclaude"
            return await body(conn)

    return asyncio.run(asyncio.wait_for(go(), 30))


def write_script(text: str = "Written.") -> list[Any]:
    return [
        Reply(text="I will write it.", calls=(Call("write_file", json.dumps({"path": "hello.txt", "content": "hello\n"})),)),
        Reply(text=text),
    ]


def test_an_allowed_edit_writes_the_file_and_the_editor_sees_the_call(workspace: Path) -> None:
    client = RecordingClient("allow_once")

    async def body(conn: Any) -> tuple[Any, Any]:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        reply = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("Write hello.txt")])
        return session, reply

    with fake_server("anthropic", write_script("Written hello.txt.")) as server:
        session, reply = drive(client, server.url, workspace, body)
        assert server.rejections == []
    assert reply.stop_reason == "end_turn"
    assert (workspace / "hello.txt").read_text() == "hello\n"
    assert session.modes.current_mode_id == "default" and [m.id for m in session.modes.available_modes] == ["default", "accept-edits", "plan"]
    assert client.text() == "I will write it.Written hello.txt."
    (started,) = client.of("tool_call")
    assert started.kind == "edit" and started.title == "write_file hello.txt"
    assert [location.path for location in started.locations] == [str(workspace / "hello.txt")]
    (diff,) = started.content
    assert diff.type == "diff" and diff.path == str(workspace / "hello.txt") and diff.new_text == "hello\n" and diff.old_text is None
    (question, options), = client.permissions
    assert question.tool_call_id == started.tool_call_id
    assert {option.kind for option in options} >= {"allow_once", "reject_once"}
    (finished,) = client.of("tool_call_update")
    assert finished.tool_call_id == started.tool_call_id and finished.status == "completed"


def test_a_rejected_edit_leaves_the_file_unwritten(workspace: Path) -> None:
    client = RecordingClient("reject_once")

    async def body(conn: Any) -> Any:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        return await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("Write hello.txt")])

    with fake_server("anthropic", write_script("It was refused.")) as server:
        reply = drive(client, server.url, workspace, body)
        assert server.rejections == []
        assert "rejected" in json.dumps(server.requests[-1])
    assert reply.stop_reason == "end_turn" and not (workspace / "hello.txt").exists()
    (finished,) = client.of("tool_call_update")
    assert finished.status == "failed"
    assert client.text().endswith("It was refused.")
