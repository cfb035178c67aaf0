"""The approval question's first line names the call once, then the diff, then the keys."""

from __future__ import annotations

import io

from rich.console import Console

from pseudoclaude.tools.permissions import ApprovalRequest
from pseudoclaude.tui.approval import question_lines


def shown(request: ApprovalRequest) -> list[str]:
    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None)
    for line in question_lines(request, typing_reason=False, reason=""):
        console.print(line)
    return out.getvalue().splitlines()


def test_the_tool_is_named_once_when_the_summary_starts_with_it() -> None:
    first, *_ = shown(ApprovalRequest("edit_file", {}, "edit_file cart.py", None, diff="@@ -1 +1 @@\n-a\n+b\n"))
    assert first == "? Allow edit_file cart.py"


def test_a_summary_that_does_not_name_the_tool_keeps_the_tool_in_front() -> None:
    first, *rest = shown(ApprovalRequest("mcp__db__query", {}, "SELECT 1", None))
    assert first == "? Allow mcp__db__query: SELECT 1"
    assert rest[-1].strip().startswith("[y] yes, once")
