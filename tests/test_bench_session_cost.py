"""The session-cost benchmark keeps working: its cache rule, and one tiny session of each long kind through the CLI."""

from __future__ import annotations

from typing import Any

import pytest

from bench.bench_session_cost import PromptCache, prefix_reuse, request_rows, run_session, user_words_kept
from bench.session_report import summary_table
from bench.compaction_checks import compaction_reports, compaction_table
from bench.session_scripts import SUMMARY_LAST_LINE, Size
from tests.fakes.script import SUMMARY_PREAMBLE

TINY = Size(debug_runs=1, explore_files=1, small_results=2, multi_files=1)


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


def test_a_change_of_tool_choice_keeps_tools_and_system_cached_but_not_the_messages() -> None:
    cache = PromptCache()
    first = dict(body("a" * 7000), system=[{"type": "text", "text": "s" * 7000, "cache_control": {"type": "ephemeral"}}])
    total, _ = cache.serve(first)
    same_total, same = cache.serve(first)
    _, changed = cache.serve(dict(first, tool_choice={"type": "none"}))
    assert same == pytest.approx(same_total) and 0 < changed < total / 2 + 10


@pytest.mark.slow
@pytest.mark.parametrize("session", ["debug", "explore"])
def test_a_tiny_session_runs_through_the_cli_and_reports_its_long_outputs(session: str) -> None:
    report = run_session(session, 200_000, TINY)
    assert report.exit_code == 0 and report.rejections == 0
    assert report.requests >= 2 and 0 < report.cached_tokens < report.input_tokens and report.cost > 0
    assert len(report.outputs) == 1 and report.outputs[0].tail_seen and report.outputs[0].inline_tokens > 0
    assert f"| {session} | pipeline | 200k | {report.requests} |" in summary_table([report])


@pytest.mark.slow
def test_a_session_of_three_requests_runs_each_request_in_turn() -> None:
    report = run_session("multi", 200_000, TINY)
    assert report.exit_code == 0 and report.rejections == 0
    assert [o.tail_seen for o in report.outputs] == [True, True, True], "each request ran its tests"
    assert report.reuse and min(report.reuse) > 0.9, "a new request is appended: the cache serves what came before"


def test_prefix_reuse_is_the_share_of_the_previous_prompt_read_from_the_cache() -> None:
    bodies = [working(user({"type": "text", "text": "a"})) for _ in range(3)]
    assert prefix_reuse(bodies, [(100.0, 0.0), (150.0, 100.0), (60.0, 15.0)]) == (1.0, 0.1)


def test_each_request_is_classed_by_what_it_read_from_the_cache_and_priced() -> None:
    plain = working(user({"type": "text", "text": "a"}))
    summary = working(user({"type": "text", "text": f"{SUMMARY_PREAMBLE}\nSummarize."}))
    served = [(100.0, 0.0), (150.0, 100.0), (60.0, 15.0), (70.0, 60.0), (20.0, 5.0), (30.0, 20.0)]
    rows = request_rows([plain, plain, plain, summary, plain, plain], served, [10.0] * 6)
    assert [row.kind for row in rows] == ["grow", "grow", "break", "summary", "after", "grow"]
    assert rows[2].cost == pytest.approx((15 * 0.30 + 45 * 3.75 + 10 * 15.0) / 1e6)


def test_rules_and_earlier_requests_count_only_outside_the_summary_text() -> None:
    first, second = "Fix it. Never touch tests/.", "Now add a cache. Keep names."
    before = working(
        user({"type": "text", "text": first}), {"role": "assistant", "content": [{"type": "text", "text": "done"}]}, user({"type": "text", "text": second})
    )
    summary = working(user({"type": "text", "text": f"{SUMMARY_PREAMBLE}\nSummarize."}))
    after = working(user({"type": "text", "text": f"Summary of the earlier conversation:\n\n{first}\n{SUMMARY_LAST_LINE}\nPinned: {second}"}))
    (kept,) = user_words_kept([before, summary, after], (first, second), ("Never touch tests/", "Keep names"))
    assert (kept.rules_kept, kept.rules, kept.requests_kept, kept.requests) == (1, 2, 1, 2)


def working(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"model": "m", "tools": [{"name": "read_file", "input_schema": {}}], "messages": list(messages)}


def user(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks)}


def test_each_compaction_reports_what_survived_outside_the_summary_text() -> None:
    task = "Fix the parser in src/parse.py"
    first = working(
        user({"type": "text", "text": task}),
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "src/parse.py"}},
                {"type": "tool_use", "id": "t2", "name": "run_command", "input": {"command": "pytest"}},
            ],
        },
        user(
            {"type": "tool_result", "tool_use_id": "t1", "content": "code"},
            {"type": "tool_result", "tool_use_id": "t2", "content": "[exit code 1 · 9 bytes]\nFAILED BENCH-run-TAIL-001-END"},
        ),
    )
    summary_text = f"Summary of the earlier conversation:\n\n1. Primary request: {task}\nsrc/parse.py BENCH-run-TAIL-001-END\n{SUMMARY_LAST_LINE}"
    after = working(
        user({"type": "text", "text": summary_text}),
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
        user({"type": "text", "text": "Pinned: src/parse.py"}),
    )
    instruction = {"type": "text", "text": f"{SUMMARY_PREAMBLE}\nSummarize."}
    in_place = dict(first, messages=[*first["messages"][:-1], user(*first["messages"][-1]["content"], instruction)])
    transcript = {"model": "m", "messages": [user(instruction)]}
    for summary_request in (transcript, in_place):
        (report,) = compaction_reports([first, summary_request, after], [(10.0, 0.0), (20.0, 15.0), (5.0, 0.0)], task)
        assert report.committed and not report.task_kept and report.error_kept is False
        assert (report.paths_kept, report.paths_touched) == (1, 1)
        assert report.cached_share == 0.75 and report.after_prompt == 5.0
    table = compaction_table([("debug", 60_000, (report,))])
    assert "| debug | 60k | 1 | 0.0k (75%) | yes | no | 1/1 | no | 0.0k |" in table


@pytest.mark.slow
def test_a_tiny_session_runs_under_the_native_engine_on_a_model_that_compacts() -> None:
    report = run_session("explore", 200_000, TINY, "native", "claude-sonnet-4-6")
    assert report.exit_code == 0 and report.rejections == 0 and report.engine == "native"
    assert f"| explore | native | 200k | {report.requests} |" in summary_table([report])
