from __future__ import annotations

from pseudoclaude.agent.closure import MISSING_RESULT, normalize_call_ids, repair
from pseudoclaude.llm.messages import Message, ToolCall
from tests.fakes.scripted import validate_conversation


def calls(*ids: str) -> list[ToolCall]:
    return [ToolCall(i, "echo", "{}") for i in ids]


def test_a_valid_conversation_is_left_unchanged() -> None:
    history = [Message.user("q"), Message.assistant("", calls("a")), Message.tool("a", "r"), Message.assistant("done")]
    assert repair(history) == history


def test_unanswered_calls_get_an_error_result_in_call_order() -> None:
    history = [Message.user("q"), Message.assistant("", calls("a", "b", "c")), Message.tool("b", "rb")]
    fixed = repair(history)
    assert [m.tool_result.call_id for m in fixed[2:]] == ["a", "b", "c"]
    assert fixed[2].tool_result.content == MISSING_RESULT and fixed[2].tool_result.is_error
    assert fixed[3].tool_result.content == "rb"


def test_orphan_and_duplicate_results_are_dropped() -> None:
    history = [
        Message.user("q"),
        Message.tool("ghost", "orphan at the start"),
        Message.assistant("", calls("a")),
        Message.tool("a", "first"),
        Message.tool("a", "duplicate"),
        Message.tool("zzz", "answers nothing"),
        Message.user("next"),
        Message.tool("a", "late result after a user turn"),
    ]
    fixed = repair(history)
    assert validate_conversation(fixed) is None
    assert [m.tool_result.content for m in fixed if m.tool_result] == ["first"]


def test_consecutive_user_messages_merge_and_empty_assistants_vanish() -> None:
    fixed = repair([Message.user("one"), Message.assistant(""), Message.user("two")])
    assert fixed == [Message.user("one\n\ntwo")]


def test_history_starting_with_the_assistant_gets_a_user_opening() -> None:
    fixed = repair([Message.assistant("hello"), Message.user("hi")])
    assert fixed[0].role == "user" and validate_conversation(fixed) is None


def test_repair_is_deterministic() -> None:
    history = [Message.user("q"), Message.assistant("x", calls("a", "b"))]
    assert repair(history) == repair(history)


def test_hostile_empty_and_duplicate_ids_are_normalized_stably() -> None:
    seen: set[str] = {"dup"}
    message = Message.assistant("", [ToolCall("../x", "echo"), ToolCall("", "echo"), ToolCall("dup", "echo"), ToolCall("ok_1", "echo")])
    fixed = normalize_call_ids(message, seen)
    ids = [c.id for c in fixed.tool_calls]
    assert ids[3] == "ok_1"
    assert all(i.startswith("call_") for i in ids[:3]) and len(set(ids)) == 4
