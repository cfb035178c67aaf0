"""What the native engine asks of the provider, and how a provider's compaction joins the conversation."""

from __future__ import annotations

from pseudoclaude.compact import BytesEstimator, ContextState, WorkingSet, adopt_compaction, server_context
from pseudoclaude.compact.native import CLEAR_KEEP_TOOL_USES, clear_at_least
from pseudoclaude.compact.pinned import PINNED_HEADER, pinned_text
from pseudoclaude.llm import Compaction, Message, ToolCall, cache_prices

MODEL = "claude-sonnet-4-6"


def state(window: int = 200_000) -> ContextState:
    return ContextState(model=MODEL, context_window=window, estimator=BytesEstimator(), working_set=WorkingSet())


def rounds(sizes: list[int]) -> list[Message]:
    out = [Message.user("fix the parser, never touch setup.py")]
    for n, size in enumerate(sizes):
        out += [Message.assistant("", (ToolCall(f"c{n}", "read_file", "{}"),)), Message.tool(f"c{n}", "x" * size)]
    return out


def test_a_clear_must_remove_enough_to_pay_for_rewriting_what_it_keeps() -> None:
    s = state()
    prices = cache_prices(MODEL)
    small, large = rounds([400] * 12), rounds([40_000] * 12)
    tail_small, tail_large = s.estimator.count(small[-7:]), s.estimator.count(large[-7:])
    factor = (prices.write - prices.read) / prices.read
    assert clear_at_least(small, s, 100_000) >= tail_small * factor
    assert clear_at_least(large, s, 100_000) >= tail_large * factor > clear_at_least(small, s, 100_000)


def test_the_request_asks_compaction_at_our_threshold_and_clearing_below_it() -> None:
    s = state()
    asked = server_context(rounds([1000] * 3), s, instructions="sections", exclude=("todo",), thinking=True)
    assert asked.compact_trigger == s.auto_threshold and asked.clear_trigger is not None and asked.clear_trigger < s.auto_threshold
    assert asked.clear_exclude == ("todo",) and asked.clear_thinking and asked.compact_instructions == "sections"


def test_a_compaction_drops_what_it_replaced_and_the_pinned_block_follows_its_turn() -> None:
    s = state()
    history = rounds([1000] * 2)
    s.working_set.observe(history)
    compacting = Message.assistant("Reading on.", (ToolCall("c9", "read_file", "{}"),), compaction=Compaction("anthropic", "summary", '{"type": "compaction"}'))
    conversation = [*history, compacting, Message.tool("c9", "text")]
    adopted = adopt_compaction(conversation, s)
    assert adopted is not None and adopted[0] is compacting and adopted[1].role == "tool"
    assert adopted[2].role == "user" and adopted[2].text.startswith(PINNED_HEADER) and "never touch setup.py" in adopted[2].text
    assert pinned_text(adopted) and adopt_compaction(adopted, s) is None, "adopted once; it stays in place"


def test_a_user_message_that_quotes_the_pinned_tags_is_no_pinned_block() -> None:
    compacting = Message.assistant("Reading on.", (ToolCall("c9", "read_file", "{}"),), compaction=Compaction("anthropic", "summary", '{"type": "compaction"}'))
    quoting = Message.user("why does the file end with </pinned-context>?")
    assert pinned_text([compacting, Message.tool("c9", "text"), quoting]) == ""
    cut = Message.user(PINNED_HEADER + "\nthe block was cut before its end")
    assert pinned_text([compacting, Message.tool("c9", "text"), cut]) == ""


def test_with_no_more_results_than_a_clear_keeps_the_whole_run_of_results_is_what_it_rewrites() -> None:
    s = state()
    prices = cache_prices(MODEL)
    factor = (prices.write - prices.read) / prices.read
    few = rounds([4_000] * CLEAR_KEEP_TOOL_USES)
    from_first_result = s.estimator.count(few[2:])
    assert clear_at_least(few, s, 100_000) >= from_first_result * factor


def test_the_pinned_block_goes_right_after_the_compacting_turns_results_however_many() -> None:
    summary = Compaction("anthropic", "summary", '{"type": "compaction"}')
    calls = tuple(ToolCall(f"p{n}", "read_file", "{}") for n in range(3))
    for compacting, results in (
        (Message.assistant("Reading three.", calls, compaction=summary), [Message.tool(f"p{n}", "text") for n in range(3)]),
        (Message.assistant("Done reading.", compaction=summary), []),
    ):
        s = state()
        conversation = [*rounds([10, 10]), compacting, *results, Message.user("next")]
        s.working_set.observe(conversation)
        adopted = adopt_compaction(conversation, s)
        assert adopted is not None
        assert [m.role for m in adopted] == ["assistant", *["tool"] * len(results), "user", "user"]
        assert adopted[len(results) + 1].text.startswith(PINNED_HEADER) and adopted[-1].text == "next"
