"""Claude Code's JSON shapes for our values: usage under its key names, a call's price, a tool result's content,
a reasoning block, the result of a run that could not start, and the line writer.

Pure functions, apart from ``ClaudeStream`` (``stream.py``), which keeps the
state of a run; ``commands.py`` and the driver use the same shapes.
"""

from __future__ import annotations

import json
import uuid
from typing import Callable, Mapping, TextIO

from pseudoclaude.agent import ToolCallFinished, UsageReport
from pseudoclaude.headless.printer import json_line
from pseudoclaude.llm import Usage, request_cost

Write = Callable[[Mapping[str, object]], None]


def claude_usage(usage: Mapping[str, int]) -> dict[str, int]:
    """Our usage counters under Anthropic's / Claude Code's key names."""
    return {
        "input_tokens": int(usage.get("input_tokens", 0)),
        "cache_creation_input_tokens": int(usage.get("cache_write_tokens", 0)),
        "cache_read_input_tokens": int(usage.get("cache_read_tokens", 0)),
        "output_tokens": int(usage.get("output_tokens", 0)),
    }


def usage_cost(model: str, usage: Mapping[str, int]) -> float:
    """One call's price from the model table, its long-prompt surcharge included (0.0 for a model without prices:
    the result's ``cost_unknown_models`` and each ``modelUsage`` entry's ``costKnown`` say which, so 0.0 is not read
    as free)."""
    call = Usage(
        input_tokens=usage.get("input_tokens", 0),
        output_tokens=usage.get("output_tokens", 0),
        cache_read_tokens=usage.get("cache_read_tokens", 0),
        cache_write_tokens=usage.get("cache_write_tokens", 0),
    )
    return request_cost(model, call) or 0.0


def error_result(message: str, session_id: str = "", subtype: str = "error_during_execution") -> dict[str, object]:
    """The result object of a run that could not start (bad configuration, an unknown session)."""
    return {
        "type": "result",
        "subtype": subtype,
        "is_error": True,
        "duration_ms": 0,
        "duration_api_ms": 0,
        "num_turns": 0,
        "result": message,
        "session_id": session_id,
        "total_cost_usd": 0.0,
        "usage": claude_usage({}),
        "modelUsage": {},
        "permission_denials": [],
        "errors": [message],
        "terminal_reason": "turn_setup_failed",
        "uuid": str(uuid.uuid4()),
    }


def result_content(event: ToolCallFinished) -> str | list[dict[str, str]]:
    """A tool result's content: its text, and with images, a text block describing each.

    Claude Code puts an ``image`` block (base64 source) there; the events carry
    no image bytes (they stay in the conversation and the session's
    ``images/`` folder), so each image is described instead, and
    ``tool_use_result.images`` lists them as data.
    """
    text = event.content or event.summary
    if not event.images:
        return text
    return [{"type": "text", "text": text}] + [{"type": "text", "text": f"[image {image.line()}]"} for image in event.images]


def usage_dict(event: UsageReport | None) -> dict[str, int]:
    if event is None:
        return {}
    return {
        "input_tokens": event.input_tokens,
        "output_tokens": event.output_tokens,
        "cache_read_tokens": event.cache_read_tokens,
        "cache_write_tokens": event.cache_write_tokens,
    }


def thinking_block(part: Mapping[str, object]) -> dict[str, object] | None:
    """Claude Code's content block for one reasoning part: Anthropic's as they are, OpenAI's summary as plain thinking."""
    kind, text, opaque = part.get("kind"), str(part.get("text") or ""), str(part.get("opaque") or "")
    if kind == "redacted_thinking":
        return {"type": "redacted_thinking", "data": opaque}
    if part.get("provider") == "anthropic":
        return {"type": "thinking", "thinking": text, "signature": opaque}
    return {"type": "thinking", "thinking": text, "signature": ""} if text else None


def json_line_writer(out: TextIO) -> Write:
    """A ``Write`` that prints each object as one JSON line and flushes (a reader sees it at once)."""

    def write(data: Mapping[str, object]) -> None:
        out.write(json_line(data))
        out.flush()

    return write


def call_arguments(call: Mapping[str, object]) -> dict[str, object]:
    raw = call.get("arguments", "{}")
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except json.JSONDecodeError:
        return {"_raw": str(raw)[:200]}
    return dict(value) if isinstance(value, dict) else {"_raw": str(raw)[:200]}
