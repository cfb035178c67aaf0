"""The headless printer behind ``pseudoclaude -p``.

``text`` prints the final answer; ``json`` prints one result object at the
end (``usage`` of this run, ``session_usage`` of the whole session); ``stream-json`` prints every runner event as one JSON line as it happens,
then the result object. Progress and errors go to stderr in ``text`` mode so
stdout stays the answer alone, as does one line for each image a tool showed
the model (name, pixels, type, size; events describe images, never carry their
bytes). A tool call's arguments stream as ``tool_input_start`` then
``tool_input_delta`` pieces (``events`` and ``stream-json`` only; ``text`` and
``json`` ignore them). Reasoning: ``thinking_delta`` events as it
streams, and the assistant message's ``thinking`` parts; ``output_tokens``
include it (``reasoning_tokens`` says how much, when the provider reports it). A session that stops being saved is one line on
stderr in every format; ``events`` and ``stream-json`` print it as a
``session_write_failed`` event, and the result object says ``is_error`` with
``session_error`` (the answer is there, but it cannot be resumed).

Nothing untrusted reaches the terminal raw: in ``text`` mode the answer and
the notices are neutralized (``textsafe.for_terminal``: ESC shown as ``^[``);
the JSON modes escape the C0 controls by JSON's own rules, and the C1 and
bidi characters, which ``ensure_ascii=False`` would leave raw, as ``\\u`` too.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import AsyncIterator, TextIO

from pseudoclaude.agent import ErrorEvent, Event, Progress, SessionWriteFailed, Stop, ToolCallFinished, UsageReport, event_to_dict
from pseudoclaude.textsafe import for_terminal

_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u202a-\u202e\u2066-\u2069]")


def json_line(value: object) -> str:
    """``value`` as one JSON line, readable (non-ASCII kept) yet with no character a terminal would act on."""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=False)) + "\n"


@dataclass
class HeadlessResult:
    stop: Stop | None = None
    usage: dict[str, int] = field(default_factory=dict)
    session_usage: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    session_error: str | None = None

    @property
    def ok(self) -> bool:
        return self.stop is not None and self.stop.reason == "end_turn"


async def print_events(events: AsyncIterator[Event], output_format: str, session_id: str, out: TextIO, err: TextIO) -> HeadlessResult:
    """Consume ``events``, printing as ``output_format`` says; return what the run ended with."""
    result = HeadlessResult()
    async for event in events:
        if output_format == "stream-json":
            out.write(json_line(event_to_dict(event)))
            out.flush()
        if isinstance(event, UsageReport):
            for key in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"):
                result.usage[key] = result.usage.get(key, 0) + getattr(event, key)
            if event.reasoning_tokens:
                result.usage["reasoning_tokens"] = result.usage.get("reasoning_tokens", 0) + event.reasoning_tokens
            result.session_usage = dict(event.total)
        elif isinstance(event, ErrorEvent):
            result.errors.append(event.message)
        elif isinstance(event, SessionWriteFailed):
            result.session_error = event.message
            err.write(f"pseudoclaude: error: {event.message}\n")
            err.flush()
        elif isinstance(event, Progress) and (output_format == "text" or event.kind == "warning"):
            err.write(f"[{event.kind}] {for_terminal(event.message)}\n")
        elif isinstance(event, ToolCallFinished) and event.denied and output_format == "text":
            err.write(f"[denied] {event.name}: {for_terminal(event.content)}\n")
        elif isinstance(event, ToolCallFinished) and event.images and output_format == "text":
            err.writelines(f"[image] {event.name}: {for_terminal(image.line())}\n" for image in event.images)
        elif isinstance(event, Stop):
            result.stop = event
    summary = {
        "type": "result",
        "is_error": not result.ok or result.session_error is not None,
        "stop_reason": result.stop.reason if result.stop else "error",
        "result": result.stop.final_text if result.stop else "",
        "session_id": session_id,
        "turns": result.stop.turns if result.stop else 0,
        "usage": result.usage,
        "session_usage": result.session_usage or result.usage,
        "error": (result.stop.message if result.stop and not result.ok else result.session_error),
        "session_error": result.session_error,
    }
    if output_format in ("json", "stream-json"):
        out.write(json_line(summary))
    elif result.stop is not None and result.stop.final_text:
        out.write(for_terminal(result.stop.final_text.rstrip("\n")) + "\n")
    out.flush()
    return result
