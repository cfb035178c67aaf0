"""Tool calls a model wrote as text: recovered when whole and valid, left as text otherwise, never run when partial."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from pseudoclaude.llm import Completed, Message, Request, ToolSpec
from pseudoclaude.llm.openai import OpenAIProvider
from tests.fakes.local_servers import FakeLocalServer, ReplyItem

READ = ToolSpec(
    "read_file",
    "Read a file.",
    {"type": "object", "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["path"], "additionalProperties": False},
)


def complete(replies: list[ReplyItem], *, tools: tuple[ToolSpec, ...] = (READ,), tool_choice: str = "auto") -> list[Completed]:
    """Each reply's ``Completed``, asked in turn of one adapter (as one session would)."""

    async def go() -> list[Completed]:
        done = []
        with FakeLocalServer("vllm", model="m", window=100_000, replies=replies) as server:
            provider = OpenAIProvider(model="m", api_key=None, base_url=server.url)
            try:
                for _ in replies:
                    request = Request(model="m", system="s", messages=[Message.user("hi")], tools=tools, tool_choice=tool_choice)  # type: ignore[arg-type]
                    events = [event async for event in provider.stream(request)]
                    done.append(next(e for e in events if isinstance(e, Completed)))
            finally:
                await provider.aclose()
        return done

    return asyncio.run(go())


def calls(done: Completed) -> list[tuple[str, dict[str, Any]]]:
    return [(call.name, json.loads(call.arguments)) for call in done.message.tool_calls]


def test_a_hermes_tagged_call_becomes_a_real_call_marked_as_recovered() -> None:
    text = 'Let me look.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.py"}}\n</tool_call>'
    [done] = complete([text])
    assert calls(done) == [("read_file", {"path": "a.py"})]
    assert done.message.text == "Let me look."
    assert done.stop_reason == "tool_use"
    assert done.message.tool_calls[0].id.startswith("call_text_")  # what the session records: a call recovered from text


def test_a_fenced_json_call_is_recovered_and_an_ordinary_code_block_beside_it_is_kept() -> None:
    text = 'Example:\n```python\nprint(1)\n```\n```json\n{"name": "read_file", "arguments": {"path": "b.py", "limit": 10}}\n```'
    [done] = complete([text])
    assert calls(done) == [("read_file", {"path": "b.py", "limit": 10})]
    assert "print(1)" in done.message.text


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>{"name": "delete_everything", "arguments": {}}</tool_call>',  # a tool not offered
        '<tool_call>{"name": "read_file", "arguments": {"limit": 3}}</tool_call>',  # a required argument missing
        '<tool_call>{"name": "read_file", "arguments": {"path": 7}}</tool_call>',  # a wrong type
        '<tool_call>{"name": "read_file", "arguments": {"path": "a", "mode": "x"}}</tool_call>',  # an unknown argument
        '<tool_call>{"name": "read_file", "arguments": "not json"}</tool_call>',
    ],
)
def test_an_invalid_call_stays_text(text: str) -> None:
    [done] = complete([text])
    assert done.message.tool_calls == () and done.message.text == text and done.stop_reason == "end_turn"


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"',  # the tag never closed, JSON cut
        '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}</tool_call>',  # closed tag, half an object
        '```json\n{"name": "read_file", "arguments": {"path": "a.py"}}',  # the fence never closed
    ],
)
def test_a_partial_call_is_never_made_real(text: str) -> None:
    [done] = complete([text])
    assert done.message.tool_calls == () and done.message.text == text


def test_one_invalid_call_among_valid_ones_leaves_all_of_them_as_text() -> None:
    text = '<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call><tool_call>{"name": "nope", "arguments": {}}</tool_call>'
    [done] = complete([text])
    assert done.message.tool_calls == ()


def test_no_recovery_without_tools_or_when_tools_are_refused() -> None:
    text = '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>'
    assert complete([text], tools=())[0].message.tool_calls == ()
    assert complete([text], tool_choice="none")[0].message.tool_calls == ()


def test_off_once_the_model_used_the_structured_field() -> None:
    text = '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>'
    structured, later = complete([{"name": "read_file", "arguments": {"path": "x"}}, text])
    assert calls(structured) == [("read_file", {"path": "x"})]
    assert later.message.tool_calls == () and later.message.text == text


def test_a_recovered_call_runs_in_a_session_and_is_recorded(tmp_path: Path) -> None:
    from pseudoclaude.agent.build import build_agent
    from pseudoclaude.config import Flags, load_settings

    (tmp_path / "notes.txt").write_text("the secret word is ostrich\n")
    replies: list[ReplyItem] = ['<tool_call>{"name": "read_file", "arguments": {"path": "notes.txt"}}</tool_call>', "It says ostrich."]
    with FakeLocalServer("vllm", model="m", window=100_000, replies=replies) as server:
        env = {"OPENAI_BASE_URL": server.url, "PSEUDOCLAUDE_HOME": str(tmp_path / "home")}
        agent = build_agent(load_settings(tmp_path, Flags(model="m", provider="openai", permission_mode="bypass"), environ=env))

        async def go() -> list[Any]:
            try:
                return [event async for event in agent.run("what does notes.txt say?")]
            finally:
                await agent.aclose()

        events = asyncio.run(go())
        second = server.requests[1]["messages"]
    tool_messages = [m for m in second if m["role"] == "tool"]
    assert len(tool_messages) == 1 and "ostrich" in tool_messages[0]["content"]
    assert events[-1].reason == "end_turn"
    recorded = next((tmp_path / "home").rglob("*.jsonl")).read_text()
    assert '"call_text_' in recorded
