"""The scenario format shared by every fake provider.

A script is a list of steps (or a callable that picks a step for each request):
one step answers one provider request. The same script drives the in-process
``ScriptedProvider`` and the wire-level fake servers, so a scenario can move
between them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence, Union


@dataclass(frozen=True)
class Call:
    """A scripted tool call. ``arguments`` is raw JSON text and may be malformed on purpose."""

    name: str
    arguments: str = "{}"
    id: str | None = None
    chunks: int = 3


@dataclass(frozen=True)
class Reply:
    """A successful streamed answer: reasoning, text (split into ``text_chunks`` deltas), then tool calls.

    ``thinking``: readable reasoning, sent only when the request asked for it
    (Anthropic: a signed ``thinking`` block; the OpenAI fake may use it as its
    reasoning summary). ``redacted_thinking``: Anthropic also sends a
    ``redacted_thinking`` block whose data hides this text.
    ``reasoning_tokens``: what the reasoning cost, added to the output tokens as the
    services count it (the OpenAI Responses fake).
    """

    text: str = ""
    thinking: str = ""
    redacted_thinking: str = ""
    calls: tuple[Call, ...] = ()
    input_tokens: int | None = None
    output_tokens: int = 20
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    text_chunks: int = 3
    stop_reason: str | None = None
    reasoning_tokens: int = 0


@dataclass(frozen=True)
class HttpError:
    """The request is refused with an HTTP error before any stream starts.

    ``kind``: rate_limit, overloaded, server, auth, invalid_request, context_length.
    """

    status: int
    kind: str = "server"
    message: str = ""
    retry_after: float | None = None


@dataclass(frozen=True)
class StreamError:
    """A 200 stream that emits ``after_deltas`` deltas of ``reply`` then an error event."""

    reply: Reply
    after_deltas: int = 2
    error_type: str = "overloaded_error"


@dataclass(frozen=True)
class CutStream:
    """A 200 stream that drops the connection inside tool call ``call_index``.

    ``name_only``: cut right after the call's name, before any argument bytes.
    Otherwise the cut falls in the middle of the call's JSON arguments.
    """

    reply: Reply
    call_index: int = 0
    name_only: bool = False


@dataclass(frozen=True)
class StallStream:
    """A 200 stream that sends ``after_deltas`` deltas of ``reply`` (thinking deltas count), then only pings for ``seconds``.

    For interrupting a client in the middle of a stream (the Anthropic fake sets ``stalled`` when it gets there).
    """

    reply: Reply
    after_deltas: int = 2
    seconds: float = 30.0


Step = Union[Reply, HttpError, StreamError, CutStream, StallStream]
Responder = Callable[[Mapping[str, Any]], Step]
Script = Union[Sequence[Step], Responder]


def split_text(text: str, parts: int) -> list[str]:
    """``text`` cut into ``parts`` non-empty pieces (fewer when it is short)."""
    if not text:
        return []
    parts = max(1, min(parts, len(text)))
    size = -(-len(text) // parts)
    return [text[i : i + size] for i in range(0, len(text), size)]


@dataclass
class ScriptCursor:
    """Hands out the steps of a script, one per request; records the requests."""

    script: Script
    requests: list[dict[str, Any]] = field(default_factory=list)
    position: int = 0

    def next_step(self, request: Mapping[str, Any]) -> Step:
        self.requests.append(dict(request))
        if callable(self.script):
            return self.script(request)
        if self.position >= len(self.script):
            return Reply(text="(script exhausted)")
        step = self.script[self.position]
        self.position += 1
        return step


def approx_tokens(body: Mapping[str, Any] | str) -> int:
    """The fakes' token count for a request: JSON bytes / 4, deterministic and cheap.

    Images count as the providers bill them (by pixels, ``image_checks.strip_images``), not by their base64.
    """
    import json

    from tests.fakes.image_checks import strip_images

    if isinstance(body, str):
        return max(1, len(body.encode("utf-8")) // 4)
    stripped, image_tokens = strip_images(body)
    return max(1, len(json.dumps(stripped, ensure_ascii=False).encode("utf-8")) // 4 + image_tokens)


SUMMARY_PREAMBLE = "CRITICAL: Respond with TEXT ONLY. Do NOT call any tools."
"""The first line of both summary instructions (``compact/summarize.py``): how a summary request is told apart."""


def is_summary_request(body: Mapping[str, Any]) -> bool:
    """A Layer 2 summary request: its last message carries the summary preamble (any wire form).

    Not ``tool_choice`` nor the tool list: the in-place summary request is sent
    with the main loop's tools and ``tool_choice``, so only its text tells.
    """
    messages = body.get("messages") or []
    if not messages or not isinstance(messages[-1], Mapping):
        return False
    last = messages[-1]
    content = last.get("content", last.get("text"))  # the wire forms, or the in-process provider's message dict
    blocks = content if isinstance(content, list) else [content]
    texts = (b.get("text", "") if isinstance(b, Mapping) else b for b in blocks)
    return any(isinstance(text, str) and SUMMARY_PREAMBLE in text for text in texts)
