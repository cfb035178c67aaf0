"""The shrink tier: older large results become previews in one recorded batch, past half the window, when it pays.

The mechanics are shown at 200k, where a batch of 15 old 23 KB results pays
for its cache break many times over (``test_shrink_pays.py`` pins the rule itself).
"""

from __future__ import annotations

import asyncio
import math
import random
from pathlib import Path

import pytest

from pseudoclaude.compact import BytesEstimator, ContextOutcome, ContextState, manage_context
from pseudoclaude.compact.estimate import messages_bytes
from pseudoclaude.llm.messages import Message, ToolCall
from pseudoclaude.tools import builtin_registry
from tests.compact.support import RecordingSession, SummaryProvider
from tests.fakes.scripted import validate_conversation

WINDOW = 200_000  # shrink from 100,000 tokens saving >= 140,000 bytes, Layer 2 at 167,000 tokens
ROUNDS = 16  # 16 results of 23 KB: about 105,000 tokens
CLEARABLE = builtin_registry().clearable_names()


def _output(n: int, size: int = 23_000) -> str:
    body = "".join(f"result {n} line {i}\n" for i in range(size // 10))
    return body[: size - 12] + f"\nEND OF {n:03d}\n"


def _round(n: int, tool: str = "read_file", content: str | None = None) -> list[Message]:
    return [
        Message.assistant(f"step {n}", [ToolCall(f"c{n}", tool, '{"path": "x"}')]),
        Message.tool(f"c{n}", content if content is not None else _output(n)),
    ]


def _history(rounds: int, tools: dict[int, str] = {}) -> list[Message]:
    out = [Message.user("go")]
    for n in range(rounds):
        out += _round(n, tools.get(n, "read_file"))
    return out


def _state(recorder: RecordingSession | None, **kwargs: object) -> ContextState:
    return ContextState(
        model="m",
        context_window=WINDOW,
        session=recorder,
        estimator=BytesEstimator(),
        clearable_tools=CLEARABLE,
        **kwargs,  # type: ignore[arg-type]
    )


def _manage(conversation: list[Message], state: ContextState) -> ContextOutcome:
    return asyncio.run(manage_context(conversation, state, SummaryProvider()))


def _contents(conversation: tuple[Message, ...] | list[Message]) -> list[str]:
    return [m.tool_result.content for m in conversation if m.tool_result is not None]


def test_below_half_the_window_nothing_shrinks(tmp_path: Path) -> None:
    outcome = _manage(_history(4), _state(RecordingSession(tmp_path)))
    assert outcome.count("shrink") == 0


def test_at_half_the_window_older_results_shrink_in_one_batch(tmp_path: Path) -> None:
    recorder = RecordingSession(tmp_path)
    state = _state(recorder)
    state.record_usage(100, 1)
    outcome = _manage(_history(ROUNDS), state)
    contents = _contents(outcome.conversation)
    assert outcome.count("shrink") == 15 and not outcome.summarized
    assert all(c.startswith("[content offloaded] original size: 23000 bytes\n") for c in contents[:15])
    assert all(f"END OF {n:03d}" in contents[n] for n in range(15)), "a shrunk result keeps its tail"
    assert contents[15:] == [_output(15)], "the most recent result stays verbatim"
    assert outcome.after_tokens < outcome.before_tokens
    assert validate_conversation(list(outcome.conversation)) is None
    recorded = [data for kind, data in recorder.events if kind == "replacement"]
    assert [d["call_id"] for d in recorded] == [f"c{n}" for n in range(15)]
    assert all(d["layer"] == "shrink" and d["resets_anchor"] is True and d["original_bytes"] == 23_000 for d in recorded)
    assert all(Path(str(d["path"])).read_text() == _output(n) for n, d in enumerate(recorded)), "the path names the complete output"
    assert state.anchor is None


def test_state_carrying_tools_are_never_shrunk(tmp_path: Path) -> None:
    """Priced as OpenAI's cache (no write premium, the whole common prefix served), where 15 of 18 rounds pay clearly."""
    state = ContextState(model="gpt-4.1", context_window=WINDOW, session=RecordingSession(tmp_path), estimator=BytesEstimator(), clearable_tools=CLEARABLE)
    outcome = _manage(_history(ROUNDS + 2, {0: "todo_write", 1: "remember"}), state)
    contents = _contents(outcome.conversation)
    assert outcome.count("shrink") == 15 and not outcome.summarized
    assert contents[:2] == [_output(0), _output(1)]


def test_a_call_right_after_a_batch_changes_nothing(tmp_path: Path) -> None:
    recorder = RecordingSession(tmp_path)
    state = _state(recorder)
    first = _manage(_history(ROUNDS), state)
    again = _manage(list(first.conversation) + [Message.assistant("thinking"), Message.user("more")], state)
    assert again.count("shrink") == 0 and again.actions == ()
    assert again.conversation[: len(first.conversation)] == first.conversation, "the prefix stays byte-identical"
    assert len([kind for kind, _ in recorder.events if kind == "replacement"]) == 15


def test_one_new_result_does_not_trigger_another_batch(tmp_path: Path) -> None:
    state = _state(RecordingSession(tmp_path))
    first = _manage(_history(ROUNDS), state)
    grown = list(first.conversation) + _round(ROUNDS) + [Message.assistant("noted"), Message.user("x" * 300_000)]
    second = _manage(grown, state)
    assert second.before_tokens >= state.budget.shrink_threshold
    assert second.count("shrink") == 0, "one aging result saves too little to break the cache again"


def test_without_a_session_or_saved_output_nothing_shrinks() -> None:
    outcome = _manage(_history(ROUNDS), _state(None))
    assert outcome.count("shrink") == 0
    assert _contents(outcome.conversation) == [_output(n) for n in range(ROUNDS)]


def test_a_resumed_session_sends_the_same_conversation(tmp_path: Path) -> None:
    recorder = RecordingSession(tmp_path)
    original = _history(ROUNDS)
    first = _manage(original, _state(recorder))
    sent = first.conversation
    assert first.count("shrink") == 15
    replacements = {str(d["call_id"]): str(d["preview"]) for kind, d in recorder.events if kind == "replacement"}
    resumed = _manage(original, _state(RecordingSession(tmp_path / "elsewhere"), replacements=replacements))
    assert resumed.conversation == sent
    assert resumed.count("shrink") == 0 and not (tmp_path / "elsewhere").exists()


# A long session, with and without the tier: shaped outputs at the budget's sizes stay inline after Layer 1.

OVERHEAD_TOKENS = 1_500
TRUE_BYTES_PER_TOKEN = 3.0
TURNS = 80


def _cost(previous: list[Message], conversation: list[Message]) -> float:
    """What sending ``conversation`` after ``previous`` costs, in uncached input tokens, as Anthropic's cache serves it.

    The common leading messages are read at 0.1 when the first change is within 20 messages of the end (the
    lookback), else only the overhead is; the rest is written at 1.25.
    """
    same = next((i for i, (a, b) in enumerate(zip(previous, conversation)) if a is not b and a != b), min(len(previous), len(conversation)))
    if len(conversation) - same > 20:
        same = 0
    cached = OVERHEAD_TOKENS + messages_bytes(conversation[:same]) / TRUE_BYTES_PER_TOKEN
    return cached * 0.1 + messages_bytes(conversation[same:]) / TRUE_BYTES_PER_TOKEN * 1.25


def _simulate(window: int, spill_dir: Path, clearable: frozenset[str]) -> tuple[int, int, int, float]:
    """(summaries, tokens sent in all, shrink batches, cost) of one scripted session; no clearable tools: no tier.

    The cost (``_cost`` per request) counts a summary request as reading the previous prompt from the cache.
    """
    rng = random.Random(window)
    state = ContextState(model="sim-model", context_window=window, session=RecordingSession(spill_dir), overhead=OVERHEAD_TOKENS, clearable_tools=clearable)
    budget = state.budget
    provider = SummaryProvider(answers=["<analysis>notes</analysis><summary>" + "summary line\n" * 100 + "</summary>"])
    conversation = [Message.user("start the task")]
    summaries = sent_total = batches = 0
    cost = 0.0
    last: list[Message] = []
    for turn in range(TURNS):
        outcome = asyncio.run(manage_context(conversation, state, provider))
        conversation = list(outcome.conversation)
        cost += _cost(last, conversation) + (state.estimate(last) * 0.1 if outcome.summarized else 0.0)
        last = list(conversation)
        assert outcome.error is None and validate_conversation(conversation) is None
        sent = OVERHEAD_TOKENS + math.ceil(messages_bytes(conversation) / TRUE_BYTES_PER_TOKEN)
        assert sent < window, f"turn {turn}: {sent} tokens sent to a {window} window"
        sent_total += sent
        summaries += outcome.summarized
        batches += outcome.count("shrink") > 0
        state.record_usage(sent, len(conversation))
        kind = rng.choice(["small", "small", "command", "read", "read"])
        size = {"small": rng.choice([300, 1_000, 2_500]), "command": budget.inline_output_bytes, "read": budget.read_page_bytes}[kind]
        content = _output(turn, size)
        tool = "run_command" if kind == "command" else "read_file"
        conversation += [
            Message.assistant(f"step {turn}", [ToolCall(f"t{turn}", tool, "{}")]),
            Message.tool(f"t{turn}", content, shaped=kind != "small"),
        ]
        if turn % 6 == 5:
            conversation += [Message.assistant(f"finished part {turn}"), Message.user("continue")]
    return summaries, sent_total, batches, cost


@pytest.mark.parametrize("window", [128_000, 200_000])
def test_the_tier_never_adds_summaries_and_sends_fewer_tokens(window: int, tmp_path: Path) -> None:
    summaries_without, tokens_without, _, cost_without = _simulate(window, tmp_path / "without", frozenset())
    summaries_with, tokens_with, batches, cost_with = _simulate(window, tmp_path / "with", CLEARABLE)
    assert batches >= 1
    assert summaries_with <= summaries_without
    assert tokens_with < tokens_without and cost_with < cost_without * 0.9, "priced by the cache it pays clearly (16-19% less)"


def test_at_60k_the_tier_never_adds_summaries_nor_cost(tmp_path: Path) -> None:
    """At 60k a batch rarely pays for its cache break (the rounds left before a summary are few): no dearer than without it.

    Tokens sent are no measure of it: most are read from the cache. Measured in this simulation: one batch, one
    summary fewer, 1.6% dearer than without the tier (the one batch that still runs pays 8.6 times by its price and
    about nothing in fact); with the break counted once (no margin) two batches ran and it was 4.5% cheaper.
    """
    summaries_without, _, _, cost_without = _simulate(60_000, tmp_path / "without", frozenset())
    summaries_with, _, _, cost_with = _simulate(60_000, tmp_path / "with", CLEARABLE)
    assert summaries_with <= summaries_without and cost_with <= cost_without * 1.02


def test_at_a_small_window_the_tier_does_no_harm(tmp_path: Path) -> None:
    """At 32k, pages are about 10 KB: barely larger than a preview, so there is little or nothing worth shrinking."""
    summaries_without, tokens_without, _, _ = _simulate(32_000, tmp_path / "without", frozenset())
    summaries_with, tokens_with, _, _ = _simulate(32_000, tmp_path / "with", CLEARABLE)
    assert summaries_with <= summaries_without and tokens_with <= tokens_without
