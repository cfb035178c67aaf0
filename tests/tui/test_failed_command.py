"""A failed command's block is in the error colour with how it ended; a passing one stays dim."""

from __future__ import annotations

import asyncio
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from pseudoclaude.tools import ToolContext
from pseudoclaude.tools.run_command import RunCommandTool
from pseudoclaude.tui.toolview import command_failure, tool_block
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.script import Call, Reply
from tests.tui.terminal import Terminal, start

RED = re.compile(r"\x1b\[(?:\d+;)*31(?:;\d+)*m")
"""An SGR sequence that sets the error colour (red, maybe with bold)."""


def red(line: str) -> bool:
    return RED.search(line) is not None


def _run(tmp_path: Path, command: str) -> Any:
    (tmp_path / "ws").mkdir(exist_ok=True)
    context = ToolContext(workspace=tmp_path / "ws", spill_dir=tmp_path / "spill")
    return asyncio.run(RunCommandTool().run({"command": command}, context))


def _lines(command: str, out: Any) -> list[str]:
    c = Console(file=io.StringIO(), width=120, force_terminal=True, color_system="standard")
    c.print(tool_block("run_command", {"command": command}, is_error=out.is_error, summary=out.summary, display=out.display))
    return c.file.getvalue().splitlines()  # type: ignore[attr-defined]


def test_a_command_that_exits_1_has_its_title_and_summary_in_red(tmp_path: Path) -> None:
    lines = _lines("echo no; exit 1", _run(tmp_path, "echo no; exit 1"))
    assert red(lines[0]) and red(lines[1])
    assert "exit 1" in lines[1]


def test_a_command_that_exits_0_stays_green_and_dim(tmp_path: Path) -> None:
    lines = _lines("echo yes", _run(tmp_path, "echo yes"))
    assert not any(red(line) for line in lines)


def test_how_a_command_failed_is_read_from_its_display() -> None:
    assert command_failure({"exit_code": 0}) is None
    assert command_failure({"exit_code": 2}) == "exit 2"
    assert command_failure({"exit_code": -9}) == "killed by signal 9"
    assert command_failure({"exit_code": None, "timed_out": True}) == "timed out"
    assert command_failure({"running": True, "exit_code": None}) is None
    assert command_failure({}) is None


def test_a_killed_command_says_so_in_its_summary() -> None:
    c = Console(file=io.StringIO(), width=120, color_system=None)
    c.print(tool_block("run_command", {"command": "x"}, is_error=False, summary="$ x (exit -9, 0 bytes)", display={"exit_code": -9}))
    assert "killed by signal 9" in c.file.getvalue()  # type: ignore[attr-defined]


@pytest.mark.slow
def test_in_the_repl_the_failed_command_line_is_red_and_the_passing_one_is_not(tmp_path: Path, terminals: list[Terminal]) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    calls = (Call("run_command", json.dumps({"command": "echo fine"})), Call("run_command", json.dumps({"command": "echo broken; exit 3"})))
    script = [Reply(text="Running both.", calls=calls), Reply(text="One failed.")]
    with FakeAnthropicServer(script) as server:
        term = start(terminals, workspace, server, tmp_path / "home", "--permission-mode", "bypass", "--sandbox", "off")
        term.expect_prompt()
        term.send_line("Run them")
        term.expect("One failed")
        term.expect_prompt()
        rows = term.raw.splitlines()
        passing = next(row for row in rows if "$ echo fine (exit 0" in row)
        failing = next(row for row in rows if "$ echo broken; exit 3 (exit 3" in row)
        assert not red(passing)
        assert red(failing)
        term.send("\x04")
        assert term.exit_code() == 0
