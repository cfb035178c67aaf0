"""The approval question's first line names the call once, then the diff, then the keys."""

from __future__ import annotations

import asyncio
import io

from rich.console import Console

from pseudoclaude.tools.permissions import ApprovalAnswer, ApprovalRequest, Rule
from pseudoclaude.tui.approval import TerminalApprover, question_lines
from pseudoclaude.tui.keys import TurnKeys


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


SANDBOX_REQUEST = ApprovalRequest(
    "run_command",
    {"command": "npm install -g x"},
    "npm install -g x",
    Rule("run_command", "npm install:*"),
    kind="sandbox",
    reason="read-only file system: /usr/lib",
)


def test_a_sandbox_block_asks_to_run_outside_with_the_reason_and_three_answers() -> None:
    assert shown(SANDBOX_REQUEST) == [
        "? Run outside the sandbox: npm install -g x",
        "  blocked by the sandbox: read-only file system: /usr/lib",
        "  [y] yes, once   [a] always for npm install:* (this session)   [n] no, and say why   [esc] stop",
    ]


def test_the_keys_answer_the_sandbox_question_through_the_terminal_approver() -> None:
    async def answer(*presses: str) -> tuple[ApprovalAnswer, list[str]]:
        approver, keys = TerminalApprover(), TurnKeys(queue=lambda _: None, queued=lambda: [], on_interrupt=lambda: None)
        approver.keys = keys
        pending = asyncio.ensure_future(approver.ask(SANDBOX_REQUEST))
        await asyncio.sleep(0)
        footer = [str(getattr(line, "plain", line)) for line in keys.footer()]
        for key in presses:
            keys.handle(key)
        return await pending, footer

    once, footer = asyncio.run(answer("y"))
    assert once == ApprovalAnswer("once") and footer[0] == "? Run outside the sandbox: npm install -g x"
    assert asyncio.run(answer("a"))[0] == ApprovalAnswer("always")
    assert asyncio.run(answer("n", "n", "o", "c-m"))[0] == ApprovalAnswer("deny", "no")


def test_always_says_in_words_what_it_allows_then_names_the_rule() -> None:
    request = ApprovalRequest(
        "run_command",
        {},
        "run_command python3 -m pytest -q tests/a.py",
        Rule("run_command", "python3 -m pytest:*"),
        rule_words="`python3 -m pytest` commands in this folder",
    )
    *_, keys = shown_wide(request)
    assert "[a] yes, and don't ask again for `python3 -m pytest` commands in this folder (saving the rule run_command(python3 -m pytest:*))" in keys


def test_always_without_words_still_names_the_rule_it_saves() -> None:
    *_, keys = shown_wide(ApprovalRequest("write_file", {}, "write_file NOTES.md", Rule("write_file", "/NOTES.md")))
    assert "[a] always (saving the rule write_file(/NOTES.md))" in keys


def shown_wide(request: ApprovalRequest) -> list[str]:
    out = io.StringIO()
    console = Console(file=out, width=400, color_system=None)
    for line in question_lines(request, typing_reason=False, reason=""):
        console.print(line)
    return out.getvalue().splitlines()


PYTEST_REQUEST = ApprovalRequest(
    "run_command",
    {},
    "run_command python3 -m pytest -q tests/a.py",
    Rule("run_command", "python3 -m pytest:*"),
    rule_words="`python3 -m pytest` commands in this folder",
)


def press(request: ApprovalRequest, *keys_pressed: str) -> tuple[ApprovalAnswer, list[str]]:
    """Ask ``request`` through the terminal approver, press ``keys_pressed``; the answer and the footer before the last key."""

    async def run() -> tuple[ApprovalAnswer, list[str]]:
        approver, keys = TerminalApprover(), TurnKeys(queue=lambda _: None, queued=lambda: [], on_interrupt=lambda: None)
        approver.keys = keys
        pending = asyncio.ensure_future(approver.ask(request))
        await asyncio.sleep(0)
        footer: list[str] = []
        for key in keys_pressed:
            footer = [str(getattr(line, "plain", line)) for line in keys.footer()]
            keys.handle(key)
        return await asyncio.wait_for(pending, 2), footer  # an unanswered question fails the test instead of hanging it

    return asyncio.run(run())


def test_e_edits_the_suggested_rule_before_always_saves_it() -> None:
    answer, footer = press(PYTEST_REQUEST, "e", *["c-h"] * 2, *" tests/", "c-m")
    assert footer[-1] == "  Don't ask again for run_command(…) (Enter saves the rule) › python3 -m pytest tests/▌"
    assert answer == ApprovalAnswer("always", rule=Rule("run_command", "python3 -m pytest tests/"))


def test_an_emptied_edit_keeps_the_suggestion() -> None:
    answer, _ = press(PYTEST_REQUEST, "e", *["c-h"] * 30, "c-m")
    assert answer == ApprovalAnswer("always")


def test_only_a_call_with_a_suggested_rule_offers_the_edit() -> None:
    assert "[e] edit the rule" in shown_wide(PYTEST_REQUEST)[-1]
    nothing = ApprovalRequest("edit_file", {}, "edit_file .git/config  [protected]", None, reason="protected")
    assert "[e]" not in shown_wide(nothing)[-1]
    assert "[e]" not in shown_wide(SANDBOX_REQUEST)[-1]
    assert press(nothing, "e", "y")[0] == ApprovalAnswer("once")
    assert press(SANDBOX_REQUEST, "e", "y")[0] == ApprovalAnswer("once")


def shown_at(request: ApprovalRequest, width: int) -> list[str]:
    out = io.StringIO()
    console = Console(file=out, width=width, color_system=None)
    for line in question_lines(request, typing_reason=False, reason=""):
        console.print(line)
    return [row.rstrip() for row in out.getvalue().splitlines()]


def test_at_sixty_columns_no_choice_is_split_between_two_lines_and_always_still_says_its_rule() -> None:
    for request in (PYTEST_REQUEST, SANDBOX_REQUEST, ApprovalRequest("write_file", {}, "write_file NOTES.md", Rule("write_file", "/NOTES.md"))):
        rows = shown_at(request, 60)
        for choice in ("[y] yes, once", "[a] always", "[n] no, and say why", "[esc] stop"):
            assert any(choice in row for row in rows), rows
        assert all(len(row) <= 60 for row in rows)
        assert not any(row.rstrip().endswith(("[y]", "[a]", "[n]", "[esc]", "yes,", "no,")) for row in rows), rows
    said = " ".join(" ".join(shown_at(PYTEST_REQUEST, 60)).split())
    assert "don't ask again for `python3 -m pytest` commands in this folder (saving the rule run_command(python3 -m pytest:*))" in said
