"""After a summary, older results inside the kept tail are previews; the newest round stays whole."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pseudoclaude.compact import BytesEstimator, ContextState, force_compact, manage_context
from pseudoclaude.llm import Message
from tests.compact.support import RecordingSession, SummaryProvider, tool_round

OLDER = "older page\n" + "o" * 20_000 + "\nOLDER-TAIL-LINE"
NEWEST = "newest page\n" + "n" * 20_000 + "\nNEWEST-TAIL-LINE"


def history() -> list[Message]:
    out = [Message.user("Read the report")]
    for n in range(4):
        out += tool_round([(f"early{n}", "early " * 2_000)], text=f"early {n}")
    return [*out, *tool_round([("older", OLDER)], text="older"), *tool_round([("newest", NEWEST)], text="newest")]


def state(tmp_path: Path, clearable: frozenset[str] = frozenset({"read_file"})) -> ContextState:
    session = RecordingSession(tmp_path / "spill")
    return ContextState(model="m", context_window=128_000, session=session, estimator=BytesEstimator(), clearable_tools=clearable)


def results(conversation: tuple[Message, ...]) -> dict[str, str]:
    return {m.tool_result.call_id: m.tool_result.content for m in conversation if m.tool_result is not None}


def test_an_older_result_in_the_kept_tail_becomes_its_preview_and_the_newest_stays_whole(tmp_path: Path) -> None:
    context = state(tmp_path)
    outcome = asyncio.run(force_compact(history(), context, SummaryProvider()))
    kept = results(outcome.conversation)
    assert kept["newest"] == NEWEST
    assert kept["older"] != OLDER and "OLDER-TAIL-LINE" in kept["older"] and len(kept["older"]) < len(OLDER) / 2
    spilled = [p for p in (tmp_path / "spill").iterdir()]
    assert len(spilled) == 1 and spilled[0].read_text() == OLDER and str(spilled[0]) in kept["older"]
    session = context.session
    assert isinstance(session, RecordingSession)
    replacements = [data for kind, data in session.events if kind == "replacement"]
    assert [(r["call_id"], r["layer"], r["resets_anchor"]) for r in replacements] == [("older", "compact", True)], "a replay drops the anchor there"
    assert context.decision("older") == ("replace", kept["older"])


def test_results_of_tools_that_are_not_clearable_stay_whole(tmp_path: Path) -> None:
    outcome = asyncio.run(force_compact(history(), state(tmp_path, frozenset()), SummaryProvider()))
    assert results(outcome.conversation)["older"] == OLDER


def test_after_ordinary_turns_a_kept_result_still_becomes_its_preview_and_the_whole_newest_round_stays(tmp_path: Path) -> None:
    """In a session every result has passed Layer 1 first, which decided to keep it: that decision does not exempt it."""
    second = "second newest page\n" + "s" * 20_000
    conversation = [*history()[:-2], *tool_round([("newest", NEWEST), ("second", second)], text="newest two")]
    context = state(tmp_path)
    turn = asyncio.run(manage_context(conversation, context, SummaryProvider()))
    assert not turn.summarized and context.decision("older") == ("keep", "")
    kept = results(asyncio.run(force_compact(conversation, context, SummaryProvider())).conversation)
    assert (kept["newest"], kept["second"]) == (NEWEST, second)
    assert kept["older"] != OLDER and "OLDER-TAIL-LINE" in kept["older"]


class _UnrecordableSession(RecordingSession):
    def append_replacement(self, call_id: str, preview: str, **details: object) -> None:
        raise OSError(28, "No space left on device")


def test_a_preview_the_session_cannot_record_is_said(tmp_path: Path) -> None:
    context = ContextState(
        model="m",
        context_window=128_000,
        session=_UnrecordableSession(tmp_path / "spill"),
        estimator=BytesEstimator(),
        clearable_tools=frozenset({"read_file"}),
    )
    outcome = asyncio.run(force_compact(history(), context, SummaryProvider()))
    assert "OLDER-TAIL-LINE" in results(outcome.conversation)["older"]
    assert [w for w in outcome.warnings if "could not record the preview of older" in w and "No space left" in w]
