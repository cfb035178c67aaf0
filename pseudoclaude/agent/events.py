"""The events a run yields: the only way the core talks to the outside.

The TUI, the headless printer and the tests all consume the same stream.
Every event is a frozen dataclass with a ``type`` tag and ``to_dict()`` for
``--output-format stream-json``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Mapping, Union

from pseudoclaude.llm import Image

StopReason = Literal["end_turn", "max_turns", "max_budget", "interrupted", "error", "context_overflow"]


@dataclass(frozen=True)
class TextDelta:
    text: str
    type: Literal["text_delta"] = "text_delta"


@dataclass(frozen=True)
class ThinkingDelta:
    """A piece of the model's readable reasoning as it streams: shown folded, never part of the answer."""

    text: str
    type: Literal["thinking_delta"] = "thinking_delta"


@dataclass(frozen=True)
class AssistantMessage:
    """A whole assistant message, once its stream completed.

    ``thinking``: its reasoning parts (``llm.Thinking.to_dict()``: provider,
    kind, text, opaque), in order; the stream-json printer maps them to
    Claude Code's ``thinking`` / ``redacted_thinking`` content blocks.
    """

    text: str
    tool_calls: tuple[Mapping[str, Any], ...] = ()
    thinking: tuple[Mapping[str, Any], ...] = ()
    type: Literal["assistant_message"] = "assistant_message"


@dataclass(frozen=True)
class ToolInputStart:
    """The model began writing a tool call (its arguments follow as ``ToolInputDelta``s): live display only.

    ``index`` is the call's place among the message's tool calls; ``call_id``
    is the provider's and may still be replaced by the one the
    ``AssistantMessage`` carries (a duplicate or unsafe id). Never stored, never
    in the text or json output; stream-json turns it into a ``tool_use``
    ``content_block_start`` with ``--include-partial-messages``.
    """

    call_id: str
    name: str
    index: int
    type: Literal["tool_input_start"] = "tool_input_start"


@dataclass(frozen=True)
class ToolInputDelta:
    """A piece of a streaming tool call's arguments JSON; a call's pieces concatenate to its final ``arguments``."""

    call_id: str
    index: int
    fragment: str
    type: Literal["tool_input_delta"] = "tool_input_delta"


@dataclass(frozen=True)
class ToolCallStarted:
    call_id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    type: Literal["tool_call_started"] = "tool_call_started"


@dataclass(frozen=True)
class ImageShown:
    """An image a tool handed the model, as displays describe it: name, pixels, type and size, never the bytes."""

    name: str
    media_type: str
    width: int
    height: int
    bytes: int
    sha256: str = ""

    @classmethod
    def of(cls, image: Image) -> ImageShown:
        return cls(image.name or "image", image.media_type, image.width, image.height, len(image.data), image.sha256)

    def line(self) -> str:
        """``shot.png 1280x720 PNG 84 KB``: the one line a transcript shows."""
        kind = self.media_type.removeprefix("image/").upper()
        return f"{self.name} {self.width}x{self.height} {kind} {_size(self.bytes)}"


def _size(count: int) -> str:
    if count >= 1024 * 1024:
        return f"{count / (1024 * 1024):.1f} MB"
    return f"{max(1, round(count / 1024))} KB"


@dataclass(frozen=True)
class ToolCallFinished:
    """A call's end: ``content`` is the result the model reads; ``denied`` says the permission gate or a hook refused it.

    ``images``: what the result showed the model besides ``content`` (described; the bytes stay in the conversation).
    """

    call_id: str
    name: str
    is_error: bool
    summary: str
    display: Mapping[str, Any] = field(default_factory=dict)
    content: str = ""
    denied: bool = False
    images: tuple[ImageShown, ...] = ()
    type: Literal["tool_call_finished"] = "tool_call_finished"


@dataclass(frozen=True)
class UsageReport:
    """Usage of one provider call and the session totals so far."""

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    total: Mapping[str, int] = field(default_factory=dict)
    reasoning_tokens: int = 0
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
class SessionWriteFailed:
    """The session file could not be written (disk full, read-only, I/O error): nothing more is saved.

    Sent once, at the first failure; the run goes on in memory, but what
    follows cannot be resumed. ``path`` is the file, ``error`` the OS's reason.
    """

    path: str
    error: str
    message: str
    type: Literal["session_write_failed"] = "session_write_failed"


@dataclass(frozen=True)
class Stop:
    reason: StopReason
    final_text: str = ""
    turns: int = 0
    message: str = ""
    type: Literal["stop"] = "stop"


Event = Union[
    TextDelta,
    ThinkingDelta,
    ToolInputStart,
    ToolInputDelta,
    AssistantMessage,
    ToolCallStarted,
    ToolCallFinished,
    UsageReport,
    Progress,
    ErrorEvent,
    SessionWriteFailed,
    Stop,
]


def event_to_dict(event: Event) -> dict[str, Any]:
    """A JSON-ready dict with ``type`` first."""
    data = asdict(event)
    kind = data.pop("type")
    return {"type": kind, **data}
