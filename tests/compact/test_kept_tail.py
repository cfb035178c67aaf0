"""The kept tail: capped in tokens at small windows, the seed's 5-message floor at 128k and above."""

from __future__ import annotations

from pseudoclaude.compact.budget import RECENT_KEEP_MESSAGES, Budget
from pseudoclaude.compact.estimate import estimate_messages
from pseudoclaude.compact.select import select_recent
from pseudoclaude.llm.messages import Message


def _pages(count: int, size: int) -> list[Message]:
    out: list[Message] = []
    for i in range(count):
        out += [Message.user(f"page {i} " + "p" * size), Message.assistant(f"read page {i}")]
    return out


def _tail(window: int, messages: list[Message]) -> list[Message]:
    budget = Budget.for_window(window)
    return select_recent(messages, keep_tokens=budget.recent_keep_tokens, max_tokens=budget.recent_max_tokens)


def test_the_tail_at_60k_is_about_seven_percent_of_the_window() -> None:
    messages = _pages(20, 8_000)  # ~2.3k tokens a page
    tail = _tail(60_000, messages)
    tokens = estimate_messages(tail)
    assert 0.07 * 60_000 <= tokens <= 0.11 * 60_000
    assert tail == messages[-len(tail) :]


def test_at_60k_two_large_pages_do_not_make_a_five_message_tail() -> None:
    messages = _pages(6, 28_000)  # ~8k tokens a page: five messages would be ~24k
    tail = _tail(60_000, messages)
    assert len(tail) < RECENT_KEEP_MESSAGES and estimate_messages(tail) <= 0.2 * 60_000


def test_the_message_floor_holds_at_128k() -> None:
    messages = _pages(6, 60_000)  # each page alone exceeds the 10,000 keep tokens
    tail = _tail(128_000, messages)
    assert len(tail) == RECENT_KEEP_MESSAGES
    assert Budget.for_window(128_000).recent_keep_tokens == 10_000
