"""Rendering events: tool blocks, diffs, command tails, notices."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest

from rich.console import Console

from pseudoclaude.agent import events as ev
from pseudoclaude.tui.render import TurnView, compact_number, labelled, progress_line
from pseudoclaude.agent import AgentStatus
from pseudoclaude.tui.status import format_status, status_fragments
from pseudoclaude.tools import ToolContext
from pseudoclaude.tools.run_command import RunCommandTool
from pseudoclaude.tui.toolview import key_argument, output_tail, tool_block


def console(width: int = 80) -> Console:
    return Console(file=io.StringIO(), width=width, color_system=None)


def text_of(c: Console) -> str:
    return "\n".join(line.rstrip() for line in c.file.getvalue().splitlines())  # type: ignore[attr-defined]


def test_a_turn_prints_the_answer_and_a_compact_tool_block() -> None:
    c = console()
    view = TurnView(c)
    for event in (
        ev.TextDelta("Let me **read** "),
        ev.TextDelta("it."),
        ev.AssistantMessage("Let me read it."),
        ev.ToolCallStarted("c1", "read_file", {"path": "notes.txt"}),
        ev.ToolCallFinished("c1", "read_file", False, "Read notes.txt lines 1-3 of 3"),
        ev.Stop("end_turn", "", 1),
    ):
        view.handle(event)
    view.finish()
    assert text_of(c).splitlines() == ["Let me read it.", "● read_file(notes.txt)", "  ⎿ Read notes.txt lines 1-3 of 3"]


def test_an_edit_shows_its_diff_without_headers_and_cut_to_a_few_lines() -> None:
    c = console()
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n" + "".join(f"-old {i}\n+new {i}\n" for i in range(10))
    c.print(tool_block("edit_file", {"path": "x.py"}, is_error=False, summary="Edited x.py (+10 -10)", display={"diff": diff}))
    lines = text_of(c).splitlines()
    assert lines[:4] == ["● edit_file(x.py)", "  ⎿ Edited x.py (+10 -10)", "    @@ -1,2 +1,2 @@", "    -old 0"]
    assert lines[-1] == "    … +9 lines" and not any("+++" in line for line in lines)


def test_a_command_shows_the_tail_of_its_output() -> None:
    content = "".join(f"out {i}\n" for i in range(20)) + "[exit code 0]"
    assert [t.plain for t in output_tail(content, limit=3)] == ["… 17 of 20 lines hidden", "out 17", "out 18", "out 19"]
    assert output_tail("(no output)\n[exit code 0]") == []


def test_an_interrupt_closes_running_tools_in_the_transcript() -> None:
    c = console()
    view = TurnView(c)
    view.handle(ev.ToolCallStarted("c1", "run_command", {"command": "sleep 30"}))
    view.finish(interrupted=True)
    assert "● run_command(sleep 30)\n  ⎿ interrupted\n■ Interrupted." in text_of(c)


def test_progress_and_errors_are_one_line_each() -> None:
    c = console()
    view = TurnView(c)
    view.handle(ev.Progress("compact", "context compacted: 9000 -> 2000"))
    view.handle(ev.ErrorEvent("RateLimited", "slow down"))
    assert text_of(c).splitlines() == ["⟳ context compacted: 9000 -> 2000", "✗ RateLimited: slow down"]


def test_the_working_line_counts_a_tool_call_s_arguments_as_they_stream_and_prints_nothing_for_them() -> None:
    """A long write_file streams for a while: the ↓ count moves instead of looking stuck."""
    c = console()
    view = TurnView(c, clock=lambda: 0.0)
    view.handle(ev.ToolInputStart("c1", "write_file", 0))
    view.handle(ev.ToolInputDelta("c1", 0, '{"path": "a.py", "content": "' + "x" * 370 + '"}'))
    assert view.working_line().plain == "Working… 0s · ↑ 0 ↓ 100 · esc to interrupt"
    view.flush()
    assert text_of(c) == ""


def test_the_working_line_counts_time_and_tokens() -> None:
    now = [100.0]
    view = TurnView(console(), clock=lambda: now[0])
    view.handle(ev.UsageReport(1200, 30, 800, 0))
    now[0] = 104.2
    assert view.working_line().plain == "Working… 4s · ↑ 2.0k ↓ 30 · esc to interrupt"


def test_status_line_shows_meter_tokens_cost_and_session_and_gives_way_session_first() -> None:
    info = AgentStatus("claude-sonnet-4-5", 50_000, 200_000, 167_000, 12_345, 678, 0.0421, "plan", "20260101-000000-abcdef")
    assert format_status(info) == ("claude-sonnet-4-5 · ctx 25% (compacts at 84%) · ↑ 12.3k ↓ 678 · $0.042 · 20260101-000000-abcdef")
    assert format_status(info, 80) == "claude-sonnet-4-5 · ctx 25% (compacts at 84%) · ↑ 12.3k ↓ 678 · $0.042"
    assert format_status(info, 59) == "claude-sonnet-4-5 · ctx 25% (compacts at 84%) · $0.042"
    assert format_status(info, 30).endswith("…") and len(format_status(info, 30)) == 30
    assert compact_number(2_500_000) == "2.5M"


@pytest.mark.parametrize("width", [40, 60, 120])
def test_the_mode_has_its_own_coloured_line_at_every_width(width: int) -> None:
    styles = set()
    for mode in ("default", "accept-edits", "plan", "bypass"):
        info = AgentStatus("claude-sonnet-4-5", 0, 200_000, 167_000, mode=mode, session_id="20260101-000000-abcdef")
        (style, line), newline, (_, info_line) = status_fragments(info, width)
        assert f"⏵⏵ {mode} mode" in line and len(line) <= width and newline[1] == "\n"
        assert "ctx 0%" in info_line and mode not in info_line
        styles.add(style)
    assert len(styles) == 4


def test_the_key_argument_is_the_path_command_or_pattern() -> None:
    assert key_argument("run_command", {"command": "git   status", "timeout": 5}) == "git status"
    assert key_argument("grep", {"pattern": "TODO", "path": "src"}) == "TODO"
    assert key_argument("todo_write", {"items": []}) == ""


def test_a_finished_command_block_shows_the_tail_the_tool_reports() -> None:
    c = console()
    display = {"exit_code": 0, "tail": "\n".join(f"line {i}" for i in range(88, 100)), "output_lines": 100}
    c.print(tool_block("run_command", {"command": "seq 100"}, is_error=False, summary="$ seq 100 (exit 0, 292 bytes)", display=display))
    lines = text_of(c).splitlines()
    assert lines[:3] == ["● run_command(seq 100)", "  ⎿ $ seq 100 (exit 0, 292 bytes)", "    … 94 of 100 lines hidden"]
    assert lines[-1] == "    line 99"


def test_a_long_command_block_says_how_many_of_how_many_lines_are_hidden_and_where_they_are(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    context = ToolContext(workspace=tmp_path / "ws", spill_dir=tmp_path / "spill")
    out = asyncio.run(RunCommandTool().run({"command": "seq 1 20000"}, context))
    c = console(width=400)
    c.print(tool_block("run_command", {"command": "seq 1 20000"}, is_error=False, summary=out.summary, display=out.display))
    lines = text_of(c).splitlines()
    assert lines[2] == f"    … 19,994 of 20,000 lines hidden (full output: {out.full_output})"
    assert lines[-1] == "    20000"


def test_the_spinner_says_compacting_while_an_automatic_summary_runs() -> None:
    c = console()
    view = TurnView(c, clock=lambda: 0.0)
    assert view.working_line().plain.startswith("Working…")
    view.handle(ev.Progress("compacting", "compacting the conversation (120000 tokens)...", {"before_tokens": 120000}))
    assert view.working_line().plain.startswith("Compacting…")
    assert "⟳ compacting the conversation (120000 tokens)..." in text_of(c)
    view.handle(ev.Progress("compact", "context compacted: 120000 -> 9000"))
    assert view.working_line().plain.startswith("Working…")


def test_retry_and_error_lines_do_not_repeat_their_label() -> None:
    retry = ev.Progress("retry", "Overloaded: Overloaded; retrying in 1.0s (attempt 2 of 5)", {})
    assert progress_line(retry).plain == "↻ Overloaded; retrying in 1.0s (attempt 2 of 5)"
    other = ev.Progress("retry", "RateLimited: slow down; retrying in 2.0s (attempt 2 of 5)", {})
    assert progress_line(other).plain == "↻ RateLimited: slow down; retrying in 2.0s (attempt 2 of 5)"
    assert labelled("Overloaded", "Overloaded") == "Overloaded"
    assert labelled("BadRequest", "model: foo-bar-9") == "BadRequest: model: foo-bar-9"


SHOT = ev.ImageShown("shot.png", "image/png", 1280, 720, 84 * 1024, "ab" * 32)


def test_an_image_a_tool_showed_the_model_is_one_line_never_its_bytes() -> None:
    c = console()
    view = TurnView(c)
    view.handle(ev.ToolCallStarted("c1", "read_file", {"path": "shot.png"}))
    view.handle(ev.ToolCallFinished("c1", "read_file", False, "Read image shot.png (1280x720)", {}, "Image shot.png (1280x720 PNG, 84 KB)\n", images=(SHOT,)))
    assert text_of(c).splitlines() == ["● read_file(shot.png)", "  ⎿ Read image shot.png (1280x720)", "    ▣ shot.png 1280x720 PNG 84 KB"]


def test_an_image_name_cannot_reach_the_terminal_raw() -> None:
    c = console()
    view = TurnView(c)
    sneaky = ev.ImageShown("a\x1b]0;pwned\x07.png", "image/jpeg", 10, 10, 3 * 1024 * 1024)
    view.handle(ev.ToolCallFinished("c1", "mcp__web__shot", False, "web/shot", images=(sneaky,)))
    shown = text_of(c)
    assert "\x1b" not in shown and "▣ a^[]0;pwned^G.png 10x10 JPEG 3.0 MB" in shown
