"""The REPL's question after a sandbox block, in a real pseudo-terminal on the real bubblewrap (issue 26)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.script import Call, Reply
from tests.sandbox.support import real_sandbox
from tests.tui.terminal import CTRL_D, Terminal, start

pytestmark = pytest.mark.slow

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]")


def test_yes_once_runs_a_blocked_command_outside_the_sandbox(tmp_path: Path, workspace: Path, outside: Path, terminals: list[Terminal]) -> None:
    real_sandbox(workspace)
    command = "echo owned > ../outside/canary"  # short: a long line wraps the question past what expect() matches
    script = [Reply(text="Writing.", calls=(Call("run_command", json.dumps({"command": command})),)), Reply(text="Wrote the canary.")]
    with FakeAnthropicServer(script) as server:
        term = start(terminals, workspace, server, tmp_path / "home")
        term.expect_prompt()
        term.send_line("write the canary")
        term.expect(r"\[n\] no, and say why", timeout=60)
        question = " ".join(_ANSI.sub("", term.raw[term.raw.rfind("Run outside the sandbox") :]).split())
        assert "outside the writable folders" in question and "[a] always for" in question
        assert not (outside / "canary").exists()
        term.send("y")
        term.expect("Wrote the canary", timeout=60)
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert (outside / "canary").read_text() == "owned\n"
