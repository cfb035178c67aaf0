"""Whole-session simulations on small windows: a scripted agent loop, no real model.

The "true" tokenizer here counts 3 bytes per token, denser than the 3.5 the
estimate assumes, so the margins and the usage-based calibration are exercised.
"""

from __future__ import annotations

import asyncio
import math
import random
from pathlib import Path

import pytest

from pseudoclaude.compact import ContextState, manage_context
from pseudoclaude.compact.estimate import messages_bytes
from pseudoclaude.llm.errors import PromptTooLong
from pseudoclaude.llm.messages import Message
from pseudoclaude.llm.provider import Request
from tests.compact.support import RecordingSession, SummaryProvider, tool_round
from tests.fakes.scripted import validate_conversation

OVERHEAD_TOKENS = 1_500
TRUE_BYTES_PER_TOKEN = 3.0
TURNS = 80


def _true_tokens(messages: list[Message]) -> int:
    return OVERHEAD_TOKENS + math.ceil(messages_bytes(messages) / TRUE_BYTES_PER_TOKEN)


def _summary_answer(window: int):  # type: ignore[no-untyped-def]
    def answer(request: Request) -> str | PromptTooLong:
        size = math.ceil(sum(len(m.text.encode()) for m in request.messages) / TRUE_BYTES_PER_TOKEN) + 30
        if size + request.max_tokens > window:
            return PromptTooLong(f"prompt is too long: {size} + {request.max_tokens} > {window}")
        return "<analysis>notes</analysis><summary>" + "summary line\n" * 100 + "</summary>"

    return answer


def _simulate(window: int, spill_dir: Path) -> tuple[list[int], int]:
    rng = random.Random(window)
    runtime = ContextState(model="sim-model", context_window=window, session=RecordingSession(spill_dir), overhead=OVERHEAD_TOKENS)
    provider = SummaryProvider(answers=[_summary_answer(window)])
    conversation = [Message.user("start the task")]
    compactions: list[int] = []
    for turn in range(TURNS):
        result = asyncio.run(manage_context(conversation, runtime, provider))
        conversation = list(result.conversation)
        assert result.error is None, result.error
        assert validate_conversation(conversation) is None
        sent = _true_tokens(conversation)
        assert sent < window, f"turn {turn}: {sent} tokens sent to a {window} window"
        if result.summarized:
            compactions.append(turn)
        runtime.record_usage(sent, len(conversation))
        size = rng.choice([300, 1_000, 2_500, 4_000, 9_000, 30_000])
        conversation = conversation + tool_round([(f"t{turn}", f"output of {turn}\n" + "x" * size)], text=f"step {turn}")
        if turn % 6 == 5:
            conversation = conversation + [Message.assistant(f"finished part {turn}"), Message.user("continue")]
    return compactions, len(provider.requests)


@pytest.mark.parametrize("window", [16_000, 32_000])
def test_small_window_session_compacts_a_bounded_number_of_times(window: int, tmp_path: Path) -> None:
    compactions, summary_requests = _simulate(window, tmp_path)
    assert compactions, "a long session on a small window must compact at least once"
    assert len(compactions) <= TURNS // 4
    assert all(b - a > 1 for a, b in zip(compactions, compactions[1:])), f"compacted on consecutive turns: {compactions}"
    assert summary_requests <= 2 * len(compactions)
