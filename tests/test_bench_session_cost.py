"""The session-cost benchmark keeps working: its cache rule, and one tiny session of each long kind through the CLI."""

from __future__ import annotations

from typing import Any

import pytest

from bench.bench_session_cost import PromptCache, run_session, summary_table
from bench.session_scripts import Size

TINY = Size(debug_runs=1, explore_files=1, small_results=2)


def body(*texts: str, tools: bool = True) -> dict[str, Any]:
    """A request whose last message block carries the cache marker, as the adapter sends it."""
    blocks: list[dict[str, Any]] = [{"type": "text", "text": t} for t in texts]
    blocks[-1]["cache_control"] = {"type": "ephemeral"}
    return {
        "model": "m",
        "tools": [{"name": "t", "input_schema": {}, "cache_control": {"type": "ephemeral"}}] if tools else [],
        "messages": [{"role": "user", "content": blocks}],
    }


def test_an_appended_request_reads_the_previous_prompt_from_the_cache() -> None:
    cache = PromptCache()
    first_total, first_cached = cache.serve(body("a" * 7000))
    total, cached = cache.serve(body("a" * 7000, "b" * 3500))
    assert first_cached == 0 and cached == pytest.approx(first_total) and total > cached


def test_a_change_in_the_middle_loses_the_cache_from_there_and_short_prefixes_are_never_cached() -> None:
    cache = PromptCache()
    cache.serve(body("a" * 7000, "b" * 3500))
    assert cache.serve(body("A" * 7000, "b" * 3500))[1] == 0
    small = PromptCache()
    small.serve(body("a" * 100))
    assert small.serve(body("a" * 100, "b"))[1] == 0


@pytest.mark.slow
@pytest.mark.parametrize("session", ["debug", "explore"])
def test_a_tiny_session_runs_through_the_cli_and_reports_its_long_outputs(session: str) -> None:
    report = run_session(session, 200_000, TINY)
    assert report.exit_code == 0 and report.rejections == 0
    assert report.requests >= 2 and 0 < report.cached_tokens < report.input_tokens and report.cost > 0
    assert len(report.outputs) == 1 and report.outputs[0].tail_seen and report.outputs[0].inline_tokens > 0
    assert f"| {session} | 200k | {report.requests} |" in summary_table([report])
