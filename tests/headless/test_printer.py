from __future__ import annotations

import asyncio
import io
import json
from typing import AsyncIterator

from pseudoclaude.agent.events import Event, ImageShown, Progress, Stop, TextDelta, ToolCallFinished, UsageReport
from pseudoclaude.headless.printer import print_events


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
        "type": "result",
        "is_error": False,
        "stop_reason": "end_turn",
        "result": "Hello",
        "session_id": "sess-1",
        "turns": 1,
        "usage": {"input_tokens": 10, "output_tokens": 2, "cache_read_tokens": 5, "cache_write_tokens": 0},
        "session_usage": {"input_tokens": 10, "output_tokens": 2, "cache_read_tokens": 5, "cache_write_tokens": 0},
        "error": None,
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


IMAGE_RUN: list[Event] = [
    ToolCallFinished(
        "c1",
        "read_file",
        False,
        "Read image shot.png (64x48)",
        {},
        "Image shot.png (64x48 PNG, 2 KB)\n",
        images=(ImageShown("shot.png", "image/png", 64, 48, 2048, "ab" * 32),),
    ),
    Stop("end_turn", "A red square.", 2),
]


def test_text_names_each_image_a_tool_showed_on_stderr() -> None:
    out, err, _ = render("text", IMAGE_RUN)
    assert out == "A red square.\n" and "[image] read_file: shot.png 64x48 PNG 2 KB\n" in err


def test_the_event_stream_describes_images_without_their_bytes() -> None:
    out, _, _ = render("stream-json", IMAGE_RUN)
    finished = json.loads(out.splitlines()[0])
    assert finished["images"] == [{"name": "shot.png", "media_type": "image/png", "width": 64, "height": 48, "bytes": 2048, "sha256": "ab" * 32}]
