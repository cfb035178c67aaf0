"""The seed's constants and how they scale to the model's context window.

The constants keep the seed's names and values; they are sized for the
ordinary windows (128k and 200k tokens). Applied unchanged to a small window
they would make no sense: ``16,000 - 20,000 - 13,000`` is negative, so a 16k
model would compact before every call. ``Budget.for_window`` scales them down,
and only down, by two rules:

* **Layer 2 reserves** (summary reserve and both safety margins) keep the
  seed's 33,000 tokens at 128k and above (thresholds 95,000 and 167,000).
  Below, they only have to cover the summary's output (the summary request
  reuses the cached prefix), so their share of the window falls linearly from
  the seed's 25.8% at 128k towards ``SMALL_RESERVE_FRACTION`` (16%): the
  automatic threshold is about 79% of a 60k window and 82% of a 32k one, and
  it still grows with the window. (``RESERVE_FRACTION``, 30%, was the previous
  cap and remains an upper bound.) Measured on the exploration session at
  60k (``bench/bench_session_cost.py``), 20% gave 4 compactions, 16% gives 3.
* **The kept tail** holds ``RECENT_KEEP_TOKENS`` (10,000) and at least
  ``RECENT_KEEP_MESSAGES`` messages at 128k and above (the seed). Below 128k
  it holds 7% of the window (``SMALL_RECENT_KEEP_WINDOW_FRACTION``) and the
  message floor gives way once it does (``recent_max_tokens``): five whole
  messages at 60k were 16.8k tokens, two read pages; 10% kept one page more
  than the model needs after a summary (the pinned block names the files).
* **The shrink tier keeps only the newest result whole**
  (``SHRINK_KEEP_RECENT_RESULTS``, besides the latest round, which it never
  touches): keeping three whole at 60k held three read pages, 40% of the
  window; with one, the exploration at 60k compacts 4 times instead of 6 and
  the one at 200k peaks at 114k instead of 152k.
* **Layer 1 byte limits and the summary's output** scale by
  ``window / DEFAULT_FALLBACK_CONTEXT_WINDOW`` when the window is smaller than
  128k, so a single tool round can never fill a small window by itself.

Beyond the seed, the budget is the one place that sizes tool output (the
runner hands it to the tools as their ``OutputBudget``): a shaped command or
search output takes ``inline_output_bytes``, at most ``OUTPUT_INLINE_MAX_TOKENS``
(4,000) real tokens and 8% of a small window. Tools shape in bytes, so the
token budget is turned into bytes at ``OUTPUT_BYTES_PER_TOKEN`` (2.8), not the
estimate's 3.5: command output is denser than prose. Measured with the real
tokenizers (o200k and cl100k, loaded offline, ``tokenizer.py``) on shaped
test logs: a pytest run of 2,140 tests with failures 3.17-3.21 bytes a token,
the session-cost bench's 270 KB log 3.10-3.11; at 3.5 the old 14 KB budget was
4,400-4,500 tokens, at 2.8 the 11,200 bytes are 3,500-3,600 (10% below the
promise, room for denser logs). A page of a file ``read_page_bytes`` (about 64 KB, whole
files, at 128k and above; below, it shrinks faster than the window, so a
small window still holds several pages: 22 KB at 60k, 10 KB at 32k, 4 KB at 16k), and from ``shrink_threshold``
(half the window) older large results shrink to previews in one batch when
that pays for the cache write it causes (``shrink.py``). The
pinned block that follows every summary (``pinned.py``) is capped at
``pinned_max_tokens``: 4,000 tokens at 128k and above, scaled down with the
window, never under 400.
"""

from __future__ import annotations

from dataclasses import dataclass

from pseudoclaude.llm import DEFAULT_FALLBACK_CONTEXT_WINDOW as DEFAULT_FALLBACK_CONTEXT_WINDOW

SINGLE_TOOL_RESULT_LIMIT_BYTES = 50_000
TOOL_ROUND_AGGREGATE_LIMIT_BYTES = 200_000
SUMMARY_RESERVE_TOKENS = 20_000
AUTO_SAFETY_MARGIN_TOKENS = 13_000
MANUAL_SAFETY_MARGIN_TOKENS = 3_000
RECENT_KEEP_TOKENS = 10_000
RECENT_KEEP_MESSAGES = 5
AUTO_FAILURE_LIMIT = 3
ESTIMATE_CHARS_PER_TOKEN = 3.5
PREVIEW_HEAD_BYTES = 2048
PREVIEW_HEAD_LINES = 20
PREVIEW_TAIL_BYTES = 4096
PREVIEW_TAIL_LINES = 40
SUMMARY_RETRY_LIMIT = 3

RESERVE_FRACTION = 0.30
SMALL_RESERVE_FRACTION = 0.16
RECENT_KEEP_WINDOW_FRACTION = 0.10
SMALL_RECENT_KEEP_WINDOW_FRACTION = 0.07
OUTPUT_INLINE_MAX_TOKENS = 4_000
OUTPUT_BYTES_PER_TOKEN = 2.8
OUTPUT_INLINE_MAX_BYTES = int(OUTPUT_INLINE_MAX_TOKENS * OUTPUT_BYTES_PER_TOKEN)
OUTPUT_INLINE_MIN_BYTES = 6_000
OUTPUT_INLINE_WINDOW_FRACTION = 0.08
READ_PAGE_MAX_BYTES = 64_000
READ_PAGE_MIN_BYTES = 2_000
READ_PAGE_SHRINK_EXPONENT = 1.3
SHRINK_THRESHOLD_FRACTION = 0.5
SHRINK_MIN_SAVING_FRACTION = 0.2
SHRINK_KEEP_RECENT_RESULTS = 1
SHRINK_MIN_ROUNDS = 3
SHRINK_GROWTH_ROUNDS = 4
SHRINK_BREAK_MARGIN = 1.5
"""A shrink batch's cache break counts this many times its estimate (``batchprice.py``): a batch must pay clearly."""
SUMMARY_MAX_OUTPUT_TOKENS = 8_192
MIN_CONTEXT_WINDOW = 4_096
PINNED_MAX_TOKENS = 4_000
PINNED_MIN_TOKENS = 400


def effective_window(context_window: int | None) -> int:
    """The window to plan for: unknown or invalid windows fall back to 128,000."""
    if context_window is None or context_window <= 0:
        return DEFAULT_FALLBACK_CONTEXT_WINDOW
    return max(context_window, MIN_CONTEXT_WINDOW)


@dataclass(frozen=True)
class Budget:
    """Every limit the pipeline uses, for one context window (see the module docstring)."""

    context_window: int
    summary_reserve_tokens: int
    auto_safety_margin_tokens: int
    manual_safety_margin_tokens: int
    single_limit_bytes: int
    aggregate_limit_bytes: int
    recent_keep_tokens: int
    recent_max_tokens: int | None
    summary_max_output_tokens: int
    inline_output_bytes: int
    read_page_bytes: int
    pinned_max_tokens: int = PINNED_MAX_TOKENS

    @classmethod
    def for_window(cls, context_window: int | None) -> Budget:
        window = effective_window(context_window)
        size_scale = min(1.0, window / DEFAULT_FALLBACK_CONTEXT_WINDOW)
        reserves = SUMMARY_RESERVE_TOKENS + AUTO_SAFETY_MARGIN_TOKENS
        seed_fraction = reserves / DEFAULT_FALLBACK_CONTEXT_WINDOW
        fraction = SMALL_RESERVE_FRACTION + (seed_fraction - SMALL_RESERVE_FRACTION) * size_scale
        reserve_scale = min(1.0, fraction * window / reserves)
        summary_reserve = int(SUMMARY_RESERVE_TOKENS * reserve_scale)
        tail_fraction = RECENT_KEEP_WINDOW_FRACTION if size_scale >= 1.0 else SMALL_RECENT_KEEP_WINDOW_FRACTION
        return cls(
            context_window=window,
            summary_reserve_tokens=summary_reserve,
            auto_safety_margin_tokens=int(AUTO_SAFETY_MARGIN_TOKENS * reserve_scale),
            manual_safety_margin_tokens=int(MANUAL_SAFETY_MARGIN_TOKENS * reserve_scale),
            single_limit_bytes=int(SINGLE_TOOL_RESULT_LIMIT_BYTES * size_scale),
            aggregate_limit_bytes=int(TOOL_ROUND_AGGREGATE_LIMIT_BYTES * size_scale),
            recent_keep_tokens=min(RECENT_KEEP_TOKENS, int(window * tail_fraction)),
            recent_max_tokens=None if size_scale >= 1.0 else int(window * tail_fraction),
            summary_max_output_tokens=min(SUMMARY_MAX_OUTPUT_TOKENS, summary_reserve),
            inline_output_bytes=_clamp(int(window * OUTPUT_INLINE_WINDOW_FRACTION * OUTPUT_BYTES_PER_TOKEN), OUTPUT_INLINE_MIN_BYTES, OUTPUT_INLINE_MAX_BYTES),
            read_page_bytes=max(READ_PAGE_MIN_BYTES, int(READ_PAGE_MAX_BYTES * size_scale**READ_PAGE_SHRINK_EXPONENT)),
            pinned_max_tokens=max(PINNED_MIN_TOKENS, int(PINNED_MAX_TOKENS * size_scale)),
        )

    @property
    def shrink_threshold(self) -> int:
        """From this many tokens a shrink batch is considered (it runs when it pays, ``shrink.py``)."""
        return int(self.context_window * SHRINK_THRESHOLD_FRACTION)

    @property
    def shrink_min_saving_bytes(self) -> int:
        """A shrink batch must save at least this much (a fifth of the window, in bytes): one aging result never triggers one."""
        return int(self.context_window * SHRINK_MIN_SAVING_FRACTION * ESTIMATE_CHARS_PER_TOKEN)

    @property
    def auto_threshold(self) -> int:
        """Layer 2 runs automatically once the estimate reaches this many tokens."""
        return self.context_window - self.summary_reserve_tokens - self.auto_safety_margin_tokens

    def summary_input_budget(self, trigger: str) -> int:
        """Tokens the summary request may carry: window - reserve - the trigger's margin."""
        margin = self.auto_safety_margin_tokens if trigger == "auto" else self.manual_safety_margin_tokens
        return self.context_window - self.summary_reserve_tokens - margin


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, value))
