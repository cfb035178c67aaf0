"""The events a run yields: the only way the core talks to the outside.

The TUI, the headless printer and the tests all consume the same stream.
Every event is a frozen dataclass with a ``type`` tag and ``to_dict()`` for
``--output-format stream-json``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Mapping, Union

StopReason = Literal["end_turn", "max_turns", "interrupted", "error", "context_overflow"]


@dataclass(frozen=True)
class TextDelta:
    text: str
    type: Literal["text_delta"] = "text_delta"


@dataclass(frozen=True)
class AssistantMessage:
    """A whole assistant message, once its stream completed."""

    text: str
    tool_calls: tuple[Mapping[str, Any], ...] = ()
    type: Literal["assistant_message"] = "assistant_message"


@dataclass(frozen=True)
class ToolCallStarted:
    call_id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    type: Literal["tool_call_started"] = "tool_call_started"


@dataclass(frozen=True)
class ToolCallFinished:
    """A call's end: ``content`` is the result the model reads; ``denied`` says the permission gate or a hook refused it."""

    call_id: str
    name: str
    is_error: bool
    summary: str
    display: Mapping[str, Any] = field(default_factory=dict)
    content: str = ""
    denied: bool = False
    type: Literal["tool_call_finished"] = "tool_call_finished"


@dataclass(frozen=True)
class UsageReport:
    """Usage of one provider call and the session totals so far."""

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    total: Mapping[str, int] = field(default_factory=dict)
    type: Literal["usage"] = "usage"


@dataclass(frozen=True)
class Progress:
    """Something the user should see that is not an answer: a retry, a compaction."""

    kind: str
    message: str
    data: Mapping[str, Any] = field(default_factory=dict)
    type: Literal["progress"] = "progress"


@dataclass(frozen=True)
class ErrorEvent:
    error: str
    message: str
    retryable: bool = False
    type: Literal["error"] = "error"


@dataclass(frozen=True)
class Stop:
    reason: StopReason
    final_text: str = ""
    turns: int = 0
    message: str = ""
    type: Literal["stop"] = "stop"


Event = Union[TextDelta, AssistantMessage, ToolCallStarted, ToolCallFinished, UsageReport, Progress, ErrorEvent, Stop]


def event_to_dict(event: Event) -> dict[str, Any]:
    """A JSON-ready dict with ``type`` first."""
    data = asdict(event)
    kind = data.pop("type")
    return {"type": kind, **data}
