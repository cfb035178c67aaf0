"""The real REPL in a pseudo-terminal against the wire-level fake servers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

import pytest

from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.script import Call, Reply, Step, is_summary_request
from tests.tui.terminal import (
    CTRL_C,
    CTRL_D,
    ESC,
    SlowAnthropicServer,
    Terminal,
    context_percent,
    request_text,
    start,
)

pytestmark = pytest.mark.slow


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    return ws


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_a_prompt_streams_the_answer_and_a_tool_block_then_ctrl_d_exits_0(kind: str, workspace: Path, tmp_path: Path, terminals: list[Terminal]) -> None:
    script = [
        Reply(text="Let me read the notes.", calls=(Call("read_file", json.dumps({"path": "notes.txt"})),)),
        Reply(text="The notes have **three** lines.", text_chunks=6),
    ]
    server_type = FakeAnthropicServer if kind == "anthropic" else FakeOpenAIServer
    with server_type(script) as server:
        term = start(terminals, workspace, server, tmp_path / "home", kind=kind)
        term.expect_prompt()
        term.send_line("How many lines do my notes have?")
        term.expect(r"read_file.*\(notes\.txt\)")
        term.expect(r"Read notes\.txt lines 1-3 of 3")
        term.expect(r"The notes have .*three.* lines\.")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert server.rejections == []
    assert len(server.requests) == 2
    assert "gamma" in request_text(server.requests[1])


def test_ctrl_c_twice_on_an_empty_prompt_exits_0(workspace: Path, tmp_path: Path, terminals: list[Terminal]) -> None:
    with FakeAnthropicServer([]) as server:
        term = start(terminals, workspace, server, tmp_path / "home")
        term.expect_prompt()
        term.send(CTRL_C)
        term.expect("Press Ctrl-C again")
        term.send(CTRL_C)
        assert term.exit_code() == 0
    assert server.requests == []


class SummaryResponder:
    """Answers summary requests (tools forbidden) with a summary; main requests from ``steps``."""

    def __init__(self, steps: list[Step]) -> None:
        self.steps = steps
        self.main_calls = 0
        self.summary_requests: list[Mapping[str, Any]] = []

    def __call__(self, body: Mapping[str, Any]) -> Step:
        if is_summary_request(body):
            self.summary_requests.append(body)
            return Reply(text="<summary>1. Primary request: read the big file.\n9. Next step: none.</summary>")
        step = self.steps[self.main_calls] if self.main_calls < len(self.steps) else Reply(text="ok")
        self.main_calls += 1
        return step


def test_compact_sends_a_summary_request_without_tools_and_the_context_meter_drops(workspace: Path, tmp_path: Path, terminals: list[Terminal]) -> None:
    names = ["a.txt", "b.txt", "c.txt", "d.txt"]
    for name in names:
        (workspace / name).write_text("".join(f"{name} line {i:04d}: some text to fill the context\n" for i in range(100)))
    responder = SummaryResponder(
        [
            *(Reply(text=f"Reading {name}.", calls=(Call("read_file", json.dumps({"path": name})),)) for name in names),
            Reply(text="Read all files."),
            Reply(text="Second answer."),
            Reply(text="Third answer."),
        ]
    )
    with FakeAnthropicServer(responder) as server:
        term = start(terminals, workspace, server, tmp_path / "home", "--context-window", "20000")
        term.expect_prompt()
        term.send_line("Read the four files")
        term.expect("Read all files")
        term.expect_prompt()
        for prompt, answer in (("And then?", "Second answer"), ("Anything else?", "Third answer")):
            term.send_line(prompt)
            term.expect(answer)
            status = term.expect_prompt()
        before = context_percent(status)
        term.send_line("/compact keep the file names")
        term.expect(r"Context: [\d,]+ → [\d,]+ tokens")
        after = context_percent(term.expect_prompt())
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert len(responder.summary_requests) == 1
    assert "tool_choice" not in responder.summary_requests[0] and responder.summary_requests[0]["tools"]
    assert "keep the file names" in json.dumps(responder.summary_requests[0])
    assert before > after > 0
    assert server.rejections == []


def test_escape_while_a_tool_call_streams_then_a_new_prompt_passes_validation(workspace: Path, tmp_path: Path, terminals: list[Terminal]) -> None:
    slow_call = Call("write_file", json.dumps({"path": "out.txt", "content": "x" * 400}), chunks=60)
    script = [Reply(text="Writing the file now.", calls=(slow_call,), text_chunks=1), Reply(text="Fresh answer after the interrupt.")]
    with SlowAnthropicServer(script, delay=0.1) as server:
        term = start(terminals, workspace, server, tmp_path / "home", "--permission-mode", "bypass")
        term.expect_prompt()
        term.send_line("Write out.txt")
        term.expect("Writing the file now")
        term.send(ESC)
        term.expect("Interrupted")
        term.expect_prompt()
        term.send_line("Never mind, just say hi.")
        term.expect("Fresh answer after the interrupt")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert server.rejections == []
    assert len(server.requests) == 2
    assert "Never mind" in request_text(server.requests[1])
    assert not (workspace / "out.txt").exists()


def test_escape_while_a_command_runs_kills_it_and_closes_the_call(workspace: Path, tmp_path: Path, terminals: list[Terminal]) -> None:
    command = "sleep 2 && touch late.txt"
    script = [Reply(text="Running it.", calls=(Call("run_command", json.dumps({"command": command})),)), Reply(text="Understood.")]
    with FakeAnthropicServer(script) as server:
        term = start(terminals, workspace, server, tmp_path / "home", "--permission-mode", "bypass")
        term.expect_prompt()
        term.send_line("Run the slow thing")
        term.expect(r"run_command.*sleep 2")
        term.send(ESC)
        term.expect("Interrupted")
        term.expect_prompt()
        term.send_line("What happened?")
        term.expect("Understood")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert server.rejections == []
    assert "interrupted" in request_text(server.requests[1])
    import time

    time.sleep(2.2)
    assert not (workspace / "late.txt").exists()


def test_resume_picks_an_earlier_session_and_the_next_request_carries_its_history(workspace: Path, tmp_path: Path, terminals: list[Terminal]) -> None:
    script = [Reply(text="Noted: the codeword is PELICAN."), Reply(text="Second session answer."), Reply(text="Back in the first one.")]
    with FakeAnthropicServer(script) as server:
        term = start(terminals, workspace, server, tmp_path / "home")
        term.expect_prompt()
        term.send_line("Remember the codeword PELICAN")
        term.expect("Noted: the codeword")
        term.expect_prompt()
        term.send_line("/clear")
        term.expect("Started a new conversation")
        term.expect_prompt()
        term.send_line("An unrelated question")
        term.expect("Second session answer")
        term.expect_prompt()
        term.send_line("/resume")
        term.expect("Resume which session")
        term.send("\r")  # the picker's first row: the most recent other session
        term.expect("Resumed session")
        term.expect_prompt()
        term.send_line("What was the codeword?")
        term.expect("Back in the first one")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert server.rejections == []
    last = request_text(server.requests[2])
    assert "PELICAN" in last and "What was the codeword?" in last
    assert "unrelated question" not in last


def test_an_approval_denied_with_a_reason_reaches_the_model(workspace: Path, tmp_path: Path, terminals: list[Terminal]) -> None:
    script = [Reply(text="I will clean up.", calls=(Call("run_command", json.dumps({"command": "rm -f build.log"})),)), Reply(text="Okay, I will not.")]
    with FakeAnthropicServer(script) as server:
        term = start(terminals, workspace, server, tmp_path / "home", "--permission-mode", "default", "--sandbox", "off")
        term.expect_prompt()
        term.send_line("Clean up")
        term.expect(r"Allow run_command")
        term.send("n")
        term.expect("Why not")
        term.send_line("not needed")
        term.expect("Okay, I will not")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert server.rejections == []
    assert "The user denied this call: not needed" in request_text(server.requests[1])


def test_a_message_typed_while_the_agent_works_is_queued_and_sent_next(workspace: Path, tmp_path: Path, terminals: list[Terminal]) -> None:
    script = [Reply(text="A slowly streamed first answer. " * 3, text_chunks=40), Reply(text="Answer to the follow-up.")]
    with SlowAnthropicServer(script, delay=0.03) as server:
        term = start(terminals, workspace, server, tmp_path / "home")
        term.expect_prompt()
        term.send_line("First question")
        term.expect("Working")
        term.send_line("and a follow-up")
        term.expect("queued: and a follow-up")
        term.expect("Answer to the follow-up")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert server.rejections == [] and len(server.requests) == 2
    assert "and a follow-up" in request_text(server.requests[1])
    assert "and a follow-up" not in request_text(server.requests[0])


def test_a_bang_command_shows_its_output_and_sends_it_with_the_next_message(workspace: Path, tmp_path: Path, terminals: list[Terminal]) -> None:
    with FakeAnthropicServer([Reply(text="I see the marker.")]) as server:
        term = start(terminals, workspace, server, tmp_path / "home")
        term.expect_prompt()
        term.send_line("!echo shell-marker-$((40 + 2))")
        term.expect("shell-marker-42")
        term.expect_prompt()
        term.send_line("What did it print?")
        term.expect("I see the marker")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert "shell-marker-42" in request_text(server.requests[0])


def test_shift_tab_cycles_the_permission_mode_in_the_status_line(workspace: Path, tmp_path: Path, terminals: list[Terminal]) -> None:
    with FakeAnthropicServer([]) as server:
        term = start(terminals, workspace, server, tmp_path / "home")
        term.expect(r"⏵⏵ default mode")
        term.expect_prompt()
        term.send("\x1b[Z")
        term.expect(r"⏵⏵ accept-edits mode")
        term.send("\x1b[Z")
        term.expect(r"⏵⏵ plan mode")
        term.send(CTRL_D)
        assert term.exit_code() == 0


def test_tab_completes_slash_commands_and_file_mentions_which_reach_the_model(workspace: Path, tmp_path: Path, terminals: list[Terminal]) -> None:
    (workspace / "parser_module.py").write_text("def parse(): pass\n")
    with FakeAnthropicServer([Reply(text="Looked at it.")]) as server:
        term = start(terminals, workspace, server, tmp_path / "home")
        term.expect_prompt()
        term.send("/cos")
        term.send("\t")
        term.expect("/cost")
        term.send("\r")
        term.send("\r")
        term.expect("Tokens this session")
        term.expect_prompt()
        term.send("explain @parser_mo")
        term.expect("parser_module.py")  # the menu completing while typing; Tab before it lands could race it
        term.send("\t")
        term.expect("dule.py")  # Tab took the entry: the rest of its name is written into the line
        term.send("\r")  # the first Enter takes the highlighted completion, the second sends
        term.send("\r")
        term.expect("Looked at it.")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert "parser_module.py" in request_text(server.requests[0])


def test_sigterm_while_a_command_runs_kills_it_and_records_the_interrupt(workspace: Path, tmp_path: Path, terminals: list[Terminal]) -> None:
    import signal
    import time

    script = [Reply(text="Running it.", calls=(Call("run_command", json.dumps({"command": "sleep 2 && touch late.txt"})),))]
    with FakeAnthropicServer(script) as server:
        term = start(terminals, workspace, server, tmp_path / "home", "--permission-mode", "bypass")
        term.expect_prompt()
        term.send_line("Run the slow thing")
        term.expect(r"run_command.*sleep 2")
        term.child.kill(signal.SIGTERM)
        assert term.exit_code() == 128 + signal.SIGTERM
    time.sleep(2.2)
    assert not (workspace / "late.txt").exists()
    session_file = next((tmp_path / "home").rglob("session.jsonl"))
    assert '"type":"interrupt"' in session_file.read_text().replace(" ", "")
    recorded = session_file.read_text()
    assert "by the user" not in recorded and "interrupted by user" not in recorded
    tool_results = [line for line in recorded.splitlines() if "Tool call interrupted" in line]
    assert tool_results and all("the process received SIGTERM" in line for line in tool_results)
