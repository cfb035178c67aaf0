"""Partial stream-json tool calls from our events, without a process (tests/e2e/test_partial_tool_stream.py runs the CLI)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pseudoclaude.agent import AssistantMessage, Progress, TextDelta, ToolInputDelta, ToolInputStart, UsageReport
from pseudoclaude.headless.partial import KeyRenamer
from tests.headless.test_stream_json import stream


def raw(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [line["event"] for line in lines if line["type"] == "stream_event"]


def joined(events: list[dict[str, Any]], index: int) -> str:
    return "".join(e["delta"]["partial_json"] for e in events if e["type"] == "content_block_delta" and e["index"] == index)


@pytest.mark.parametrize("cut", [1, 2, 3, 5, 7])
def test_keys_are_renamed_wherever_the_pieces_are_cut(cut: int) -> None:
    source = '{"path": "a\\"path\\": b", "pa\\u0074h2": 1, "nested": {"path": [{"path": "x"}]}, "content" : "{\\"path\\": 1}", "path":"y"}'
    renamer = KeyRenamer({"path": "file_path", "path2": "p2"})
    out = "".join(renamer.feed(source[i : i + cut]) for i in range(0, len(source), cut))
    assert json.loads(out) == {"file_path": "y", "p2": 1, "nested": {"path": [{"path": "x"}]}, "content": '{"path": 1}'}
    assert out.startswith('{"file_path": "a\\"path\\": b"'), "values and formatting pass through as written"


def test_only_the_keys_of_a_top_level_object_are_renamed() -> None:
    assert KeyRenamer({"path": "file_path"}).feed('["a", "path", {"path": 1}]') == '["a", "path", {"path": 1}]'


def test_a_tool_call_streams_between_text_and_the_next_call_with_claude_code_names() -> None:
    claude, lines = stream(partial=True)
    arguments = json.dumps({"path": "src/app.py", "content": "x = 1\n"})
    claude.feed(TextDelta("Writing."))
    claude.feed(ToolInputStart("toolu_1", "write_file", 0))
    for i in range(0, len(arguments), 4):
        claude.feed(ToolInputDelta("toolu_1", 0, arguments[i : i + 4]))
    claude.feed(ToolInputStart("toolu_2", "list_dir", 1))
    calls = ({"id": "toolu_1", "name": "write_file", "arguments": arguments}, {"id": "toolu_2", "name": "list_dir", "arguments": "{}"})
    claude.feed(AssistantMessage("Writing.", calls))
    claude.feed(UsageReport(1, 1, 0, 0, {}))
    events = raw(lines.items)
    starts = [e for e in events if e["type"] == "content_block_start"]
    assert [(e["index"], e["content_block"]["type"]) for e in starts] == [(0, "text"), (1, "tool_use"), (2, "tool_use")]
    assert starts[1]["content_block"] == {"type": "tool_use", "id": "toolu_1", "name": "Write", "input": {}}
    assert json.loads(joined(events, 1)) == {"file_path": "src/app.py", "content": "x = 1\n"}
    assert joined(events, 2) == "{}", "a call that streamed no argument still reads as an object"
    assert [e["index"] for e in events if e["type"] == "content_block_stop"] == [0, 1, 2]
    assistant = lines.items[-1]["message"]
    assert [b["type"] for b in assistant["content"]] == ["text", "tool_use", "tool_use"]
    assert json.loads(joined(events, 1)) == assistant["content"][1]["input"]


def test_calls_a_provider_sent_whole_still_stream_at_the_end() -> None:
    claude, lines = stream(partial=True)
    claude.feed(TextDelta("Running."))
    claude.feed(AssistantMessage("Running.", ({"id": "c1", "name": "run_command", "arguments": '{"command": "ls"}'},)))
    claude.feed(UsageReport(1, 1, 0, 0, {}))
    events = raw(lines.items)
    assert events[-5]["content_block"] == {"type": "tool_use", "id": "c1", "name": "Bash", "input": {}}
    assert json.loads(joined(events, 1)) == {"command": "ls"}
    assert events[-2]["delta"]["stop_reason"] == "tool_use"


def test_a_retry_ends_the_abandoned_message_and_the_next_attempt_starts_its_own() -> None:
    claude, lines = stream(partial=True)
    claude.feed(ToolInputStart("c1", "run_command", 0))
    claude.feed(ToolInputDelta("c1", 0, '{"comm'))
    claude.feed(Progress("retry", "Overloaded; retrying in 1.0s"))
    claude.feed(ToolInputStart("c1", "run_command", 0))
    claude.feed(ToolInputDelta("c1", 0, '{"command": "ls"}'))
    claude.feed(AssistantMessage("", ({"id": "c1", "name": "run_command", "arguments": '{"command": "ls"}'},)))
    claude.feed(UsageReport(1, 1, 0, 0, {}))
    events = raw(lines.items)
    kinds = [e["type"] for e in events]
    assert kinds.count("message_start") == 2 and kinds.count("message_stop") == 2
    second = events[kinds.index("message_start", 1) :]
    assert json.loads(joined(second, 0)) == {"command": "ls"}
    assert events[kinds.index("message_stop") - 1]["delta"]["stop_reason"] is None


def test_without_partial_messages_the_pieces_print_nothing() -> None:
    claude, lines = stream(partial=False)
    claude.feed(ToolInputStart("c1", "run_command", 0))
    claude.feed(ToolInputDelta("c1", 0, '{"command": "ls"}'))
    assert lines.items == []


def test_an_interrupted_stream_still_ends_its_message_before_the_result() -> None:
    claude, lines = stream(partial=True)
    claude.feed(TextDelta("Let me"))
    claude.feed(ToolInputStart("c1", "run_command", 0))
    claude.feed(ToolInputDelta("c1", 0, '{"command": "sle'))
    result = claude.finish(interrupted=True)
    kinds = [e["type"] for e in raw(lines.items)]
    assert kinds[-3:] == ["content_block_stop", "message_delta", "message_stop"]
    assert [e["index"] for e in raw(lines.items) if e["type"] == "content_block_stop"] == [0, 1]
    assert lines.items[-1] == result and result["subtype"] == "error_during_execution"
