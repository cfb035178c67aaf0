"""The REPL side of MCP prompts and elicitation, in a real pseudo-terminal with the real demo server over stdio."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.script import Call, Reply
from tests.tui.terminal import CTRL_D, Terminal, env_for, request_text

pytestmark = pytest.mark.slow

DEMO = Path(__file__).with_name("mcp_demo_server.py")
CONFIG = json.dumps({"mcpServers": {"demo": {"command": sys.executable, "args": [str(DEMO)]}}})


def test_an_mcp_prompt_completes_and_runs_and_an_elicitation_is_answered_in_the_footer(tmp_path: Path, terminals: list[Terminal]) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    script = [
        Reply(text="Hi there."),
        Reply(text="Hello, Ann!"),
        Reply(calls=(Call("mcp__demo__ask"),)),
        Reply(text="Teal it is."),
    ]
    with FakeAnthropicServer(script) as server:
        env = {**env_for(server.url, tmp_path / "home"), "HOME": str(tmp_path)}
        term = Terminal(["--permission-mode", "bypass", "--mcp-config", CONFIG], ws, env, timeout=60)
        terminals.append(term)
        term.expect_prompt()
        term.send_line("hello")  # the first turn opens the session and starts its MCP servers
        term.expect("Hi there.")
        term.expect_prompt()
        term.send("/mcp__demo__gr")
        term.expect("MCP demo")  # the completion menu shows the prompt's help line
        term.send("\t")
        term.expect("eet")
        term.send("\r")  # the first Enter takes the completion
        term.send_line(" Ann")
        term.expect("Hello, Ann!")
        term.expect_prompt()
        term.send_line("pick a colour")
        term.expect("Which colour should the button be")
        term.expect("colour")
        term.send_line("teal")
        term.expect("Teal it is.")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    greeting = server.requests[1]["messages"][-1]
    assert [block["text"] for block in greeting["content"]] == ["Please greet Ann in a plain way, in one sentence."]
    assert "the user chose teal" in request_text(server.requests[3])
