"""A resumed session redrawn as it looked (rendered Markdown, the first prompt, "N earlier messages"), and an approved plan
kept in the scrollback: in a real pseudo-terminal."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.script import Call, Reply
from tests.tui.terminal import CTRL_D, Terminal, start

pytestmark = pytest.mark.slow

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]|\x1b\][^\x07]*\x07")

ANSWER = "## Fixed: the cart total\n\nThe **discount** is now applied once.\n\n```python\ntotal = price * (1 - discount)\n```\n\nRun the tests again."


def _plain(text: str) -> str:
    return _ANSI.sub("", text)


def _resume(terminals: list[Terminal], workspace: Path, server: FakeAnthropicServer, home: Path) -> tuple[Terminal, str]:
    """``--continue`` in a new process; the screen from the recap's first line to the prompt, without escapes."""
    again = start(terminals, workspace, server, home, "--continue")
    again.expect("Resumed session")
    again.expect_prompt()
    recap = _plain(again.raw)
    return again, recap[recap.find("Resumed session") :]


def _leave(term: Terminal) -> None:
    term.send(CTRL_D)
    assert term.exit_code() == 0


def test_a_resumed_session_shows_the_answer_rendered_and_the_first_prompt(tmp_path: Path, terminals: list[Terminal]) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with FakeAnthropicServer([Reply(text=ANSWER)]) as server:
        term = start(terminals, workspace, server, tmp_path / "home")
        term.expect_prompt()
        term.send_line("FIRST-PROMPT fix the cart")
        term.expect("Run the tests again")
        term.expect_prompt()
        _leave(term)
        again, recap = _resume(terminals, workspace, server, tmp_path / "home")
        assert "FIRST-PROMPT fix the cart" in recap
        assert "Fixed: the cart total" in recap and "discount" in recap and "total = price * (1 - discount)" in recap
        assert "Run the tests again" in recap  # the answer is not cut inside (or after) its code block
        assert "##" not in recap and "**" not in recap and "```" not in recap, recap
        assert "earlier message" not in recap
        _leave(again)


def test_a_long_resumed_session_shows_its_last_screens_and_counts_the_earlier_messages(tmp_path: Path, terminals: list[Terminal]) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    answers = [Reply(text="\n\n".join(f"Answer {turn} paragraph {row}." for row in range(30))) for turn in range(3)]
    with FakeAnthropicServer(answers) as server:
        term = start(terminals, workspace, server, tmp_path / "home")
        term.expect_prompt()
        for turn in range(3):
            term.send_line(f"QUESTION-{turn}")
            term.expect(f"Answer {turn} paragraph 29")
            term.expect_prompt()
        _leave(term)
        again, recap = _resume(terminals, workspace, server, tmp_path / "home")
        found = re.search(r"… (\d+) earlier messages?", recap)
        assert found is not None, recap
        assert "QUESTION-0" not in recap and "QUESTION-2" in recap
        assert "Answer 2 paragraph 0." in recap and "Answer 2 paragraph 29." in recap  # the last answer whole
        shown = len(re.findall(r"QUESTION-\d", recap)) + len({m for m in re.findall(r"Answer (\d) paragraph", recap)})
        assert int(found.group(1)) + shown == 6
        _leave(again)


def test_an_approved_plan_stays_in_the_scrollback_and_in_the_resumed_session(tmp_path: Path, terminals: list[Terminal]) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "app.py").write_text("x = 1\n")
    plan = "## Plan\n1. Change **x** to 2 in app.py\n2. Run the tests\n3. Report PLAN-END"
    script = [
        Reply(text="My plan.", calls=(Call("exit_plan_mode", json.dumps({"plan": plan})),)),
        Reply(text="Implemented."),
    ]
    with FakeAnthropicServer(script) as server:
        term = start(terminals, workspace, server, tmp_path / "home", "--permission-mode", "plan")
        term.expect_prompt()
        term.send_line("plan the change")
        term.expect(r"\[a\] yes, and accept edits")
        approved_at = len(term.raw)
        term.send("a")
        term.expect("Implemented")
        term.expect_prompt()
        after = _plain(term.raw[approved_at:])
        assert "Plan approved — leaving plan mode" in after, after
        kept = after[after.rfind("╭─ Plan", 0, after.find("Plan approved")) : after.find("Plan approved")]
        assert "Change x to 2 in app.py" in kept and "Report PLAN-END" in kept and "**" not in kept, kept
        _leave(term)
        again, recap = _resume(terminals, workspace, server, tmp_path / "home")
        assert "Plan approved — leaving plan mode" in recap and "Report PLAN-END" in recap and "**" not in recap
        _leave(again)


def test_resume_in_the_repl_draws_the_conversation_rendered(tmp_path: Path, terminals: list[Terminal]) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with FakeAnthropicServer([Reply(text=ANSWER)]) as server:
        term = start(terminals, workspace, server, tmp_path / "home")
        term.expect_prompt()
        term.send_line("FIRST-PROMPT fix the cart")
        term.expect("Run the tests again")
        term.expect_prompt()
        term.send_line("/clear")
        term.expect("Started a new conversation")
        term.expect_prompt()
        term.send_line("/resume")
        term.expect("Resume which session")
        term.expect(r"\d+ turn")
        resumed_at = len(term.raw)
        term.send("\r")
        term.expect("Resumed session")
        term.expect_prompt()
        recap = _plain(term.raw[resumed_at:])
        recap = recap[recap.find("Resumed session") :]
        assert "FIRST-PROMPT fix the cart" in recap and "Fixed: the cart total" in recap and "Run the tests again" in recap
        assert "##" not in recap and "**" not in recap and "```" not in recap, recap
        _leave(term)


def test_a_resumed_tool_block_reads_as_it_did_live(tmp_path: Path, terminals: list[Terminal]) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "cart.py").write_text("total = 1\n")
    calls = [
        Call("read_file", json.dumps({"path": "cart.py"})),
        Call("edit_file", json.dumps({"path": "cart.py", "old_string": "total = 1", "new_string": "total = 2"})),
        Call("run_command", json.dumps({"command": "echo boom; exit 3"})),
    ]
    script = [Reply(calls=[calls[0]]), Reply(calls=[calls[1]]), Reply(calls=[calls[2]]), Reply(text="Done.")]
    with FakeAnthropicServer(script) as server:
        term = start(terminals, workspace, server, tmp_path / "home", "--dangerously-skip-permissions")
        term.expect_prompt()
        term.send_line("edit the cart")
        term.expect("Done.")
        term.expect_prompt()
        live = _plain(term.raw)
        _leave(term)
        again, recap = _resume(terminals, workspace, server, tmp_path / "home")
        for line in ("Edited cart.py (+1 -1)", "(exit 3, 5 bytes)"):
            assert line in live and line in recap, (line, recap)
        _leave(again)
