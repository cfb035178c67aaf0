"""A summary request a local server cuts silently (issue 17's gap): the summary of the tail is never kept."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Mapping

from tests.fakes.local_servers import FakeLocalServer, ReplyItem, prompt_tokens
from tests.fakes.script import is_summary_request
from tests.local.test_local_sessions import MODEL, agent_at, big_files

WINDOW = 8192
TASK = "read big0.txt, big1.txt... in order until I say stop"


def reader_until(tokens: int) -> Any:
    """Reads the next file while the request carries fewer than ``tokens`` tokens (the server's count), then answers."""
    asked = [0]

    def reply(body: Mapping[str, Any]) -> ReplyItem:
        if prompt_tokens(body) >= tokens:
            return "read them all"
        index, asked[0] = asked[0], asked[0] + 1
        return {"name": "read_file", "arguments": {"path": f"big{index}.txt"}}

    return reply


def test_ollama_cutting_a_summary_request_silently_never_leaves_a_summary_of_the_tail(tmp_path: Path) -> None:
    big_files(tmp_path, 40, size=1_200)
    # /api/show says 32768, the server runs 8192: the loop's requests fit (each file adds ~400 tokens, it stops past 7600),
    # but /compact's in-place summary request (the conversation and the instruction) does not, and Ollama cuts its front,
    # the task first.
    with FakeLocalServer("ollama", model=MODEL, window=WINDOW, num_ctx_parameter=32_768, model_window=32_768, replies=reader_until(7_600)) as server:
        agent = agent_at(tmp_path, server)

        async def go() -> list[Any]:
            try:
                assert [e async for e in agent.run(TASK)][-1].final_text == "read them all"
                return [e async for e in agent.compact()]
            finally:
                await agent.aclose()

        events = asyncio.run(go())
        summaries = [(body, kept, sent) for body, kept, sent in zip(server.requests, server.kept, server.sent) if is_summary_request(body)]
        (cut,) = server.truncated_answers
        conversation, status = agent.conversation(), agent.status()
    assert max(server.kept[: -len(summaries)]) <= WINDOW and len(summaries) == 2  # only the first summary request was cut
    (_, cut_kept, cut_sent), (retry, retry_kept, retry_sent) = summaries
    assert cut_kept < cut_sent and cut.startswith("<summary>the work so far")
    assert retry_kept == retry_sent <= cut_kept and TASK in json.dumps(retry)  # within the window it showed, the task in it
    cut_text = cut.removeprefix("<summary>").removesuffix("</summary>")
    kept_text = f"the work so far (request {len(server.requests)})"
    assert kept_text in conversation[0].text and not any(cut_text in m.text for m in conversation)
    (session_file,) = (tmp_path / ".home").rglob("session.jsonl")
    recorded = [json.loads(line) for line in session_file.read_text().splitlines()]
    assert [e["summary"] for e in recorded if e.get("type") == "compaction"] == [kept_text]
    assert (status.context_window, status.window_source) == (cut_kept, "a silently truncated prompt")
    assert [e["context_window"] for e in recorded if e.get("type") == "window"][-1] == cut_kept  # a resume budgets against it too
    warnings = [e.message for e in events if getattr(e, "kind", None) == "warning"]
    assert any("the server read only" in w and "summary would describe only the end" in w for w in warnings), warnings
    assert events[-1].reason == "end_turn"
