"""A running command shows its own clock, and Ctrl-B sends it to the background (issue 29), in tmux.

tmux, not a bare pty: the clock's digits are redrawn in place (the live area
writes only the cells that change), so only a terminal's screen shows "2s".
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path

import pytest

from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.script import Call, Reply
from tests.tui.terminal import env_for, request_text
from tests.tui.test_repl_tmux import Tmux, tmux  # noqa: F401  (the fixture)
from tests.tui.tmux_launch import launch_repl

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")]

_CLOCK = re.compile(r"⎿ Running… (\d+)s · ctrl\+b to run in background")


def _run(command: str) -> Call:
    return Call("run_command", json.dumps({"command": command}))


def _group_alive(pgid: int) -> bool:
    """True while a process that is not a zombie is in group ``pgid``."""
    for entry in os.listdir("/proc"):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text() if entry.isdigit() else ""
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 2 and fields[0] not in ("Z", "X") and fields[2] == str(pgid):
            return True
    return False


def _wait_for_prompt(tmux: Tmux) -> None:
    """The turn is over: the status line is back and nothing says the agent works."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        screen = tmux.screen()
        if "ctx " in screen and "esc to interrupt" not in screen:
            return
        time.sleep(0.1)
    raise AssertionError(f"the prompt never came back:\n{tmux.screen()}")


def _clock_readings(tmux: Tmux, until: str) -> list[int]:
    """The seconds the running command's line shows, read off the screen until ``until`` appears."""
    readings: list[int] = []
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        screen = tmux.screen()
        readings += [int(seconds) for seconds in _CLOCK.findall(screen)]
        if until in screen:
            return readings
        time.sleep(0.1)
    raise AssertionError(f"{until!r} never appeared:\n{tmux.screen()}")


def test_a_command_counts_its_seconds_and_ctrl_b_sends_one_to_the_background_where_its_output_stays_readable(tmp_path: Path, tmux: Tmux) -> None:  # noqa: F811
    workspace = tmp_path / "ws"
    workspace.mkdir()
    script = [
        Reply(text="Waiting.", calls=(_run("sleep 3"),)),
        Reply(text="Slept."),
        Reply(text="Starting the long one.", calls=(_run("echo before-the-key; sleep 1.5; echo after-the-key; sleep 30"),)),
        Reply(text="It goes on in the background."),
        Reply(calls=(Call("command_output", json.dumps({"id": "bg1"})),)),
        Reply(text="Read it."),
    ]
    with FakeAnthropicServer(script) as server:
        launch_repl(tmux, tmp_path, workspace, env_for(server.url, tmp_path / "home"), "--permission-mode", "bypass", "--sandbox", "off")
        tmux.keys("Wait a little", "Enter")
        seen = _clock_readings(tmux, "Slept.")
        _wait_for_prompt(tmux)
        assert seen == sorted(seen) and {1, 2} <= set(seen) and max(seen) <= 3, seen  # the command's own seconds, growing

        tmux.keys("Start the long one", "Enter")
        tmux.wait_for("ctrl+b to run in background")
        time.sleep(0.3)
        pressed = time.monotonic()
        tmux.keys("C-b")
        tmux.wait_for("It goes on in the background.")
        _wait_for_prompt(tmux)
        assert time.monotonic() - pressed < 5  # the turn ended long before the command's 30 s
        told = request_text(server.requests[3])
        assert "sent this command to the background" in told and 'command_output(id=\\"bg1\\")' in told
        pgid = int(re.findall(r"process group (\d+)", told)[0])
        assert _group_alive(pgid)
        assert "sent to the background as bg1" in tmux.screen()

        time.sleep(1.6)  # the command prints its second line, in the background now
        tmux.keys("What did it print?", "Enter")
        tmux.wait_for("Read it.")
        _wait_for_prompt(tmux)
        read = request_text(server.requests[5])
        assert "bg1 is running" in read and "before-the-key" in read and "after-the-key" in read
        tmux.keys("C-d")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and _group_alive(pgid):
            time.sleep(0.1)
    assert not _group_alive(pgid)  # the session's end stopped it
