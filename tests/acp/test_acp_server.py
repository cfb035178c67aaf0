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


def drive(client: RecordingClient, server_url: str, workspace: Path, body: Callable[[Any], Awaitable[Any]], *args: str, **extra_env: str) -> Any:
    """Start ``pseudoclaude acp`` (beside ``workspace``: the sessions name their folder), initialize, run ``body(conn)``; the process is reaped whatever happens."""
    env = {**cli_env("anthropic", server_url, workspace.parent / "home"), "PYTHONPATH": str(REPO), **extra_env}

    async def go() -> Any:
        async with acp.spawn_agent_process(client, sys.executable, "-m", "pseudoclaude", "acp", *args, env=env, cwd=workspace.parent) as (conn, _process):
            reply = await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
            assert reply.agent_capabilities.load_session and reply.agent_info.name == "pseudoclaude"
            return await body(conn)

    return asyncio.run(asyncio.wait_for(go(), 90))


def write_script(text: str = "Written.", thinking: str = "") -> list[Any]:
    return [
        Reply(text="I will write it.", thinking=thinking, calls=(Call("write_file", json.dumps({"path": "hello.txt", "content": "hello\n"})),)),
        Reply(text=text),
    ]


def test_an_allowed_edit_writes_the_file_and_the_editor_sees_the_call(workspace: Path) -> None:
    client = RecordingClient("allow_once")

    async def body(conn: Any) -> tuple[Any, Any]:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        reply = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("Write hello.txt")])
        return session, reply

    with fake_server("anthropic", write_script("Written hello.txt.", thinking="The user wants a greeting file.")) as server:
        session, reply = drive(client, server.url, workspace, body, PSEUDOCLAUDE_EFFORT="high")
        assert server.rejections == []
    assert reply.stop_reason == "end_turn"
    assert (workspace / "hello.txt").read_text() == "hello\n"
    assert session.modes.current_mode_id == "default" and [m.id for m in session.modes.available_modes] == ["default", "accept-edits", "plan"]
    assert client.text() == "I will write it.Written hello.txt."
    assert "The user wants a greeting file." in client.text("agent_thought_chunk"), "the reasoning streams as thought chunks"
    (started,) = client.of("tool_call")
    assert started.kind == "edit" and started.title == "write_file hello.txt"
    assert [location.path for location in started.locations] == [str(workspace / "hello.txt")]
    (diff,) = started.content
    assert diff.type == "diff" and diff.path == str(workspace / "hello.txt") and diff.new_text == "hello\n" and diff.old_text is None
    ((question, options),) = client.permissions
    assert question.tool_call_id == started.tool_call_id
    assert {option.kind for option in options} >= {"allow_once", "reject_once"}
    (finished,) = client.of("tool_call_update")
    assert finished.tool_call_id == started.tool_call_id and finished.status == "completed"
    (usage,) = client.of("usage_update")
    assert usage.size > usage.used > 0 and usage.cost is not None and usage.cost.amount > 0
    (commands,) = client.of("available_commands_update")
    assert [command.name for command in commands.available_commands] == ["compact"]


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


def test_cancel_ends_the_prompt_and_the_session_goes_on(workspace: Path) -> None:
    hold = asyncio.Event()
    client = RecordingClient("cancelled", hold=hold)

    async def body(conn: Any) -> tuple[Any, Any]:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        running = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[acp.text_block("Write hello.txt")]))
        await asyncio.wait_for(client.asked.wait(), 60)
        await conn.cancel(session_id=session.session_id)
        stopped = await running
        hold.set()
        after = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("Are you there?")])
        return stopped, after

    with fake_server("anthropic", [*write_script()[:1], Reply(text="Still here.")]) as server:
        stopped, after = drive(client, server.url, workspace, body)
        assert server.rejections == [], "the cancelled call was left without a result"
        assert "interrupted" in json.dumps(server.requests[-1]).lower()
    assert stopped.stop_reason == "cancelled" and after.stop_reason == "end_turn"
    assert not (workspace / "hello.txt").exists()
    assert client.text().endswith("Still here.")


def test_plan_and_modes(workspace: Path) -> None:
    client = RecordingClient("allow_once")
    todos = {"items": [{"content": "Read the notes", "status": "completed"}, {"content": "Write hello.txt", "status": "in_progress"}]}
    script = [Reply(text="Planning.", calls=(Call("todo_write", json.dumps(todos)),)), *write_script("Done.")]

    async def body(conn: Any) -> Any:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        with pytest.raises(acp.RequestError):
            await conn.set_session_mode(session_id=session.session_id, mode_id="bypass")
        await conn.set_session_mode(session_id=session.session_id, mode_id="accept-edits")
        return await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("Plan, then write hello.txt")])

    with fake_server("anthropic", script) as server:
        reply = drive(client, server.url, workspace, body)
        assert server.rejections == []
    assert reply.stop_reason == "end_turn" and (workspace / "hello.txt").read_text() == "hello\n"
    assert client.permissions == [], "accept-edits writes without asking"
    (plan,) = client.of("plan")
    assert [(entry.content, entry.status) for entry in plan.entries] == [("Read the notes", "completed"), ("Write hello.txt", "in_progress")]
    assert [call.title for call in client.of("tool_call")] == ["write_file hello.txt"], "the todo list is the plan, not a tool call"


def test_bypass_is_offered_only_when_allowed(workspace: Path) -> None:
    async def body(conn: Any) -> Any:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.set_session_mode(session_id=session.session_id, mode_id="bypass")
        return session

    with fake_server("anthropic", []) as server:
        session = drive(RecordingClient(), server.url, workspace, body, "--allow-dangerously-skip-permissions")
    assert session.modes.current_mode_id == "default" and "bypass" in [mode.id for mode in session.modes.available_modes]


def test_load_session_replays_a_saved_session_and_goes_on(workspace: Path) -> None:
    first, second = RecordingClient(), RecordingClient()

    async def start(conn: Any) -> str:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("Remember the word kumquat.")])
        return str(session.session_id)

    with fake_server("anthropic", [Reply(text="Noted: kumquat."), Reply(text="It was kumquat.")]) as server:
        session_id = drive(first, server.url, workspace, start)

        async def load(conn: Any) -> Any:
            listed = await conn.list_sessions(cwd=str(workspace))
            assert [info.session_id for info in listed.sessions] == [session_id]
            await conn.load_session(cwd=str(workspace), session_id=session_id, mcp_servers=[])
            replay = list(second.updates)
            reply = await conn.prompt(session_id=session_id, prompt=[acp.text_block("Which word?")])
            return replay, reply

        replay, reply = drive(second, server.url, workspace, load)
        assert server.rejections == [] and "kumquat" in json.dumps(server.requests[-1])
    kinds = [update.session_update for update in replay]
    assert kinds == ["user_message_chunk", "agent_message_chunk"]
    assert replay[0].content.text == "Remember the word kumquat." and replay[1].content.text == "Noted: kumquat."
    assert reply.stop_reason == "end_turn" and second.text().endswith("It was kumquat.")


def test_the_editors_mcp_servers_join_the_session(workspace: Path) -> None:
    from acp.schema import McpServerStdio

    demo = REPO / "tests/extensions/mcp_demo_server.py"
    client = RecordingClient("allow_once")
    script = [Reply(text="Echo.", calls=(Call("mcp__demo__echo", json.dumps({"text": "hello"})),)), Reply(text="Echoed.")]

    async def body(conn: Any) -> Any:
        server = McpServerStdio(name="demo", command=sys.executable, args=[str(demo)], env=[])
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[server])
        return await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("Echo hello")])

    with fake_server("anthropic", script) as server:
        reply = drive(client, server.url, workspace, body)
        assert server.rejections == [] and "echo: hello" in json.dumps(server.requests[-1])
    assert reply.stop_reason == "end_turn"
    (finished,) = client.of("tool_call_update")
    assert finished.status == "completed" and "echo: hello" in finished.content[0].content.text


def test_leaving_plan_mode_is_asked_and_the_new_mode_reaches_the_editor(workspace: Path) -> None:
    client = RecordingClient("allow_always")
    plan = "1. Write hello.txt"
    script = [Reply(text="My plan.", calls=(Call("exit_plan_mode", json.dumps({"plan": plan})),)), *write_script("Done.")]

    async def body(conn: Any) -> Any:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        assert session.modes.current_mode_id == "plan"
        return await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("Plan it, then do it")])

    with fake_server("anthropic", script) as server:
        reply = drive(client, server.url, workspace, body, "--permission-mode", "plan")
        assert server.rejections == []
    assert reply.stop_reason == "end_turn" and (workspace / "hello.txt").read_text() == "hello\n"
    ((question, options),) = client.permissions
    assert question.kind == "switch_mode" and plan in question.content[-1].content.text
    assert [option.name for option in options] == ["Yes, and accept edits", "Yes, and ask before each edit", "No, keep planning"]
    assert [update.current_mode_id for update in client.of("current_mode_update")] == ["accept-edits"]


def test_loading_an_unknown_session_is_a_not_found_error(workspace: Path) -> None:
    async def body(conn: Any) -> Any:
        with pytest.raises(acp.RequestError) as raised:
            await conn.load_session(cwd=str(workspace), session_id="20260101-000000-abcdef", mcp_servers=[])
        return raised.value

    with fake_server("anthropic", []) as server:
        error = drive(RecordingClient(), server.url, workspace, body)
    assert error.code == -32002
