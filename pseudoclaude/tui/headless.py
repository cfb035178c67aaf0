"""The headless printer behind ``pseudoclaude -p``.

``text`` prints the final answer; ``json`` prints one result object at the
end (``usage`` of this run, ``session_usage`` of the whole session); ``stream-json`` prints every runner event as one JSON line as it happens,
then the result object. Progress and errors go to stderr in ``text`` mode so
stdout stays the answer alone.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import AsyncIterator, TextIO

from pseudoclaude.agent import ErrorEvent, Event, Progress, Stop, ToolCallFinished, UsageReport, event_to_dict


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Control characters a denial line must not pass to the terminal (the reason quotes the model's arguments)."""


@dataclass
class HeadlessResult:
    stop: Stop | None = None
    usage: dict[str, int] = field(default_factory=dict)
    session_usage: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.stop is not None and self.stop.reason == "end_turn"


async def print_events(
    events: AsyncIterator[Event], output_format: str, session_id: str, out: TextIO, err: TextIO
) -> HeadlessResult:
    """Consume ``events``, printing as ``output_format`` says; return what the run ended with."""
    result = HeadlessResult()
    async for event in events:
        if output_format == "stream-json":
            out.write(json.dumps(event_to_dict(event), ensure_ascii=False) + "\n")
            out.flush()
        if isinstance(event, UsageReport):
            for key in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"):
                result.usage[key] = result.usage.get(key, 0) + getattr(event, key)
            result.session_usage = dict(event.total)
        elif isinstance(event, ErrorEvent):
            result.errors.append(event.message)
        elif isinstance(event, Progress) and output_format == "text":
            err.write(f"[{event.kind}] {event.message}\n")
        elif isinstance(event, ToolCallFinished) and event.denied and output_format == "text":
            err.write(f"[denied] {event.name}: {_CONTROL.sub('?', event.content)}\n")
        elif isinstance(event, Stop):
            result.stop = event
    summary = {
        "type": "result",
        "is_error": not result.ok,
        "stop_reason": result.stop.reason if result.stop else "error",
        "result": result.stop.final_text if result.stop else "",
        "session_id": session_id,
        "turns": result.stop.turns if result.stop else 0,
        "usage": result.usage,
        "session_usage": result.session_usage or result.usage,
        "error": (result.stop.message if result.stop and not result.ok else None),
    }
    if output_format in ("json", "stream-json"):
        out.write(json.dumps(summary, ensure_ascii=False) + "\n")
    elif result.stop is not None and result.stop.final_text:
        out.write(result.stop.final_text.rstrip("\n") + "\n")
    out.flush()
    return result
