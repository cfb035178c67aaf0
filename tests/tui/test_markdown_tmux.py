"""On a real terminal's screen (tmux): ``@src`` Tab completes to ``@src/``, an H1 starts at the left edge, a list of twelve stays aligned."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.script import Reply
from tests.tui.terminal import env_for
from tests.tui.test_repl_tmux import Tmux, tmux  # noqa: F401  (the fixture)
from tests.tui.tmux_launch import launch_repl

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")]

ANSWER = "# Release notes\n\nWhat changed:\n\n" + "".join(f"{n}. change number {n}\n" for n in range(1, 13)) + "\nThat is all.\n"


def test_a_folder_completes_with_its_slash_and_the_answer_is_laid_out_from_the_left(tmp_path: Path, tmux: Tmux) -> None:  # noqa: F811
    workspace = tmp_path / "ws"
    (workspace / "src").mkdir(parents=True)
    (workspace / "src" / "main.py").write_text("print('hi')\n")
    with FakeAnthropicServer([Reply(text=ANSWER, text_chunks=40)]) as server:
        launch_repl(tmux, tmp_path, workspace, env_for(server.url, tmp_path / "home"), width=100)
        tmux.keys("look at @sr")
        tmux.wait_for("look at @sr")
        tmux.keys("Tab")
        tmux.wait_for("look at @src/")
        tmux.keys("C-e", " and sum up", "Enter")
        screen = tmux.wait_for("That is all.")
    assert "look at @src/ and sum up" in json.dumps(server.requests[0]["messages"])
    rows = screen.splitlines()
    assert "Release notes" in rows  # the whole row: at column 0, not centred
    items = [row for row in rows if "change number" in row]
    assert len(items) == 12
    assert len({row.index("change") for row in items}) == 1, items  # item 10 does not push its text right
    assert [row.split(".")[0].strip() for row in items] == [str(n) for n in range(1, 13)]
