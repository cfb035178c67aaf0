"""The ``Agent`` facade, the terminal's whole contract: built by ``build_agent`` against the fake Anthropic server."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from contextlib import aclosing
from pathlib import Path
from typing import Any, AsyncGenerator, Awaitable, Callable, Mapping, TypeVar

import pytest

from pseudoclaude.agent.build import build_agent
from pseudoclaude.agent.events import Event, Stop, ToolCallFinished
from pseudoclaude.agent import Agent, AgentStatus, ContextBreakdown
from pseudoclaude.config import Flags, load_settings
from pseudoclaude.llm import context_window, provider_entry
from pseudoclaude.llm.messages import Message
from pseudoclaude.session import list_sessions
from pseudoclaude.tools.permissions import PermissionMode
from tests.e2e.support import KEYS, fake_server
from tests.fakes.script import Call, Reply, Script, Step, is_summary_request

T = TypeVar("T")
MODEL = provider_entry("anthropic").default_model  # priced in the table, and not on the SDK's deprecation list (warnings are errors)


def agent_for(tmp_path: Path, url: str, **flags: Any) -> Agent:
    flags.setdefault("model", MODEL)
    env = {"ANTHROPIC_API_KEY": KEYS["anthropic"], "ANTHROPIC_BASE_URL": url, "PSEUDOCLAUDE_HOME": str(tmp_path / "home")}
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    return build_agent(load_settings(workspace, Flags(**flags), environ=env))


async def drain(events: AsyncGenerator[Event, None]) -> list[Event]:
    async with aclosing(events) as stream:
        return [event async for event in stream]


def play(tmp_path: Path, script: Script, scenario: Callable[[Agent], Awaitable[T]], **flags: Any) -> tuple[T, list[dict[str, Any]]]:
    """Build an agent on a fake server playing ``script``, run ``scenario(agent)``, close it.

    Returns what the scenario returned and the requests the server saw.
    """
    with fake_server("anthropic", script) as server:
        agent = agent_for(tmp_path, server.url, **flags)

        async def go() -> T:
            try:
                return await scenario(agent)
            finally:
                await agent.aclose()

        result = asyncio.run(go())
        assert server.rejections == []
        return result, list(server.requests)


def test_status_and_context_views_follow_a_turn_and_are_frozen(tmp_path: Path) -> None:
    async def scenario(agent: Agent) -> tuple[AgentStatus, ContextBreakdown, AgentStatus, ContextBreakdown, str, str | None]:
        before, context_before = agent.status(), agent.context_breakdown()
        events = await drain(agent.run("Say hello."))
        assert isinstance(events[-1], Stop) and events[-1].final_text == "Hello there."
        titles = [info.title for info in list_sessions(tmp_path / "home" / "sessions", agent.facts.workspace)]
        return before, context_before, agent.status(), agent.context_breakdown(), agent.facts.session_id, titles[0] if titles else None

    (before, context_before, after, context_after, session_id, title), _ = play(
        tmp_path, [Reply(text="Hello there.", input_tokens=1200, output_tokens=7)], scenario
    )
    assert (before.context_tokens, before.tokens_in, before.cost_usd, before.session_id) == (0, 0, 0.0, session_id)
    assert (after.tokens_in, after.tokens_out, after.model, after.mode) == (1200, 7, MODEL, "default")
    assert after.cost_usd > 0 and after.context_tokens > 0 and after.context_window == context_window(MODEL)
    assert after.session_id == session_id and title == "Say hello."
    assert (context_before.messages, context_after.messages) == (0, 2)
    assert context_after.message_tokens > 0 and context_after.system_tokens == context_before.system_tokens > 0
    assert context_after.estimated_tokens == after.context_tokens
    for view in (after, context_after):
        with pytest.raises(dataclasses.FrozenInstanceError):
            view.context_window = 1  # type: ignore[misc]


def test_a_queued_message_joins_the_next_model_call(tmp_path: Path) -> None:
    async def scenario(agent: Agent) -> None:
        agent.queue.put("also check the tests")
        assert agent.queue.pending() == ("also check the tests",)
        await drain(agent.run("Look at the parser."))
        assert agent.queue.pending() == ()
        agent.queue.put("left over")
        assert agent.queue.take() == ("left over",) and agent.queue.pending() == ()

    _, requests = play(tmp_path, [Reply(text="Done.")], scenario)
    texts = [json.dumps(m["content"]) for m in requests[0]["messages"]]
    assert any("Look at the parser." in t for t in texts) and any("also check the tests" in t for t in texts)


def test_the_mode_switch_shows_in_the_status_and_permission_views(tmp_path: Path) -> None:
    async def scenario(agent: Agent) -> None:
        agent.set_mode(PermissionMode.PLAN)
        assert agent.current.mode is PermissionMode.PLAN and agent.status().mode == "plan"
        view = agent.permissions()
        assert view.mode is PermissionMode.PLAN and [str(rule) for rule in view.allow] == ["run_command(git status)"]

    play(tmp_path, [], scenario, allowed_tools=("run_command(git status)",))


def test_the_remember_tool_and_the_memory_views_share_one_store(tmp_path: Path) -> None:
    fact = json.dumps({"fact": "The API lives in services/api."})

    async def scenario(agent: Agent) -> None:
        await drain(agent.run("Remember where the API lives."))
        (project,) = [file for file in agent.memory.files() if file.scope == "project"]
        assert "- The API lives in services/api." in project.path.read_text()

    play(tmp_path, [Reply(calls=(Call("remember", fact),)), Reply(text="Noted.")], scenario, permission_mode="bypass")


def test_compact_summarizes_the_conversation_and_the_recap_sees_it(tmp_path: Path) -> None:
    def responder(body: Mapping[str, Any]) -> Step:
        if is_summary_request(body):
            return Reply(text="<summary>We discussed parsers at length.</summary>")
        return Reply(text="a long explanation of the topic. " * 80)

    async def scenario(agent: Agent) -> tuple[Message, ...]:
        for prompt in ("tell me about parsers", "and lexers", "and grammars"):
            await drain(agent.run(prompt))
        await drain(agent.compact("focus on the grammar discussion"))
        return agent.conversation()

    after, requests = play(tmp_path, responder, scenario, context_window=16_000)
    assert "focus on the grammar discussion" in json.dumps(requests[-1])
    summary, pinned = after[0].text, after[2].text
    assert "We discussed parsers at length." in summary and "tell me about parsers" not in summary
    assert "[1] tell me about parsers" in pinned, "the first request survives outside the summary, in the pinned block"


def test_the_terminal_never_reaches_past_the_facade() -> None:
    """``tui/`` and ``commands.py`` use the facade only: no attribute of the runner or the context engine."""
    import ast

    import pseudoclaude

    internals = {"runner", "context_step", "runtime", "pending_user_messages", "tool_specs", "spill_dir", "_runner", "_session", "_policy"}
    root = Path(pseudoclaude.__file__).parent
    found = [
        f"{path.relative_to(root)}:{node.lineno} .{node.attr}"
        for path in (*sorted((root / "tui").glob("*.py")), root / "commands.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Attribute) and node.attr in internals
    ]
    assert found == []


def test_a_runs_model_and_allowed_tools_hold_for_that_run_only(tmp_path: Path) -> None:
    write = Call("write_file", json.dumps({"path": "note.txt", "content": "hi\n"}))

    async def scenario(agent: Agent) -> tuple[list[Event], list[Event], str, tuple[str, ...]]:
        first = await drain(agent.run("Write the note.", model="claude-fake-2", allowed_tools=("write_file",)))
        after = agent.current.model, tuple(str(rule) for rule in agent.permissions().allow)
        second = await drain(agent.run("Write it again."))
        return first, second, *after

    (first, second, model, allow), requests = play(
        tmp_path, [Reply(calls=(write,)), Reply(text="Written."), Reply(calls=(write,)), Reply(text="Refused.")], scenario
    )
    assert [request["model"] for request in requests] == ["claude-fake-2", "claude-fake-2", MODEL, MODEL]
    assert model == MODEL and allow == ()
    [allowed] = [e for e in first if isinstance(e, ToolCallFinished)]
    [refused] = [e for e in second if isinstance(e, ToolCallFinished)]
    assert not allowed.denied and refused.denied
    assert first[-1] == Stop("end_turn", "Written.", 2) and second[-1] == Stop("end_turn", "Refused.", 2)


def test_the_facade_keeps_twenty_members_at_most_and_hands_its_parts_out_whole(tmp_path: Path) -> None:
    """``Agent`` was a 49-member pass-through (then 43); the queue, background commands, MCP servers, memory and what a
    program adds are now objects their owners hand out, each asked directly."""

    async def scenario(agent: Agent) -> tuple[list[str], tuple[str, ...], tuple[str, ...], tuple[str, ...], list[str], Any, Any]:
        public = sorted(name for name in dir(agent) if not name.startswith("_"))
        agent.queue.put("and the tests too")
        queued, taken = agent.queue.pending(), agent.queue.take()
        await drain(agent.run("hello"))
        return public, queued, taken, agent.queue.pending(), list(agent.extensions.tool_traits()), agent.facts, agent.current

    (public, queued, taken, after, traits, facts, current), requests = play(tmp_path, [Reply(text="Done.")], scenario)
    assert len(public) <= 20, public
    assert {"run", "compact", "aclose", "queue", "background", "mcp", "memory", "extensions"} <= set(public)
    assert queued == taken == ("and the tests too",) and after == ()
    assert [message["content"] for message in requests[0]["messages"] if message["role"] == "user"][-1][-1]["text"] == "hello"
    assert traits == [tool["name"] for tool in requests[0]["tools"]]
    assert facts.workspace == tmp_path / "ws" and (current.provider, current.model, current.request_tokens) == ("anthropic", MODEL, 0)
