"""The real REPL in a pseudo-terminal: /effort with Tab, the effort in the status line, thinking folded, Ctrl+O."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.script import Reply, StallStream
from tests.tui.terminal import CTRL_D, ESC, Terminal, env_for

pytestmark = pytest.mark.slow

CTRL_O = "\x0f"


@pytest.fixture
def terminal_list() -> Iterator[list[Terminal]]:
    opened: list[Terminal] = []
    yield opened
    for terminal in opened:
        terminal.close()


def test_effort_set_with_tab_shows_in_the_status_line_and_thinking_prints_folded(tmp_path: Path, terminal_list: list[Terminal]) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    script = [Reply(thinking="Compare both options first.", text="Option B is better.")]
    with FakeAnthropicServer(script) as server:
        term = Terminal(["--model", "claude-opus-4-6"], ws, env_for(server.url, tmp_path / "home"))
        terminal_list.append(term)
        term.expect_prompt()
        term.send("/effort hi")
        term.send("\t")
        term.expect("high")
        term.send("\r")
        term.send("\r")
        term.expect(r"Effort set to .*high")
        term.expect("effort high")
        term.send_line("Which option?")
        term.expect(r"Thought for \d+s")
        term.expect("Option B is better.")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert server.rejections == []
    assert server.requests[0]["output_config"] == {"effort": "high"}


def test_ctrl_o_unfolds_the_thinking_while_it_streams(tmp_path: Path, terminal_list: list[Terminal]) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    script = [StallStream(Reply(thinking="weighing the first approach carefully", text="never"), after_deltas=2, seconds=20), Reply(text="Fine.")]
    with FakeAnthropicServer(script) as server:
        term = Terminal(["--model", "claude-opus-4-6", "--effort", "low"], ws, env_for(server.url, tmp_path / "home"))
        terminal_list.append(term)
        term.expect_prompt()
        term.send_line("Think.")
        term.expect("Thinking…")
        term.send(CTRL_O)
        term.expect("weighing")
        term.send(ESC)
        term.expect("Interrupted")
        term.expect_prompt()
        term.send_line("Go on.")
        term.expect("Fine.")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert server.rejections == []
