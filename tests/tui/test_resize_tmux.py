"""Resizing the terminal while an answer streams leaves the same transcript as a run at a fixed width (tmux)."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fakes.script import Reply
from tests.tui.terminal import SlowAnthropicServer, env_for
from tests.tui.test_repl_tmux import Tmux

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")]

ANSWER = (
    "Here is the plan. "
    + "It goes on long enough to wrap several times on a wide terminal, so the live tail is wider than a narrow one. " * 4
    + "\n\n"
    + "".join(f"- point number {i} of the plan\n" for i in range(8))
    + "\n```python\n"
    + "".join(f"value_{i} = compute({i})\n" for i in range(10))
    + "```\n\nA closing paragraph that stays short.\n"
)


def transcript(tmp_path: Path, name: str, resize: bool) -> str:
    """The scrollback from the answer to the end of the turn, after streaming ``ANSWER`` (resizing 120 -> 60 -> 120 when asked)."""
    workspace = tmp_path / name
    workspace.mkdir()
    tmux = Tmux(f"pc-resize-{name}-{tmp_path.name}")
    try:
        with SlowAnthropicServer([Reply(text=ANSWER, text_chunks=90)], delay=0.06) as server:
            env = env_for(server.url, tmp_path / f"home-{name}")
            exports = "".join(f"export {key}={shlex.quote(value)}\n" for key, value in env.items() if key not in ("COLUMNS", "LINES"))
            launcher = tmp_path / f"launch-{name}.sh"
            launcher.write_text(
                f"#!/bin/sh\nunset COLUMNS LINES\n{exports}cd {shlex.quote(str(workspace))}\nexec {shlex.quote(sys.executable)} -m pseudoclaude\n"
            )
            launcher.chmod(0o755)
            tmux.run("new-session", "-d", "-s", "t", "-x", "120", "-y", "30", str(launcher))
            tmux.wait_for("ctx 0%")
            tmux.keys("Explain", "Enter")
            tmux.wait_for("Here is the plan")
            if resize:
                for width in ("60", "90", "50", "120"):
                    time.sleep(0.3)
                    tmux.run("resize-window", "-t", "t", "-x", width)
            tmux.wait_for("A closing paragraph")
            tmux.wait_for("ctx ")
            time.sleep(0.5)
            scrollback = tmux.run("capture-pane", "-p", "-S", "-", "-t", "t")
    finally:
        subprocess.run(["tmux", "-L", tmux.socket, "kill-server"], capture_output=True)
    lines = [line.rstrip() for line in scrollback.splitlines()]
    start = next(i for i, line in enumerate(lines) if "Here is the plan" in line)
    end = next(i for i, line in enumerate(lines) if "A closing paragraph" in line)
    return "\n".join(lines[start : end + 1])


def test_resizing_while_an_answer_streams_leaves_the_transcript_of_a_fixed_width_run(tmp_path: Path) -> None:
    fixed = transcript(tmp_path, "fixed", resize=False)
    resized = transcript(tmp_path, "resized", resize=True)
    assert fixed.count("point number") == 8 and fixed.count("compute(") == 10 and fixed.count("Here is the plan") == 1
    assert "Working" not in fixed and "esc to interrupt" not in fixed
    assert resized == fixed


WORDS = 240
PARAGRAPHS = "\n\n".join(" ".join(f"w{i:03d}" for i in range(start, start + 40)) for start in range(0, WORDS, 40))


def test_repeated_resizes_while_an_answer_streams_leave_every_word_once(tmp_path: Path) -> None:
    """Eight resizes between 60, 90 and 120 columns while six paragraphs stream: each word is in the scrollback once.

    Issue 29's 1-in-3 duplicated partial line: a resize while a redraw was laid
    out, which read the width afresh at each step (``liveview.LiveArea``).
    """
    workspace = tmp_path / "ws"
    workspace.mkdir()
    tmux = Tmux(f"pc-resize-many-{tmp_path.name}")
    answer = f"Start of the answer.\n\n{PARAGRAPHS}\n\nThe end.\n"
    try:
        with SlowAnthropicServer([Reply(text=answer, text_chunks=100)], delay=0.03) as server:
            env = env_for(server.url, tmp_path / "home")
            exports = "".join(f"export {key}={shlex.quote(value)}\n" for key, value in env.items() if key not in ("COLUMNS", "LINES"))
            launcher = tmp_path / "launch.sh"
            launcher.write_text(
                f"#!/bin/sh\nunset COLUMNS LINES\n{exports}cd {shlex.quote(str(workspace))}\nexec {shlex.quote(sys.executable)} -m pseudoclaude\n"
            )
            launcher.chmod(0o755)
            tmux.run("new-session", "-d", "-s", "t", "-x", "120", "-y", "30", str(launcher))
            tmux.wait_for("ctx 0%")
            tmux.keys("Explain", "Enter")
            tmux.wait_for("Start of the answer")
            for width in ("60", "90", "120", "60", "120", "90", "60", "120"):
                time.sleep(0.25)
                tmux.run("resize-window", "-t", "t", "-x", width)
            tmux.wait_for("The end.")
            tmux.wait_for("ctx ")
            time.sleep(0.3)
            scrollback = tmux.run("capture-pane", "-p", "-J", "-S", "-", "-t", "t")
    finally:
        subprocess.run(["tmux", "-L", tmux.socket, "kill-server"], capture_output=True)
    text = " ".join(scrollback.split())
    assert {word: text.count(word) for word in (f"w{i:03d}" for i in range(WORDS)) if text.count(word) != 1} == {}
    assert text.count("Start of the answer") == 1 and text.count("The end.") == 1
