"""The REPL's rendering and input defects of issue 16, in a pseudo-terminal against the fake servers."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.script import Call, Reply
from tests.tui.terminal import CTRL_D, ESC, SlowAnthropicServer, Terminal, env_for, request_text, start

pytestmark = pytest.mark.slow

STRAY_TASK_SIGNS = ("Unhandled exception", "Task was destroyed", "Press ENTER", "Exception None")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


def test_escape_at_an_approval_leaves_no_stray_task_and_the_next_command_runs(workspace: Path, tmp_path: Path, terminals: list[Terminal]) -> None:
    """Esc at an approval, straight away or after a key was typed into it (``n``, ``x``): each in its own turn of one
    session, which runs under a garbage collection every 20 ms so that a task left behind would be reported."""
    ask = Reply(text="I will clean up.", calls=(Call("run_command", json.dumps({"command": "rm -f build.log"})),))
    script = [ask, ask, ask, Reply(text="Fresh answer after the interrupts.")]
    with SlowAnthropicServer(script, delay=0.05) as server:
        term = start(terminals, workspace, server, tmp_path / "home", "--permission-mode", "default", "--sandbox", "off", collect_garbage=True)
        term.expect_prompt()
        for attempt, before in enumerate(("", "n", "x")):
            term.send_line(f"Clean up, take {attempt}")
            term.expect(r"Allow run_command")
            time.sleep(0.2)
            term.send(before)
            time.sleep(0.1)
            term.send(ESC)
            term.expect("Interrupted")
            term.expect_prompt()
            time.sleep(0.5)
        term.send_line("Go on")
        term.expect("Fresh answer after the interrupts")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert not [sign for sign in STRAY_TASK_SIGNS if sign in term.raw], term.raw[-3000:]
    assert "Go on" in request_text(server.requests[-1])


def test_at_60_columns_the_mode_keeps_its_coloured_line_and_changes_colour_on_shift_tab(workspace: Path, tmp_path: Path, terminals: list[Terminal]) -> None:
    with FakeAnthropicServer([]) as server:
        env = {**env_for(server.url, tmp_path / "home"), "COLUMNS": "60"}
        term = Terminal([], workspace, env, dimensions=(30, 60))
        terminals.append(term)
        term.expect(r"\x1b\[0;34;1m ⏵⏵ default mode \(shift\+tab to cycle\)")
        term.expect_prompt()
        term.send("\x1b[Z")
        term.expect(r"\x1b\[0;35;1m ⏵⏵ accept-edits mode")
        term.send("\x1b[Z")
        term.expect(r"\x1b\[0;36;1m ⏵⏵ plan mode")
        term.send(CTRL_D)
        assert term.exit_code() == 0


def test_text_typed_during_a_turn_without_enter_is_the_next_prompts_draft(workspace: Path, tmp_path: Path, terminals: list[Terminal]) -> None:
    script = [Reply(text="A slowly streamed first answer. " * 3, text_chunks=40), Reply(text="Answer to the draft.")]
    with SlowAnthropicServer(script, delay=0.03) as server:
        term = start(terminals, workspace, server, tmp_path / "home")
        term.expect_prompt()
        term.send_line("First question")
        term.expect("Working")
        term.send("half typed")
        term.expect("› half typed")
        term.expect_prompt()
        term.send_line(" and finished")
        term.expect("Answer to the draft")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert len(server.requests) == 2
    assert "half typed and finished" in request_text(server.requests[1])


def test_a_message_the_agent_takes_mid_turn_is_shown_as_a_prompt_line_and_ctrl_d_says_how_to_resume(
    workspace: Path, tmp_path: Path, terminals: list[Terminal]
) -> None:
    slow = Call("run_command", json.dumps({"command": "sleep 1"}))
    script = [Reply(text="Running it.", calls=(slow,)), Reply(text="Answer to the follow-up.")]
    with FakeAnthropicServer(script) as server:
        term = start(terminals, workspace, server, tmp_path / "home", "--permission-mode", "bypass")
        term.expect_prompt()
        term.send_line("First question")
        term.expect("Running it")
        term.send_line("and a follow-up")
        term.expect(r"❯ (\x1b\[0m)?and a follow-up")
        term.expect("Answer to the follow-up")
        term.expect_prompt()
        term.send(CTRL_D)
        term.expect(r"pseudoclaude --resume \d{8}-\d{6}-\w+")
        assert term.exit_code() == 0
    assert "and a follow-up" in request_text(server.requests[1])


def test_while_a_reply_streams_the_working_line_shows_the_requests_prompt_tokens(workspace: Path, tmp_path: Path, terminals: list[Terminal]) -> None:
    (workspace / "notes.md").write_text("context for the model " * 400)
    script = [Reply(text="A slowly streamed answer. " * 4 + "THE END.", text_chunks=30)]
    with SlowAnthropicServer(script, delay=0.06) as server:
        term = start(terminals, workspace, server, tmp_path / "home")
        term.expect_prompt()
        term.send_line("Summarize @notes.md")
        shown = term.expect(r"↑ [0-9.]+k? ")
        assert "THE END" not in term.raw, "the count must show while the reply streams, not only after it"
        assert shown != "↑ 0 "
        term.expect("THE END")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
