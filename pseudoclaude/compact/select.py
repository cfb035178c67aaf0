"""Which recent messages survive a Layer 2 compaction verbatim, and how to cut safely.

The cut must never separate a tool call from its result: a provider rejects a
``tool_result`` whose ``tool_use`` is gone (and an assistant call left without
its result). Everything here cuts only at *closed-group* boundaries: a group
is one user message, or one assistant message together with the tool results
that follow it. ``select_recent`` keeps a tail from the end until it holds both
``RECENT_KEEP_TOKENS`` estimated tokens and ``RECENT_KEEP_MESSAGES`` messages
(everything, when the history is shorter; below 128k the message floor gives
way once the tail holds ``Budget.recent_max_tokens``), then ``expand_to_tool_boundary``
moves its start back to the assistant message whose call a leading result answers.
"""

from __future__ import annotations

from typing import Callable, Sequence

from pseudoclaude.compact.budget import RECENT_KEEP_MESSAGES, RECENT_KEEP_TOKENS
from pseudoclaude.compact.estimate import estimate_messages
from pseudoclaude.llm import Message

Counter = Callable[[Sequence[Message]], int]


def expand_to_tool_boundary(messages: Sequence[Message], start: int) -> int:
    """``start`` moved back to the assistant message that issued the call of a leading tool result.

    When no such assistant message exists (an orphan result), ``start`` moves
    forward past the orphan results instead, so the tail never begins with one.
    """
    if start <= 0 or start >= len(messages) or messages[start].role != "tool":
        return max(0, start)
    result = messages[start].tool_result
    call_id = result.call_id if result is not None else ""
    for index in range(start - 1, -1, -1):
        candidate = messages[index]
        if candidate.role == "assistant" and any(call.id == call_id for call in candidate.tool_calls):
            return index
        if candidate.role != "tool":
            break
    forward = start
    while forward < len(messages) and messages[forward].role == "tool":
        forward += 1
    return forward


def select_recent(
    messages: Sequence[Message],
    *,
    keep_tokens: int = RECENT_KEEP_TOKENS,
    keep_messages: int = RECENT_KEEP_MESSAGES,
    max_tokens: int | None = None,
    count: Counter = estimate_messages,
) -> list[Message]:
    """The recent tail to keep verbatim (see the module docstring).

    ``max_tokens`` caps the message floor: once the tail holds that many tokens
    it stops growing even with fewer than ``keep_messages`` messages (at a small
    window five whole messages can be two read pages, 40% of the threshold).
    """
    if not messages:
        return []
    start = len(messages)
    tokens = 0
    while start > 0:
        start -= 1
        tokens += count(messages[start : start + 1])
        if tokens >= keep_tokens and (len(messages) - start >= keep_messages or (max_tokens is not None and tokens >= max_tokens)):
            break
    start = expand_to_tool_boundary(messages, start)
    return list(messages[start:])


def closed_groups(messages: Sequence[Message]) -> list[tuple[int, int]]:
    """``(start, end)`` slices that can be dropped whole without orphaning a call or a result."""
    groups: list[tuple[int, int]] = []
    start = 0
    for index in range(1, len(messages) + 1):
        if index == len(messages) or messages[index].role != "tool":
            if index > start:
                groups.append((start, index))
            start = index
    return groups
