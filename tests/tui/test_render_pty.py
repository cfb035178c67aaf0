"""The REPL's rendering and input defects of issue 16, in a pseudo-terminal against the fake servers."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.script import Call, Reply
from tests.tui.terminal import CTRL_D, ESC, SlowAnthropicServer, Terminal, env_for, request_text

pytestmark = pytest.mark.slow

STRAY_TASK_SIGNS = ("Unhandled exception", "Task was destroyed", "Press ENTER", "Exception None")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def terminals() -> Iterator[list[Terminal]]:
    opened: list[Terminal] = []
    yield opened
    for terminal in opened:
        terminal.close()


def start(terminals: list[Terminal], workspace: Path, server: Any, home: Path, *args: str, **options: Any) -> Terminal:
    terminal = Terminal([*args], workspace, env_for(server.url, home), **options)
    terminals.append(terminal)
    return terminal


def test_escape_at_an_approval_leaves_no_stray_task_and_the_next_command_runs(
    workspace: Path, tmp_path: Path, terminals: list[Terminal]
) -> None:
    ask = Reply(text="I will clean up.", calls=(Call("run_command", json.dumps({"command": "rm -f build.log"})),))
    script = [ask, ask, ask, Reply(text="Fresh answer after the interrupts.")]
    with FakeAnthropicServer(script) as server:
        term = start(terminals, workspace, server, tmp_path / "home", "--permission-mode", "default", collect_garbage=True)
        term.expect_prompt()
        for attempt in range(3):
            term.send_line(f"Clean up, take {attempt}")
            term.expect(r"Allow run_command")
            time.sleep(0.2)
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
