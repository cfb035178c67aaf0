"""The REPL's daily features in a pseudo-terminal: the /resume picker, the exit hint, /rewind (Esc Esc), /diff, /status, plan approval."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.script import Call, Reply
from tests.tui.terminal import CTRL_D, ESC, Terminal, request_text, start

pytestmark = pytest.mark.slow
PROMPT_HOLDING = r"❯ (?:\x1b\[[0-9;?]*[A-Za-z])*"
"""The input prompt, then (after any colour and cursor sequences) the text it holds."""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "app.py").write_text("x = 1\n")
    return ws


def test_the_resume_picker_searches_and_resumes_in_place_and_exit_prints_the_resume_command(workspace: Path, tmp_path: Path, terminals: list[Terminal]) -> None:
    script = [Reply(text="Noted PELICAN."), Reply(text="Noted OSPREY."), Reply(text="Third answer."), Reply(text="Back with pelicans.")]
    with FakeAnthropicServer(script) as server:
        term = start(terminals, workspace, server, tmp_path / "home")
        for prompt in ("the codeword is PELICAN", "the codeword is OSPREY", "something else"):
            term.expect_prompt()
            term.send_line(prompt)
            term.expect("Noted|Third answer")
            term.expect_prompt()
            term.send_line("/clear")
            term.expect("Started a new conversation")
        term.expect_prompt()
        term.send_line("/resume")
        term.expect("Resume which session")
        term.expect(r"\d+ turn")
        term.send("pelic")
        term.expect("pelic")
        term.send("\r")
        term.expect("Resumed session")
        term.expect_prompt()
        term.send_line("which codeword?")
        term.expect("Back with pelicans")
        term.expect_prompt()
        term.send(CTRL_D)
        hint = term.expect(r"pseudoclaude --resume \d{8}-[0-9A-Za-z-]+")
        assert term.exit_code() == 0
    assert "PELICAN" in request_text(server.requests[-1]) and "OSPREY" not in request_text(server.requests[-1])
    resumed = hint.split("--resume ")[1].strip()
    sessions = list((tmp_path / "home" / "sessions").rglob(f"{resumed}/session.jsonl"))
    assert sessions and "PELICAN" in sessions[0].read_text()


def test_diff_then_esc_esc_rewinds_the_files_and_the_conversation(workspace: Path, tmp_path: Path, terminals: list[Terminal]) -> None:
    script = [
        Reply(text="Reading.", calls=(Call("read_file", json.dumps({"path": "app.py"})),)),
        Reply(text="Editing.", calls=(Call("edit_file", json.dumps({"path": "app.py", "old_string": "x = 1", "new_string": "x = 42"})),)),
        Reply(text="Creating.", calls=(Call("write_file", json.dumps({"path": "notes.md", "content": "hello\n"})),)),
        Reply(text="All done."),
        Reply(text="Fresh start."),
    ]
    with FakeAnthropicServer(script) as server:
        term = start(terminals, workspace, server, tmp_path / "home", "--permission-mode", "accept-edits")
        term.expect_prompt()
        term.send_line("first: warm up")
        term.expect("All done")
        term.expect_prompt()
        term.send_line("/diff")
        term.expect("2 files changed, \\+2 -1")
        term.expect(r"\+x = 42")
        term.expect_prompt()
        term.send(ESC + ESC)
        term.expect("Rewind to before which message")
        term.send("\r")
        term.expect(r"Files a restore puts back: app\.py \+1/-1, notes\.md \+1/-0")
        term.expect("not undone")
        term.expect('What to restore, rewinding to before "first: warm up"')
        term.send("\r")
        term.expect("Rewound the conversation and files")
        term.expect("back in the input")
        term.expect(PROMPT_HOLDING + "first: warm up")
        term.expect_prompt()
        assert (workspace / "app.py").read_text() == "x = 1\n" and not (workspace / "notes.md").exists()
        term.send(" again\r")
        term.expect("Fresh start")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    last = request_text(server.requests[-1])
    assert "first: warm up again" in last and last.count("first: warm up") == 1


def test_status_shows_each_setting_and_where_it_came_from(workspace: Path, tmp_path: Path, terminals: list[Terminal]) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"effort": "high"}))
    with FakeAnthropicServer([]) as server:
        term = start(terminals, workspace, server, home, "--permission-mode", "plan")
        term.expect_prompt()
        term.send_line("/status")
        term.expect("no project setting needs your consent")
        term.expect_prompt()
        plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", term.raw)
        assert re.search(r"model +claude-sonnet-4-5 +environment PSEUDOCLAUDE_MODEL", plain)
        assert re.search(r"API key +set +environment ANTHROPIC_API_KEY", plain) and "k-test" not in plain
        assert re.search(r"permission mode +plan +command line", plain)
        assert re.search(r"effort +high +user settings", plain), plain[plain.find("Setting") :]
        term.send(CTRL_D)
        assert term.exit_code() == 0


def test_a_plan_is_shown_for_approval_and_a_switches_to_accept_edits(workspace: Path, tmp_path: Path, terminals: list[Terminal]) -> None:
    plan = "## Plan\\n1. Change **x** to 2\\n2. Run the tests"
    script = [
        Reply(text="My plan.", calls=(Call("exit_plan_mode", json.dumps({"plan": plan.replace("\\\\n", "\\n")})),)),
        Reply(text="Reading.", calls=(Call("read_file", json.dumps({"path": "app.py"})),)),
        Reply(text="Editing.", calls=(Call("edit_file", json.dumps({"path": "app.py", "old_string": "x = 1", "new_string": "x = 2"})),)),
        Reply(text="Implemented."),
    ]
    with FakeAnthropicServer(script) as server:
        term = start(terminals, workspace, server, tmp_path / "home", "--permission-mode", "plan")
        term.expect_prompt()
        term.send_line("plan the change")
        term.expect("Approve this plan")
        term.expect(r"\[a\] yes, and accept edits")
        assert "Change" in term.raw and "Run the tests" in term.raw
        term.send("a")
        term.expect("Implemented")
        status = term.expect_prompt()
        assert re.search("accept-edits", status + term.raw[-400:])
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert (workspace / "app.py").read_text() == "x = 2\n"
