from __future__ import annotations

import asyncio
import io
import json
from typing import AsyncIterator

from pseudoclaude.agent.events import Event, Progress, Stop, TextDelta, UsageReport
from pseudoclaude.tui.headless import print_events


async def stream(events: list[Event]) -> AsyncIterator[Event]:
    for event in events:
        yield event


RUN: list[Event] = [
    TextDelta("Hel"),
    TextDelta("lo"),
    Progress("retry", "RateLimited; retrying"),
    UsageReport(10, 2, 5, 0, total={"input_tokens": 10, "output_tokens": 2, "cache_read_tokens": 5, "cache_write_tokens": 0}),
    Stop("end_turn", "Hello", 1),
]


def render(fmt: str, events: list[Event] = RUN) -> tuple[str, str, bool]:
    out, err = io.StringIO(), io.StringIO()
    result = asyncio.run(print_events(stream(events), fmt, "sess-1", out, err))
    return out.getvalue(), err.getvalue(), result.ok


def test_text_prints_only_the_final_answer_and_progress_on_stderr() -> None:
    out, err, ok = render("text")
    assert out == "Hello\n" and "[retry]" in err and ok


def test_json_prints_one_result_object() -> None:
    out, _, _ = render("json")
    result = json.loads(out)
    assert result == {
        "type": "result", "is_error": False, "stop_reason": "end_turn", "result": "Hello", "session_id": "sess-1", "turns": 1,
        "usage": {"input_tokens": 10, "output_tokens": 2, "cache_read_tokens": 5, "cache_write_tokens": 0},
        "session_usage": {"input_tokens": 10, "output_tokens": 2, "cache_read_tokens": 5, "cache_write_tokens": 0}, "error": None,
        "session_error": None,
    }


def test_stream_json_prints_every_event_then_the_result() -> None:
    out, _, _ = render("stream-json")
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["type"] for line in lines] == ["text_delta", "text_delta", "progress", "usage", "stop", "result"]
    assert lines[0] == {"type": "text_delta", "text": "Hel"}


def test_a_failed_run_is_not_ok() -> None:
    out, _, ok = render("json", [Stop("error", "", 1, "boom")])
    assert not ok and json.loads(out)["error"] == "boom"
