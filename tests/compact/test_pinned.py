"""The pinned block: the user's messages, the files touched and the last failure survive every summary outside it."""

from __future__ import annotations

import asyncio
import json
from typing import Sequence

import pytest

from pseudoclaude.compact import Budget, BytesEstimator, ContextState, PinnedTool, WorkingSet, force_compact, manage_context, summarize
from pseudoclaude.compact.estimate import estimate_messages
from pseudoclaude.llm.messages import Message, ToolCall
from tests.compact.listing import names_path
from tests.compact.support import RecordingSession, SummaryProvider
from tests.fakes.scripted import validate_conversation

TOOLS = {
    "read_file": PinnedTool("read", "path"),
    "edit_file": PinnedTool("edit", "path"),
    "run_command": PinnedTool("execute", "command"),
    "todo_write": PinnedTool("todo", "items"),
}
TASK = "TASK: the parser drops trailing commas in src/parser.py; fix it and make tests/test_parser.py pass"
SUMMARY = "<summary>the model's own words about the work</summary>"


def _state(window: int = 16_000) -> ContextState:
    return ContextState(model="m", context_window=window, estimator=BytesEstimator(), working_set=WorkingSet(TOOLS))


def _call(call_id: str, tool: str, content: str, **arguments: object) -> list[Message]:
    return [Message.assistant(f"using {tool}", [ToolCall(call_id, tool, json.dumps(arguments))]), Message.tool(call_id, content)]


def _read(call_id: str, path: str, first: int = 1, last: int = 80, total: int = 200) -> list[Message]:
    body = "".join(f"{n}\tline {n} of {path} " + "x" * 60 + "\n" for n in range(first, last + 1))
    return _call(call_id, "read_file", body + f"… lines {first}-{last} of {total}\n", path=path)


def _failing_test(call_id: str) -> list[Message]:
    output = "collected 12 items\n" + "ok\n" * 30 + "E   AssertionError: [1, 2] != [1, 2, 3]\nFAILED tests/test_parser.py::test_commas\n[exit code 1]"
    return _call(call_id, "run_command", output, command="pytest tests/test_parser.py")


def _outside_summary(conversation: Sequence[Message]) -> str:
    """Everything the model sees after compaction except the summary message itself."""
    parts = [m.text for m in conversation[1:]]
    parts += [m.tool_result.content for m in conversation if m.tool_result is not None]
    return "\n".join(parts)


def _session_one() -> list[Message]:
    conversation = [Message.user(TASK)]
    conversation += _read("r1", "src/parser.py", 1, 80)
    conversation += _read("r2", "src/parser.py", 81, 160)
    conversation += _read("r3", "src/lexer.py")
    conversation += _call("t1", "todo_write", "ok", items=[{"content": "fix commas", "status": "in_progress"}, {"content": "run tests", "status": "pending"}])
    conversation += _call("e1", "edit_file", "edited", path="src/parser.py", old_string="a", new_string="b")
    conversation += _failing_test("c1")
    conversation += [Message.assistant("the test still fails"), Message.user("also keep the error messages unchanged")]
    for n in range(6):
        conversation += _read(f"r{n + 10}", f"src/module_{n}.py")
    return conversation


def test_after_a_summary_every_touched_path_the_last_failure_and_both_user_messages_are_outside_it() -> None:
    state = _state()
    outcome = asyncio.run(force_compact(_session_one(), state, SummaryProvider([SUMMARY])))
    conversation = outcome.conversation
    assert outcome.summarized and validate_conversation(conversation) is None
    kept = _outside_summary(conversation)
    assert TASK in kept and "also keep the error messages unchanged" in kept
    for path in ["src/parser.py", "src/lexer.py", *(f"src/module_{n}.py" for n in range(6))]:
        assert names_path(kept, path)
    assert "- src/: parser.py (edited; read 1-160 of 200)" in kept
    assert "$ pytest tests/test_parser.py\n[exit code 1]" in kept and "FAILED tests/test_parser.py::test_commas" in kept
    assert "[~] fix commas\n[ ] run tests" in kept
    assert TASK not in conversation[0].text, "the first request is kept mechanically, not by the model"


def test_two_compactions_never_lose_the_first_or_the_latest_user_message() -> None:
    state, provider = _state(), SummaryProvider([SUMMARY])
    conversation = list(asyncio.run(force_compact(_session_one(), state, provider)).conversation)
    for n in range(8):
        conversation += _read(f"s{n}", f"lib/other_{n}.py") + [Message.assistant(f"noted {n}"), Message.user(f"next step {n}")]
    outcome = asyncio.run(manage_context(conversation, state, provider))
    assert outcome.summarized and validate_conversation(outcome.conversation) is None
    kept = _outside_summary(outcome.conversation)
    assert TASK in kept and "next step 7" in kept
    assert names_path(kept, "src/parser.py") and names_path(kept, "lib/other_0.py") and "pytest tests/test_parser.py" in kept
    second = asyncio.run(force_compact([*outcome.conversation, Message.assistant("ok"), Message.user("last words")], state, provider))
    kept = _outside_summary(second.conversation)
    assert TASK in kept and "last words" in kept and names_path(kept, "src/lexer.py")


def test_a_command_that_later_succeeds_is_no_longer_the_last_failure() -> None:
    working = WorkingSet(TOOLS)
    working.ingest([Message.user("go"), *_failing_test("c1"), *_call("c2", "run_command", "12 passed\n[exit code 0]", command="pytest tests/test_parser.py")])
    assert working.failure is None
    working.ingest(_call("c3", "run_command", "[exit code 2 · 10 bytes, 1 line · 0.1 s · saved]\nboom\n", command="make"))
    assert working.failure is not None and (working.failure.command, working.failure.ending) == ("make", "exit code 2")


def test_the_working_set_reads_each_message_once_and_starts_over_after_a_clear() -> None:
    working = WorkingSet(TOOLS)
    conversation = [Message.user("first"), Message.assistant("a"), Message.user("second")]
    working.observe(conversation)
    working.mark(conversation)
    working.observe([*conversation, Message.assistant("b"), Message.user("third")])
    assert working.user_messages == ["first", "second", "third"]
    working.mark([*conversation, Message.assistant("b"), Message.user("third")])
    working.observe([Message.user("fresh start")])
    assert working.user_messages == ["fresh start"]


@pytest.mark.parametrize("cap", [400, 1_000, 4_000])
def test_the_block_respects_its_cap_and_keeps_the_first_and_the_latest_message(cap: int) -> None:
    working = WorkingSet(TOOLS)
    messages: list[Message] = [Message.user("FIRST " + "a" * 40_000)]
    for n in range(60):
        messages += _read(f"r{n}", f"pkg/deeply/nested/module_number_{n}.py") + [Message.assistant("ok"), Message.user(f"message {n} " + "b" * 300)]
    messages += _failing_test("c1") + [Message.assistant("ok"), Message.user("LATEST please finish")]
    working.ingest(messages)
    state = _state()
    block = working.render(cap, state.count_text)
    assert state.count_text(block) <= cap
    assert "FIRST aaa" in block and "LATEST please finish" in block


@pytest.mark.parametrize("window, cap", [(200_000, 4_000), (128_000, 4_000), (60_000, 1_875), (16_000, 500), (4_096, 400)])
def test_the_cap_scales_with_the_window(window: int, cap: int) -> None:
    assert Budget.for_window(window).pinned_max_tokens == cap


def test_a_resumed_working_set_renders_the_same_block() -> None:
    state, provider = _state(), SummaryProvider([SUMMARY])
    transcript = _session_one()
    compacted = asyncio.run(force_compact(transcript, state, provider)).conversation
    resumed = WorkingSet.replayed(transcript, compacted, TOOLS)
    count = state.count_text
    assert resumed.render(2_000, count) == state.working_set.render(2_000, count)
    grown = [*compacted, Message.assistant("ok"), Message.user("more")]
    resumed.observe(grown)
    state.working_set.observe(grown)
    assert resumed.user_messages == state.working_set.user_messages == [TASK, "also keep the error messages unchanged", "more"]


def test_trimming_the_summary_input_keeps_the_first_request_and_the_latest_message() -> None:
    messages = [Message.user(TASK)]
    for n in range(30):
        messages += [Message.assistant(f"answer {n} " + "y" * 2_000), Message.user(f"user {n} " + "z" * 2_000)]
    messages += [Message.assistant("ok"), Message.user("LATEST")]
    provider = SummaryProvider([SUMMARY])
    asyncio.run(summarize(provider, "m", messages, budget_tokens=8_000, count=estimate_messages))
    sent = provider.requests[0].messages[-1].text
    assert TASK in sent and "LATEST" in sent and "earlier messages omitted" in sent
    assert "answer 0 " not in sent and "user 29 " in sent, "the middle goes, oldest first"
    assert sent.index(TASK) < sent.index("omitted") < sent.index("LATEST")


def test_the_compaction_entry_records_the_trigger() -> None:
    session = RecordingSession()
    state = ContextState(model="m", context_window=16_000, session=session, estimator=BytesEstimator())
    outcome = asyncio.run(force_compact(_session_one(), state, SummaryProvider([SUMMARY]), trigger="overflow"))
    assert outcome.summarized and outcome.action("compact") is not None
    assert dict(outcome.action("compact").data)["trigger"] == "overflow"  # type: ignore[union-attr]
    assert [data["trigger"] for kind, data in session.events if kind == "compaction"] == ["overflow"]


def test_when_the_tail_holds_every_user_message_the_block_keeps_the_files() -> None:
    working = WorkingSet(TOOLS)
    working.ingest([Message.user("only request"), *_read("r1", "src/a.py")])
    block = working.render(1_000, _state().count_text, tail=["only request"])
    assert "only request" not in block and "- src/: a.py (read 1-80 of 200)" in block
