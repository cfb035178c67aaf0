"""A shrink batch runs only when it pays for the prompt cache it breaks, or avoids a summary for less than it costs."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest
from PIL import Image as Picture

from pseudoclaude.compact import BytesEstimator, ContextOutcome, ContextState, manage_context
from pseudoclaude.compact.estimate import image_rule
from pseudoclaude.compact.batchprice import BatchPrice
from pseudoclaude.llm import CachePrices, Image, cache_prices
from pseudoclaude.llm.messages import Message, ToolCall
from pseudoclaude.tools import builtin_registry
from tests.compact.support import RecordingSession, SummaryProvider

CLEARABLE = builtin_registry().clearable_names()
SONNET = "claude-sonnet-4-5"


def _output(n: int, size: int = 23_000) -> str:
    body = "".join(f"result {n} line {i}\n" for i in range(size // 10))
    return body[: size - 12] + f"\nEND OF {n:03d}\n"


def _reads(rounds: int, start: int = 0) -> list[Message]:
    out: list[Message] = []
    for n in range(start, start + rounds):
        out += [Message.assistant(f"step {n}", [ToolCall(f"c{n}", "read_file", '{"path": "x"}')]), Message.tool(f"c{n}", _output(n))]
    return out


def _picture(n: int) -> Image:
    out = io.BytesIO()
    Picture.new("RGB", (1568, 735), (n * 7 % 256, n * 13 % 256, 90)).save(out, "PNG")
    return Image("image/png", out.getvalue(), f"shot{n}.png", 1568, 735)


def _screenshots(rounds: int) -> list[Message]:
    out = [Message.user("compare the screenshots")]
    for n in range(rounds):
        out += [
            Message.assistant(f"look {n}", [ToolCall(f"c{n}", "read_file", '{"path": "shot.png"}')]),
            Message.tool(f"c{n}", f"Image shot{n}.png", images=(_picture(n),)),
        ]
    return out


def _state(tmp_path: Path, window: int) -> ContextState:
    return ContextState(
        model=SONNET,
        context_window=window,
        session=RecordingSession(tmp_path),
        estimator=BytesEstimator(provider=image_rule(SONNET)),
        clearable_tools=CLEARABLE,
    )


def _manage(conversation: list[Message], state: ContextState) -> ContextOutcome:
    return asyncio.run(manage_context(conversation, state, SummaryProvider()))


def test_a_batch_that_would_not_pay_for_its_cache_break_is_not_run(tmp_path: Path) -> None:
    """At 60k, six 23 KB reads (39k tokens, past half the window): a batch would rewrite 16k tokens for 2 rounds of savings."""
    conversation = [Message.user("go"), *_reads(6)]
    state = _state(tmp_path, 60_000)
    outcome = _manage(conversation, state)
    assert outcome.before_tokens >= state.budget.shrink_threshold and outcome.before_tokens < state.auto_threshold
    assert outcome.count("shrink") == 0 and not outcome.summarized
    assert list(outcome.conversation) == conversation, "the cached prefix is sent unchanged"


def test_the_same_batch_runs_when_the_rounds_left_pay_for_it(tmp_path: Path) -> None:
    """At 200k, sixteen 23 KB reads: the 15 older ones shrink, saving far more over the rounds left than the break costs."""
    outcome = _manage([Message.user("go"), *_reads(16)], _state(tmp_path, 200_000))
    assert outcome.count("shrink") == 15 and not outcome.summarized


def test_a_batch_that_avoids_a_summary_for_less_than_it_costs_runs(tmp_path: Path) -> None:
    """At the threshold of a 40k window, 22 screenshots: notes for the 19 old ones cost less than a summary would."""
    state = _state(tmp_path, 40_000)
    outcome = _manage(_screenshots(22), state)
    assert outcome.before_tokens >= state.auto_threshold
    assert outcome.count("shrink") == 19 and not outcome.summarized
    assert outcome.after_tokens < state.auto_threshold


def test_a_batch_that_pays_back_its_break_only_barely_is_not_run(tmp_path: Path) -> None:
    """At 200k, nineteen 23 KB reads: the 18 older would save about 1.3 times the break over the rounds left (16 save 1.9 times).

    The break is paid at once, the saving only if those rounds come: the prefix stays cached instead.
    """
    conversation = [Message.user("go"), *_reads(19)]
    state = _state(tmp_path, 200_000)
    outcome = _manage(conversation, state)
    assert state.budget.shrink_threshold <= outcome.before_tokens < state.auto_threshold
    assert outcome.count("shrink") == 0 and list(outcome.conversation) == conversation


def test_after_a_batch_the_next_rounds_do_not_fire_again(tmp_path: Path) -> None:
    state = _state(tmp_path, 200_000)
    conversation = list(_manage([Message.user("go"), *_reads(16)], state).conversation)
    conversation += [Message.assistant("noted"), Message.user("x" * 300_000)]
    for n in range(16, 19):
        conversation += _reads(1, n)
        outcome = _manage(conversation, state)
        assert outcome.before_tokens >= state.budget.shrink_threshold
        assert outcome.count("shrink") == 0 and list(outcome.conversation) == conversation, f"round {n}: the prefix stays cached"


def test_the_docstring_arithmetic_at_60k_and_200k() -> None:
    anthropic = cache_prices(SONNET)
    assert anthropic == CachePrices(read=0.1, write=1.25, lookback_blocks=20)
    small = BatchPrice(34_000, 3_000, 18_000, 5_700, 47_600, anthropic, summary_cost=30_000, after_summary=12_000)
    assert small.cache_break == pytest.approx(13_150) and small.saving == pytest.approx(4_295, abs=1) and not small.pays
    large = BatchPrice(100_000, 3_000, 80_000, 5_000, 167_000, anthropic, summary_cost=50_000, after_summary=17_000)
    assert large.cache_break == pytest.approx(11_550) and large.saving == pytest.approx(107_200) and large.pays
    summary = 48_000 * 0.1 + 2_046 * 5 + 10_946 * 1.25
    avoids = BatchPrice(48_000, 3_000, 32_000, 5_700, 47_600, anthropic, summary_cost=summary, after_summary=10_946)
    assert avoids.cache_break == pytest.approx(11_750) and avoids.counted_break == pytest.approx(17_625) and avoids.pays
    assert round(avoids.rate(avoids.counted_break, avoids.after)) == 6_359 and round(avoids.rate(summary, 10_946)) == 7_392
    postpones = BatchPrice(48_000, 3_000, 30_000, 5_700, 47_600, anthropic, summary_cost=summary, after_summary=10_946)
    assert round(postpones.rate(postpones.counted_break, postpones.after)) == 7_396
    assert postpones.clears_enough and not postpones.pays, "leaving much more than a summary would only postpones it"
    marginal = BatchPrice(103_500, 3_200, 59_400, 8_300, 167_000, anthropic, summary_cost=45_000, after_summary=19_000)
    assert marginal.cache_break == pytest.approx(41_095) and marginal.saving == pytest.approx(45_445, abs=1)
    assert marginal.clears_enough and not marginal.pays, "paying back 1.1 times its break is not clear enough"


def test_without_a_write_premium_a_break_costs_less() -> None:
    openai = cache_prices("gpt-4.1")
    assert openai.write == 1.0 and openai.lookback_blocks is None
    args = dict(tokens=40_000, prefix=3_000, removed=20_000, growth=5_000, threshold=60_000, summary_cost=30_000, after_summary=12_000)
    assert BatchPrice(prices=openai, **args).cache_break < BatchPrice(prices=cache_prices(SONNET), **args).cache_break  # type: ignore[arg-type]
