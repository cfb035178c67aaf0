"""``recall`` against a fake history: errors, path matching, the output bound."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Sequence

import pytest

from pseudoclaude.tools import OutputBudget, PastMessage, ToolContext, ToolError
from pseudoclaude.tools.recall import RecallTool
from tests.tools.conftest import Call


@dataclasses.dataclass
class FakeHistory:
    messages: Sequence[PastMessage]
    boundaries: int = 1

    def summarized(self) -> Sequence[PastMessage]:
        return self.messages

    def compactions(self) -> int:
        return self.boundaries


def result(index: int, text: str, tool: str = "read_file", **arguments: Any) -> PastMessage:
    return PastMessage(index, "tool", text, 0, tool=tool, arguments=arguments, call_id=f"toolu_{index}")


def test_a_session_without_a_record_gets_a_clear_error(call: Call) -> None:
    with pytest.raises(ToolError, match="recall: this session keeps no record"):
        call(RecallTool(), query="anything")


def test_a_query_or_a_path_is_required_and_a_bad_regex_is_named(ctx: ToolContext, call: Call) -> None:
    history = FakeHistory([])
    call.context = dataclasses.replace(ctx, history=history)
    with pytest.raises(ToolError, match="give a query, a path, or both"):
        call(RecallTool())
    with pytest.raises(ToolError, match="invalid regular expression"):
        call(RecallTool(), query="(", regex=True)


def test_before_any_compaction_there_is_nothing_to_search(ctx: ToolContext, call: Call) -> None:
    history = FakeHistory([result(1, "needle")], boundaries=0)
    call.context = dataclasses.replace(ctx, history=history)
    assert "no compaction yet" in call(RecallTool(), query="needle").content


def test_a_path_matches_relative_absolute_and_in_a_command_line_but_not_a_longer_name(ctx: ToolContext, call: Call, workspace: Path) -> None:
    history = FakeHistory(
        [
            result(1, "relative", path="src/calc.py"),
            result(2, "absolute", path=str(workspace / "src" / "calc.py")),
            result(3, "command", tool="run_command", command="pytest -q src/calc.py"),
            result(4, "other", path="src/test_calc.py"),
            result(5, "by its own text src/calc.py", path="README.md"),
        ]
    )
    call.context = dataclasses.replace(ctx, history=history)
    out = call(RecallTool(), path="src/calc.py").content
    assert all(word in out for word in ("relative", "absolute", "command")) and "other" not in out and "own text" not in out
    assert out.startswith("recall: 3 messages matching path 'src/calc.py'")
    assert "message 3, before compaction 1: result of run_command" in call(RecallTool(), path=str(workspace / "src/calc.py")).content


def test_text_and_path_together_and_recalls_own_results_are_never_searched(ctx: ToolContext, call: Call) -> None:
    history = FakeHistory(
        [
            result(1, "line one\nthe NEEDLE here\nline three", path="a.py"),
            result(2, "needle elsewhere", path="b.py"),
            result(3, "recall: needle", tool="recall", query="needle"),
            PastMessage(4, "assistant", 'I will look.\n[call recall {"query": "needle"}]', 0),
        ]
    )
    call.context = dataclasses.replace(ctx, history=history)
    out = call(RecallTool(), query="needle", path="a.py", context=0).content
    assert "1 message matching" in out and ">    2| the NEEDLE here" in out and "line one" not in out and "elsewhere" not in out
    everywhere = call(RecallTool(), query="needle").content
    assert everywhere.startswith("recall: 2 messages") and "recall: needle" not in everywhere.split("\n", 1)[1]


def test_the_answer_stays_within_the_inline_budget_and_counts_what_was_left_out(ctx: ToolContext, call: Call) -> None:
    history = FakeHistory([result(i, f"match {i}\n" + "x" * 3_000, path=f"f{i}.py") for i in range(1, 41)])
    call.context = dataclasses.replace(ctx.at(budget=OutputBudget(inline_bytes=2_000)), history=history)
    out = call(RecallTool(), query="match", context=1)
    assert len(out.content.encode()) <= 2_000
    shown = out.content.count("--- message ")
    assert 1 <= shown < 40 and "--- message 40," in out.content
    assert f"{40 - shown} more matching messages left out" in out.content and out.shaped
    one = call(RecallTool(), path="f3.py")
    assert len(one.content.encode()) <= 2_000 and "excerpt cut" in one.content
