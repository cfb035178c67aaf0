"""The user's words after compaction: every message carried, a long ticket's constraints pinned, never a blind cut."""

from __future__ import annotations

import asyncio
import json
from typing import Sequence

from pseudoclaude.compact import BytesEstimator, ContextState, PinnedTool, WorkingSet, force_compact, manage_context
from pseudoclaude.compact.rules import extract_rules
from pseudoclaude.llm.messages import Message, ToolCall
from tests.compact.listing import names_path
from tests.compact.support import SummaryProvider
from tests.compact.tickets import BACKGROUND, BUG_REPORT, CONSTRAINT_DEPS, CONSTRAINT_NAMES, CONSTRAINT_TESTS, LIST_TICKET, TICKET_4K
from tests.fakes.scripted import validate_conversation

TOOLS = {"read_file": PinnedTool("read", "path"), "edit_file": PinnedTool("edit", "path"), "run_command": PinnedTool("execute", "command")}
SUMMARY = "<summary>the model's own words about the work</summary>"
LONG_TICKET = TICKET_4K.replace("## More context\n", "## More context\n" + BACKGROUND * 30)
REQUEST_2 = "Now also handle gift cards the same way. Never change the rounding mode of existing orders."
REQUEST_3 = "Finally, write the changelog entry for both fixes."
ACCEPTANCE = ("1. The existing test suite passes unchanged.", "2. A new order with code SAVE10 and two addresses totals 89.91, not 89.92.")


def _state(window: int) -> ContextState:
    return ContextState(model="m", context_window=window, estimator=BytesEstimator(), working_set=WorkingSet(TOOLS))


def _read(call_id: str, path: str, lines: int = 40) -> list[Message]:
    body = "".join(f"{n}\t{path} line {n} " + "x" * 50 + "\n" for n in range(1, lines + 1)) + f"… lines 1-{lines} of {lines}\n"
    return [Message.assistant(f"reading {path}", [ToolCall(call_id, "read_file", json.dumps({"path": path}))]), Message.tool(call_id, body)]


def _outside_summary(conversation: Sequence[Message]) -> str:
    parts = [m.text for m in conversation[1:]]
    parts += [m.tool_result.content for m in conversation if m.tool_result is not None]
    return "\n".join(parts)


def _work(prefix: str, files: int) -> list[Message]:
    out: list[Message] = []
    for n in range(files):
        out += _read(f"{prefix}{n}", f"src/shop/{prefix}_{n}.py")
    return [*out, Message.assistant(f"done with {prefix}")]


def _run_until_compacted(
    conversation: list[Message], state: ContextState, provider: SummaryProvider, rounds: Sequence[list[Message]]
) -> list[tuple[Message, ...]]:
    """Append each round, govern the context before the next call as the runner does; the conversations after each summary."""
    compacted: list[tuple[Message, ...]] = []
    for messages in rounds:
        outcome = asyncio.run(manage_context([*conversation, *messages], state, provider))
        conversation = list(outcome.conversation)
        if outcome.summarized:
            assert validate_conversation(outcome.conversation) is None and outcome.error is None
            compacted.append(outcome.conversation)
    return compacted


def test_the_extractor_finds_the_constraints_and_acceptance_notes_of_a_4kb_ticket_and_no_background() -> None:
    rules = extract_rules(TICKET_4K)
    assert 3_800 < len(TICKET_4K) < 4_400
    for rule in (CONSTRAINT_TESTS, CONSTRAINT_NAMES, CONSTRAINT_DEPS, *ACCEPTANCE):
        assert rule in rules
    assert "Acceptance notes" in rules, "the heading that gives the numbered items their sense"
    assert not any("management command" in rule or "accretion" in rule for rule in rules)


def test_the_extractor_skips_the_stack_trace_log_and_test_output_of_a_bug_report() -> None:
    rules = extract_rules(BUG_REPORT)
    assert rules == (
        "The fix should return a total of 0 for an empty cart.",
        "Never swallow the exception in the view; fix it where it happens.",
        "Please keep the error log line as it is, ops alerts on it.",
    )


def test_the_extractor_keeps_the_items_of_a_list_ticket_under_their_headings() -> None:
    rules = extract_rules(LIST_TICKET)
    assert rules[:5] == (
        "Requirements:",
        "One function load_settings(path) that returns a frozen dataclass",
        "Environment variables override the files",
        "Unknown keys are an error naming the file and the key",
        "Only read files inside the project directory",
    )
    assert rules[5:8] == ("Out of scope:", "the CLI flags", "Notes:")
    assert "do not rename the SETTINGS_PATH constant" in rules
    assert not any("three files and an environment" in rule for rule in rules), "context items are not rules"


def test_a_long_pasted_ticket_keeps_the_constraint_in_its_middle_through_two_compactions() -> None:
    assert len(LONG_TICKET) > 25_000
    state, provider = _state(32_000), SummaryProvider([SUMMARY])
    conversation = [Message.user(LONG_TICKET), *_work("a", 6), Message.user(REQUEST_2)]
    first = asyncio.run(force_compact(conversation, state, provider)).conversation
    second = asyncio.run(force_compact([*first, *_work("b", 6), Message.user(REQUEST_3)], state, provider)).conversation
    for compacted in (first, second):
        kept = _outside_summary(compacted)
        for rule in (CONSTRAINT_TESTS, CONSTRAINT_NAMES, CONSTRAINT_DEPS, *ACCEPTANCE):
            assert rule in kept
        assert "characters cut" not in kept, "never cut blindly in the middle"
        assert '[1] "SHOP-1432: cart totals off by one cent with discount codes…" (28,920 chars; recall the quoted words for the whole text)' in kept
        assert REQUEST_2 in kept
        quoted = kept.split('[1] "', 1)[1].split("…", 1)[0]
        assert len(quoted) > 30 and quoted in LONG_TICKET, "recall's substring search finds the whole message by the quoted words"
        assert CONSTRAINT_TESTS not in compacted[0].text, "kept by the session, not by the summary"
    block = state.status(second).pinned
    assert (block.by_rules, block.verbatim, block.rules) == (1, 1, len(extract_rules(LONG_TICKET)))


def test_a_middle_request_and_its_rule_survive_both_compactions_of_the_third_request_at_32k() -> None:
    state, provider = _state(32_000), SummaryProvider([SUMMARY])
    conversation = [Message.user(TICKET_4K), *_work("first", 8), Message.user(REQUEST_2), *_work("second", 8), Message.user(REQUEST_3)]
    rounds = [_read(f"t{n}", f"docs/third_{n}.md", 60) for n in range(60)]
    compactions = _run_until_compacted(conversation, state, provider, rounds)
    assert len(compactions) >= 2
    touched = [f"src/shop/{p}_{n}.py" for p in ("first", "second") for n in range(8)]
    for compacted in compactions:
        kept = _outside_summary(compacted)
        assert TICKET_4K in kept and REQUEST_2 in kept and REQUEST_3 in kept
        assert all(names_path(kept, path) for path in touched)
        assert "omitted" not in kept


def _thirty_requests() -> WorkingSet:
    working = WorkingSet(TOOLS)
    requests = [f"Request {n}: " + "please look at the report again and tell me what changed. " * 20 + f"Never touch module_{n}." for n in range(30)]
    working.ingest([m for text in requests for m in (Message.user(text), Message.assistant("ok"))])
    return working


def test_when_the_messages_do_not_fit_whole_the_oldest_are_summarized_and_every_rule_stays() -> None:
    count = _state(32_000).count_text
    block = _thirty_requests().render(1_500, count)
    assert count(block) <= 1_500
    assert all(f"Never touch module_{n}." in block for n in range(30))
    assert "User messages (30: 0 verbatim, 3 by their instructions, 27 summarized, 30 rules pinned; oldest first):" in block
    assert '[2] "Request 1: please look at the report again and…" (1,192 chars; recall the quoted words for the whole text)' in block
    first, newest = block.split("\n[1] ")[1].split("\n")[0], block.split("\n[30] ")[1].split("\n")[0]
    assert len(first) > 150 and len(newest) > 150, "the first and the newest keep more of their opening words"


def test_when_even_their_rules_do_not_fit_the_oldest_collapse_into_a_count_never_a_silent_drop() -> None:
    count = _state(32_000).count_text
    block = _thirty_requests().render(500, count)
    assert count(block) <= 500
    heading = next(line for line in block.splitlines() if line.startswith("User messages ("))
    assert heading.startswith("User messages (30: ") and "collapsed" in heading
    assert "\n[1] " in block and "\n[30] " in block and "Never touch module_29." in block
    spans = [line for line in block.splitlines() if "left out here for space" in line]
    assert spans and spans[0].startswith("[2]"), "the oldest after the task go first"
    shown = {int(line[1:].split("]")[0]) for line in block.splitlines() if line.startswith("[") and "left out" not in line}
    left_out = sum(int(line.split("] ")[1].split(" ")[0]) for line in spans)
    assert len(shown) + left_out == 30, "every message is shown or counted"


def test_repeats_and_short_messages_are_all_carried_in_order() -> None:
    working = WorkingSet(TOOLS)
    texts = ["fix the bug", "continue", "continue", "only touch src/", "continue"]
    working.ingest([m for text in texts for m in (Message.user(text), Message.assistant("ok"))])
    block = working.render(1_000, _state(32_000).count_text)
    assert "[1] fix the bug\n[2] continue\n[3] continue\n[4] only touch src/\n[5] continue" in block
