"""``/context`` breaks the pinned block into its parts and says what had to be reduced to fit."""

from __future__ import annotations

from io import StringIO

from rich.console import Console

from pseudoclaude.agent import ContextBreakdown
from pseudoclaude.compact import PinnedParts
from pseudoclaude.tui.context_view import render_context


def _view(pinned: PinnedParts | None, tokens: int = 1_200) -> str:
    breakdown = ContextBreakdown(
        system_tokens=2_000,
        tools_tokens=3_000,
        message_tokens=9_000,
        messages=12,
        estimated_tokens=14_000,
        context_window=32_000,
        auto_threshold=26_000,
        offloaded_results=0,
        offloaded_bytes=0,
        estimator="bytes",
        pinned_tokens=tokens,
        pinned=pinned,
    )
    console = Console(file=StringIO(), width=160, color_system=None)
    render_context(console, breakdown)
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_the_parts_and_what_was_reduced_are_listed_under_the_pinned_block() -> None:
    parts = PinnedParts(
        user_messages=6,
        user_tokens=700,
        verbatim=2,
        by_rules=1,
        summarized=2,
        bare=0,
        collapsed=0,
        rules=9,
        in_tail=1,
        files=61,
        files_tokens=350,
        failure_tokens=90,
        attached_tokens=0,
    )
    rows = [" ".join(line.split()) for line in _view(parts).splitlines() if line.startswith("    ")]
    assert rows == [
        "user messages 700 tokens: 5 messages, 2 verbatim; 1 more verbatim in the kept tail",
        "rules extracted 9 instructions pinned verbatim from 3 messages not carried whole",
        "files touched 350 tokens: 61 paths, grouped by directory",
        "last failure 90 tokens",
        "reduced to fit user messages: 1 by their instructions, 2 oldest summarized (instructions kept); whole in the session, recall finds them",
    ]


def test_a_block_that_kept_everything_whole_says_nothing_was_reduced() -> None:
    parts = PinnedParts(user_messages=2, user_tokens=40, verbatim=2, files=3, files_tokens=30)
    view = _view(parts)
    rows = [" ".join(line.split()) for line in view.splitlines() if line.startswith("    ")]
    assert rows == ["user messages 40 tokens: 2 messages, 2 verbatim", "files touched 30 tokens: 3 paths, grouped by directory"]


def test_before_any_summary_there_are_no_parts() -> None:
    view = _view(None, tokens=0)
    assert "pinned block" in view and "none until a summary" in view and "    user messages" not in view
