"""The automatic threshold: the seed's exact values at 128k and 200k, about 80% of a small window."""

from __future__ import annotations

from pseudoclaude.compact.budget import MIN_CONTEXT_WINDOW, Budget, effective_window


def test_the_seed_thresholds_hold_exactly_at_128k_and_200k() -> None:
    assert Budget.for_window(128_000).auto_threshold == 95_000
    assert Budget.for_window(200_000).auto_threshold == 167_000


def test_small_windows_compact_late_and_the_threshold_grows_with_the_window() -> None:
    assert 0.76 <= Budget.for_window(60_000).auto_threshold / 60_000 <= 0.82
    assert 0.76 <= Budget.for_window(32_000).auto_threshold / 32_000 <= 0.82
    thresholds = [Budget.for_window(window).auto_threshold for window in range(8_000, 260_000, 4_000)]
    assert thresholds == sorted(thresholds)


def test_at_the_ordinary_windows_every_value_is_the_seeds() -> None:
    """The seed's constants (compaction-design: SingleToolResultLimitBytes 50000, ToolRoundAggregateLimitBytes
    200000, SummaryReserveTokens 20000, Auto/ManualSafetyMarginTokens 13000/3000, RecentKeepTokens 10000), unscaled
    at 128k and above; a read page is the largest there."""
    for window in (128_000, 200_000, 1_000_000):
        budget = Budget.for_window(window)
        seed = (budget.single_limit_bytes, budget.aggregate_limit_bytes, budget.summary_reserve_tokens)
        assert seed == (50_000, 200_000, 20_000)
        assert (budget.auto_safety_margin_tokens, budget.manual_safety_margin_tokens, budget.recent_keep_tokens) == (13_000, 3_000, 10_000)
        assert budget.recent_max_tokens is None and budget.read_page_bytes == 64_000


def test_an_unknown_or_impossible_window_plans_for_the_fallback() -> None:
    fallback = effective_window(None)
    assert fallback == 128_000 and effective_window(0) == effective_window(-5) == fallback
    assert effective_window(1_000) == MIN_CONTEXT_WINDOW < fallback
