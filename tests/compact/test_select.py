from __future__ import annotations

from pseudoclaude.compact import (
    RECENT_KEEP_MESSAGES,
    estimate_messages,
    expand_to_tool_boundary,
    select_recent,
)
from pseudoclaude.llm.messages import Message
from tests.compact.support import tool_round
from tests.fakes.scripted import validate_conversation


def _chat(count: int, size: int) -> list[Message]:
    return [Message.user("u" * size) if i % 2 == 0 else Message.assistant("a" * size) for i in range(count)]


def test_short_history_is_kept_whole() -> None:
    messages = _chat(4, 100)
    assert select_recent(messages) == messages


def test_tail_reaches_both_the_token_and_message_minimums() -> None:
    messages = _chat(40, 3_500)  # 1,000 estimated tokens each
    tail = select_recent(messages)
    assert estimate_messages(tail) >= 10_000
    assert len(tail) >= RECENT_KEEP_MESSAGES
    assert estimate_messages(tail[1:]) < 10_000


def test_few_huge_messages_still_keep_five() -> None:
    messages = _chat(20, 70_000)
    assert len(select_recent(messages)) == RECENT_KEEP_MESSAGES == 5  # the seed's RecentKeepMessages


def test_tail_starting_on_a_result_moves_back_to_its_call() -> None:
    round_ = tool_round([(f"c{i}", "r" * 7_000) for i in range(8)])
    messages = _chat(6, 100) + round_
    tail = select_recent(messages)
    assert tail[0] is round_[0]
    assert validate_conversation([Message.user("x")] + tail) is None


def test_expand_keeps_a_start_that_is_not_a_result() -> None:
    messages = _chat(6, 10)
    assert expand_to_tool_boundary(messages, 3) == 3


def test_expand_moves_past_orphan_results() -> None:
    messages = [Message.user("x"), Message.tool("lost", "r"), Message.tool("lost2", "r"), Message.assistant("y")]
    assert expand_to_tool_boundary(messages, 1) == 3
