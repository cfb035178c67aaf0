"""The session-cost benchmark on OpenAI: its prefix-cache rule, the compaction checks on input items, a run through the CLI."""

from __future__ import annotations

from typing import Any

import pytest

from bench.bench_session_cost import run_session
from bench.compaction_checks import compaction_reports, words_kept
from bench.server_views import OPENAI_MODEL, table_prices
from bench.session_scripts import Size
from pseudoclaude.llm import cache_prices, model_info
from tests.fakes.prompt_cache import OPENAI_CACHE_STEP, OpenAIPromptCache
from tests.fakes.script import SUMMARY_PREAMBLE


def responses(*items: dict[str, Any]) -> dict[str, Any]:
    return {"model": "gpt-6.2-sol", "instructions": "You are a coding agent.", "input": list(items), "store": False}


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "input_text", "text": text}]}


def test_an_appended_prompt_reads_its_shared_prefix_in_steps_past_the_minimum_and_a_short_one_nothing() -> None:
    cache = OpenAIPromptCache()
    first, none = cache.serve(responses(user("a" * 8_000)))
    total, cached = cache.serve(responses(user("a" * 8_000), user("b" * 4_000)))
    assert none == 0 and first - OPENAI_CACHE_STEP < cached <= first < total and (cached - cache.min_tokens) % OPENAI_CACHE_STEP == 0
    assert cache.serve(responses(user("A" * 8_000), user("b" * 4_000)))[1] == 0, "a change at the start loses the prefix"
    small = OpenAIPromptCache()
    small.serve(responses(user("a" * 100)))
    assert small.serve(responses(user("a" * 100), user("b")))[1] == 0


def test_the_openai_runs_are_priced_from_the_model_tables_row() -> None:
    info, cache = model_info(OPENAI_MODEL), cache_prices(OPENAI_MODEL)
    assert info is not None and info.provider == "openai"
    prices = table_prices(OPENAI_MODEL)
    assert prices.cached == pytest.approx(info.input_per_mtok * cache.read) and prices.output == info.output_per_mtok
    assert prices.uncached >= info.input_per_mtok


def test_the_compaction_checks_read_input_items_task_paths_last_error_and_rules_outside_the_summary() -> None:
    task = "Fix the parser. Do not modify anything under tests/"
    call = {"type": "function_call", "call_id": "c1", "name": "read_file", "arguments": '{"path": "src/mod0.py"}'}
    failed = {"type": "function_call_output", "call_id": "c1", "output": "boom\n[exit code 1] BENCH-run-TAIL-001-END"}
    working = responses(user(task), call, failed)
    summary = responses(user(task), call, failed, user(f"{SUMMARY_PREAMBLE}\nSummarize."))
    pinned = f"{task}\nFiles: src/mod0.py (read)\nLast failure: BENCH-run-TAIL-001-END"
    after = responses({"role": "assistant", "type": "compaction", "content": "the state"}, user(pinned))
    lost = responses({"role": "assistant", "type": "compaction", "content": task}, user("go on"))
    served = [(100.0, 0.0), (120.0, 100.0), (50.0, 0.0)]
    (kept,) = compaction_reports([working, summary, after], served, task)
    (gone,) = compaction_reports([working, summary, lost], served, task)
    assert kept.committed and kept.task_kept and (kept.paths_kept, kept.paths_touched) == (1, 1) and kept.error_kept
    assert gone.committed and not gone.task_kept and gone.paths_kept == 0 and gone.error_kept is False, "the summary's own words do not count"
    assert words_kept(after, [(task, ("Do not modify anything under tests/",))]).complete


@pytest.mark.slow
def test_a_session_compacted_by_the_openai_server_keeps_what_the_pinned_block_carries() -> None:
    report = run_session("multi", 28_000, Size(debug_runs=1, explore_files=1, small_results=2, multi_files=2), "native", OPENAI_MODEL, "openai")
    assert report.exit_code == 0 and report.rejections == 0 and report.engine == "native" and report.provider == "openai"
    assert report.compactions and all(
        c.by_server and c.committed and c.task_kept and c.paths_kept == c.paths_touched and c.error_kept for c in report.compactions
    )
    assert report.words and all(w.complete for w in report.words)
    assert report.own_summaries == 0 and report.summaries == len(report.compactions), "the server summarized, we did not"
    assert 0 < report.cached_tokens < report.input_tokens and report.cost > 0
