"""The automatic threshold: the seed's exact values at 128k and 200k, about 80% of a small window."""

from __future__ import annotations

from pseudoclaude.compact.budget import Budget


def test_the_seed_thresholds_hold_exactly_at_128k_and_200k() -> None:
    assert Budget.for_window(128_000).auto_threshold == 95_000
    assert Budget.for_window(200_000).auto_threshold == 167_000


def test_small_windows_compact_late_and_the_threshold_grows_with_the_window() -> None:
    assert 0.76 <= Budget.for_window(60_000).auto_threshold / 60_000 <= 0.82
    assert 0.76 <= Budget.for_window(32_000).auto_threshold / 32_000 <= 0.82
    thresholds = [Budget.for_window(window).auto_threshold for window in range(8_000, 260_000, 4_000)]
    assert thresholds == sorted(thresholds)
