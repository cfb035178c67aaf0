"""A 40-line paste in a 15-row terminal (tmux, which keeps a real scrollback): the message once, no stale status lines.

Before pastes folded, an input taller than the window left a copy of the
mode/status block in the middle of the scrollback and the pasted lines twice.
tmux's ``paste-buffer -p`` pastes as a terminal does, bracketed.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.script import Reply
from tests.tui.terminal import env_for
from tests.tui.test_repl_tmux import Tmux

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")]

PASTED = "\n".join(f"pasted line {i}" for i in range(1, 41))
PLACEHOLDER = "[Pasted text #1 +40 lines]"


def scrollback_after_paste(
    tmp_path: Path, *keys: str, rows: int = 15, editor: str = "true", shows: str = "pasted line 40", ready: Path | None = None
) -> tuple[str, str]:
    """Paste ``PASTED`` at a prompt ``rows`` high, press ``keys`` (each until ``shows`` is on screen), send; the input's screen before sending, and the whole scrollback after."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    tmux = Tmux(f"pc-paste-{tmp_path.name}")
    try:
        with FakeAnthropicServer([Reply(text="Got it, thanks.")]) as server:
            env = {**env_for(server.url, tmp_path / "home"), "EDITOR": editor}
            exports = "".join(f"export {key}={shlex.quote(value)}\n" for key, value in env.items() if key not in ("COLUMNS", "LINES"))
            launcher = tmp_path / "launch.sh"
            launcher.write_text(
                f"#!/bin/sh\nunset COLUMNS LINES\n{exports}cd {shlex.quote(str(workspace))}\nexec {shlex.quote(sys.executable)} -m pseudoclaude\n"
            )
            launcher.chmod(0o755)
            tmux.run("new-session", "-d", "-s", "t", "-x", "100", "-y", str(rows), str(launcher))
            tmux.wait_for("ctx 0%")
            tmux.run("set-buffer", PASTED)
            tmux.run("paste-buffer", "-p", "-t", "t")
            screen = tmux.wait_for(PLACEHOLDER)
            for key in keys:
                tmux.keys(key)
                deadline = time.monotonic() + 20
                while ready is not None and not ready.exists() and time.monotonic() < deadline:
                    time.sleep(0.1)
                time.sleep(0.3)
                screen = tmux.wait_for(shows)
            tmux.keys("Enter")
            tmux.wait_for("Got it, thanks.")
            deadline = time.monotonic() + 20
            while ("new session" in (now := tmux.screen()) or "ctx " not in now) and time.monotonic() < deadline:
                time.sleep(0.1)  # the turn's status (its session id) replaces the first one
            time.sleep(0.3)
            scrollback = tmux.run("capture-pane", "-p", "-S", "-", "-t", "t")
    finally:
        subprocess.run(["tmux", "-L", tmux.socket, "kill-server"], capture_output=True)
    sent = server.requests[-1]["messages"][-1]["content"][0]["text"]
    assert sent.startswith(PASTED) or sent.startswith(PASTED.replace("line 39", "line 39Z"))
    return screen, scrollback


def test_a_folded_paste_leaves_the_message_once_and_one_status_block(tmp_path: Path) -> None:
    screen, scrollback = scrollback_after_paste(tmp_path)
    assert "pasted line" not in screen
    assert scrollback.count(f"❯ {PLACEHOLDER}") == 1
    assert "pasted line" not in scrollback
    assert scrollback.count("mode") == 1 and scrollback.count("ctx ") == 1


@pytest.mark.parametrize("rows", [10, 15])
def test_an_unfolded_paste_taller_than_the_window_leaves_no_stale_status_block(rows: int, tmp_path: Path) -> None:
    screen, scrollback = scrollback_after_paste(tmp_path, "C-t", rows=rows)
    assert "ctx 0%" in screen  # the status stays on screen under the tall input
    assert scrollback.count(f"❯ {PLACEHOLDER}") == 1  # folded back when sent: the message once, one line
    assert "pasted line" not in scrollback
    assert scrollback.count("mode") == 1 and scrollback.count("ctx ") == 1


def test_ctrl_g_edits_the_paste_unfolded_and_folds_it_back_when_unchanged(tmp_path: Path) -> None:
    editor = tmp_path / "editor.sh"
    given = tmp_path / "given.txt"
    editor.write_text(f'#!/bin/sh\ncp "$1" {shlex.quote(str(given))}\n')
    editor.chmod(0o755)
    screen, scrollback = scrollback_after_paste(tmp_path, "C-g", editor=str(editor), shows=PLACEHOLDER, ready=given)
    assert given.read_text().rstrip("\n") == PASTED  # the editor got the pasted text itself
    assert f"❯ {PLACEHOLDER}" in screen and "pasted line" not in screen
    assert scrollback.count(f"❯ {PLACEHOLDER}") == 1


def test_an_unfolded_paste_edited_inside_is_left_whole_in_the_scrollback(tmp_path: Path) -> None:
    _, scrollback = scrollback_after_paste(tmp_path, "C-t", "Up", "Z")
    lines = [line.rstrip() for line in scrollback.splitlines()]
    assert lines.count("❯ pasted line 1") == 1 and lines.count("… pasted line 39Z") == 1
    assert sum(line.endswith("pasted line 20") for line in lines) == 1  # every line once, not only the window's tail
    assert scrollback.count("mode") == 1 and scrollback.count("ctx ") == 1
