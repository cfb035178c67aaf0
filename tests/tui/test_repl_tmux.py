"""Keys whose behaviour depends on a real terminal emulator (tmux), not just a pty.

``$EDITOR`` (Ctrl-G) hands the terminal to another program and back, and
Ctrl-R's search redraws the prompt; a bare pexpect pty does not answer the
terminal queries prompt-toolkit makes around these, tmux does.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.script import Reply
from tests.tui.terminal import env_for

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")]


class Tmux:
    def __init__(self, socket: str) -> None:
        self.socket = socket

    def run(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=True).stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "t")

    def wait_for(self, text: str, timeout: float = 20, count: int = 1) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if screen.count(text) >= count:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared; the screen:\n{self.screen()}")

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", "t", *keys)


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    session = Tmux(f"pc-test-{tmp_path.name}")
    yield session
    subprocess.run(["tmux", "-L", session.socket, "kill-server"], capture_output=True)


def test_ctrl_g_edits_the_input_in_editor_and_ctrl_r_searches_history(tmp_path: Path, tmux: Tmux) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nprintf "written in the editor" > "$1"\n')
    editor.chmod(0o755)
    with FakeAnthropicServer([Reply(text="first reply"), Reply(text="second reply")]) as server:
        env = {**env_for(server.url, tmp_path / "home"), "EDITOR": str(editor)}
        launcher = tmp_path / "launch.sh"
        exports = "".join(f"export {key}={shlex.quote(value)}\n" for key, value in env.items())
        launcher.write_text(f"#!/bin/sh\n{exports}cd {shlex.quote(str(workspace))}\nexec {shlex.quote(sys.executable)} -m pseudoclaude\n")
        launcher.chmod(0o755)
        tmux.run("new-session", "-d", "-s", "t", "-x", "110", "-y", "30", str(launcher))
        tmux.wait_for("ctx 0%")
        tmux.keys("draft")
        tmux.keys("C-g")
        tmux.wait_for("❯ written in the editor")
        tmux.keys("Enter")
        tmux.wait_for("first reply")
        tmux.wait_for("↑ ")
        time.sleep(0.5)
        tmux.keys("C-r")
        time.sleep(0.3)
        tmux.keys("edit")
        tmux.wait_for("I-search backward: edit")
        tmux.wait_for("❯ written in the editor", count=2)
        tmux.keys("Enter")
        time.sleep(0.3)
        tmux.keys("Enter")
        tmux.wait_for("second reply")
    assert "written in the editor" in json.dumps(server.requests[0]["messages"])
    assert "written in the editor" in json.dumps(server.requests[1]["messages"][-1])
