"""The resumed-session transcript on a fixed-width console: rendered like live output, bounded, with a compaction line."""

from __future__ import annotations

import json
from io import StringIO

from rich.console import Console

from pseudoclaude.llm import Message, ToolCall
from pseudoclaude.tui.plan_view import APPROVED
from pseudoclaude.tui.transcript_view import render_transcript


def _screen(conversation: list[Message], *, summarized: bool = False, rows: int | None = None) -> str:
    out = StringIO()
    render_transcript(Console(file=out, width=80, height=24), "s1", conversation, summarized=summarized, rows=rows)
    return out.getvalue()


def _turn(number: int) -> list[Message]:
    return [Message.user(f"question {number}"), Message.assistant("\n\n".join(f"line {number}.{row}" for row in range(5)))]


def test_an_answer_is_rendered_not_replayed_as_markdown_source() -> None:
    screen = _screen([Message.user("fix it"), Message.assistant("## Fixed: cart\n\nThe **total**.\n\n```python\nx = 1\n```\n\nDone.")])
    assert "❯ fix it" in screen and "Fixed: cart" in screen and "The total." in screen and "x = 1" in screen and "Done." in screen
    assert "##" not in screen and "**" not in screen and "```" not in screen


def test_only_whole_messages_that_fit_are_drawn_with_the_count_of_the_others() -> None:
    screen = _screen([message for number in range(6) for message in _turn(number)], rows=30)
    assert "… 8 earlier messages" in screen
    assert "question 3" not in screen and "question 4" in screen and "line 5.4" in screen
    assert "line 4.0" in screen  # a message is never cut


def test_a_message_taller_than_the_budget_is_still_drawn_whole() -> None:
    screen = _screen([Message.user("q"), Message.assistant("\n\n".join(f"row {n}" for n in range(40)))], rows=10)
    assert "… 1 earlier message\n" in screen and "row 0" in screen and "row 39" in screen


def test_a_compaction_boundary_is_one_line() -> None:
    screen = _screen(_turn(1), summarized=True)
    assert screen.count("earlier conversation summarized (compacted)") == 1 and "earlier message" not in screen


def test_tool_calls_show_their_results_errors_and_an_approved_plan() -> None:
    calls = (
        ToolCall("c1", "read_file", json.dumps({"path": "src/a.py"})),
        ToolCall("c2", "run_command", json.dumps({"command": "pytest"})),
        ToolCall("c3", "exit_plan_mode", json.dumps({"plan": "## Plan\n1. Do **it**"})),
        ToolCall("c4", "list_dir", json.dumps({"path": "."})),
        ToolCall("c5", "run_command", json.dumps({"command": "make   test"})),
    )
    conversation = [
        Message.user("go"),
        Message.assistant("", tool_calls=calls),
        Message.tool("c1", "x = 1\ny = 2\n… lines 1-2 of 9; 7 more lines; call read_file with offset=3 to continue\n"),
        Message.tool("c2", "Error: no such command", is_error=True),
        Message.tool("c3", "approved"),
        Message.tool("c5", "compiling\nFAILED test_cart\n[exit code 2]"),
    ]
    screen = _screen(conversation)
    assert "● read_file(src/a.py)" in screen and "⎿ Read src/a.py lines 1-2 of 9\n" in screen and "x = 1" not in screen
    assert "⎿ Error: no such command" in screen
    assert APPROVED in screen and "Do it" in screen and "**" not in screen
    assert "⎿ 2 lines" in _screen([Message.assistant("", tool_calls=calls[3:4]), Message.tool("c4", "a.py\nb.py")])
    assert "● list_dir(.)" in screen and "no result (interrupted)" in screen
    assert "⎿ $ make test (exit 2)" in screen and "FAILED test_cart" in screen and "[exit code 2]" not in screen


def test_a_failed_command_carries_the_error_colour() -> None:
    conversation = [Message.user("go"), Message.assistant("", tool_calls=(ToolCall("c1", "run_command", json.dumps({"command": "false"})),))]
    out = StringIO()
    console = Console(file=out, width=80, height=24, force_terminal=True, color_system="standard")
    render_transcript(console, "s1", [*conversation, Message.tool("c1", "(no output)\n[exit code 1]")])
    assert "\x1b[1;31m●" in out.getvalue() and "(exit 1)" in out.getvalue()


def test_an_interrupt_marker_is_drawn_as_the_interrupt_not_as_a_typed_message() -> None:
    conversation = [Message.user("tell a story"), Message.assistant("Once upon"), Message.user("[Request interrupted by user]")]
    screen = _screen([*conversation, Message.user("[Request interrupted: timeout]"), Message.user("shorter")])
    assert "■ Interrupted\n" in screen and "■ Interrupted: timeout" in screen and "❯ shorter" in screen
    assert "Request interrupted" not in screen


def test_reasoning_stays_folded() -> None:
    from pseudoclaude.llm import Thinking

    thought = Thinking(provider="anthropic", kind="thinking", text="SECRET-REASONING steps")
    screen = _screen([Message.user("why"), Message.assistant("Because.", thinking=(thought,))])
    assert "✻ Thought\n" in screen and "Because." in screen and "SECRET-REASONING" not in screen


def test_an_edit_shows_its_change() -> None:
    edit = {"path": "app.py", "old_string": "x = 1\nkeep = 0", "new_string": "x = 2\nkeep = 0"}
    conversation = [Message.assistant("", tool_calls=(ToolCall("c1", "edit_file", json.dumps(edit)),)), Message.tool("c1", "Edited app.py")]
    screen = _screen(conversation)
    assert "● edit_file(app.py)" in screen and "⎿ Edited app.py" in screen
    assert "-x = 1" in screen and "+x = 2" in screen and " keep = 0" in screen and "@@" not in screen
