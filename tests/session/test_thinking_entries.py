"""Thinking in the session file: stored with its opaque data, read back equal; 1.2 files still read."""

from __future__ import annotations

import json
from pathlib import Path

from pseudoclaude.agent import repair
from pseudoclaude.compact.estimate import estimate_messages
from pseudoclaude.compact.summarize import render_message
from pseudoclaude.llm import Message, Thinking, ToolCall, Usage
from pseudoclaude.session import FORMAT_VERSION, create_session, load_replay

THOUGHT = Thinking("anthropic", "thinking", "I should read a.py — ünïcode too.", "c2lnbmF0dXJl+/==")
REDACTED = Thinking("anthropic", "redacted_thinking", "", "RURBQ1RFRA==")
ASSISTANT = Message.assistant("Reading.", [ToolCall("toolu_1", "read_file", '{"path": "a.py"}')], [THOUGHT, REDACTED])


def test_thinking_parts_and_reasoning_tokens_round_trip_through_the_session_file(sessions_dir: Path, workspace: Path) -> None:
    with create_session(sessions_dir, workspace, model="claude-opus-4-7", provider="anthropic") as session:
        session.append_message(Message.user("read a.py"))
        session.append_message(ASSISTANT)
        session.append_usage(Usage(10, 900, reasoning_tokens=700), context_messages=1)
        session.append_message(Message.tool("toolu_1", "print(1)"))
        path = session.jsonl_path
    replay = load_replay(path)
    assert replay.conversation[1] == ASSISTANT
    assert replay.usage_total.reasoning_tokens == 700 and replay.usage_total.output_tokens == 900
    assert FORMAT_VERSION == "1.6"


def test_a_format_1_2_message_without_thinking_still_reads(sessions_dir: Path, workspace: Path) -> None:
    with create_session(sessions_dir, workspace, model="m", provider="anthropic") as session:
        session.append_message(Message.user("hi"))
        path = session.jsonl_path
    old = {"type": "message", "id": "abc", "ts": "2026-01-01T00:00:00.000Z", "version": "1.2", "message": {"role": "assistant", "text": "hello"}}
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(old) + "\n")
    assert load_replay(path).conversation[-1] == Message.assistant("hello")


def test_thinking_stays_with_its_tool_calls_through_repair_and_never_enters_a_summary_transcript() -> None:
    history = [Message.user("go"), ASSISTANT]
    repaired = repair(history)
    assert repaired[1].thinking == (THOUGHT, REDACTED) and repaired[2].role == "tool"
    assert "I should read" not in render_message(ASSISTANT)


def test_the_context_estimate_counts_the_thinking_that_is_sent_back() -> None:
    plain = Message.assistant("Reading.", ASSISTANT.tool_calls)
    assert estimate_messages([ASSISTANT]) > estimate_messages([plain])
