"""Tool output folds and expands (issue 29, item 6), in tmux against the fake Anthropic server.

Three reads in a row are one line naming the files; Ctrl-O at the prompt
prints the last block's whole output; Ctrl-\\ opens the transcript pager with
every block; at 60 columns a long path is shortened and no line of a block
falls back to column 0.
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
from tests.fakes.script import Call, Reply
from tests.tui.terminal import env_for
from tests.tui.test_repl_tmux import Tmux

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")]

FILES = {
    "src/shop/cart.py": "def total(items):\n    return sum(items)  # cart marker\n",
    "tests/test_cart.py": "def test_total():\n    pass\n",
    "README.md": "# Shop\n",
}
DEEP = "src/shop/a_rather_long_package_name/with_an_even_longer_subpackage/and_more/deeply_nested_module.py"


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    session = Tmux(f"pc-fold-{tmp_path.name}")
    yield session
    subprocess.run(["tmux", "-L", session.socket, "kill-server"], capture_output=True)


def _launch(tmux: Tmux, tmp_path: Path, server: FakeAnthropicServer, columns: int) -> Path:
    workspace = tmp_path / "ws"
    for name, text in {**FILES, DEEP: "x = 1\n"}.items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text(text)
    env = env_for(server.url, tmp_path / "home")
    exports = "".join(f"export {key}={shlex.quote(value)}\n" for key, value in env.items() if key not in ("COLUMNS", "LINES"))
    launcher = tmp_path / "launch.sh"
    launcher.write_text(
        f"#!/bin/sh\nunset COLUMNS LINES\n{exports}cd {shlex.quote(str(workspace))}\nexec {shlex.quote(sys.executable)} -m pseudoclaude --sandbox off\n"
    )
    launcher.chmod(0o755)
    tmux.run("new-session", "-d", "-s", "t", "-x", str(columns), "-y", "30", str(launcher))
    tmux.wait_for("ctx 0%")
    return workspace


def _reads(*paths: str) -> tuple[Call, ...]:
    return tuple(Call("read_file", json.dumps({"path": path})) for path in paths)


def _settled(tmux: Tmux, text: str) -> str:
    """The screen once ``text`` is on it and the prompt is back (the turn's status line replaced the first one)."""
    tmux.wait_for(text)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        screen = tmux.screen()
        if text in screen and "ctx " in screen and "new session" not in screen and "esc to interrupt" not in screen:
            return screen
        time.sleep(0.1)
    raise AssertionError(f"the prompt never came back under {text!r}:\n{tmux.screen()}")


def test_reads_fold_ctrl_o_expands_the_transcript_lists_every_block_and_at_60_columns_the_indent_holds(tmp_path: Path, tmux: Tmux) -> None:
    noisy = Call("run_command", json.dumps({"command": "seq 1 20000"}))
    script = [
        Reply(text="Reading.", calls=_reads(*FILES)),
        Reply(text="All three read."),
        Reply(text="One more file.", calls=_reads(DEEP)),
        Reply(text="Now a long run.", calls=(noisy,)),
        Reply(text="Both done."),
    ]
    with FakeAnthropicServer(script) as server:
        _launch(tmux, tmp_path, server, columns=60)
        tmux.keys("Look at the cart", "Enter")
        screen = _settled(tmux, "All three read.")
        assert screen.count("Read 3 files (ctrl+o to expand)") == 1
        assert "src/shop/cart.py, tests/test_cart.py, README.md" in screen, screen
        assert "read_file(" not in screen and "cart marker" not in screen

        tmux.keys("C-o")
        expanded = tmux.wait_for("cart marker")
        assert all(f"read_file({name})" in expanded for name in FILES)

        tmux.keys("C-\\")
        pager = tmux.wait_for("Transcript ·")
        assert "❯ Look at the cart" in pager and "All three read." in pager
        assert all(f"read_file({name})" in pager for name in FILES)
        tmux.keys("q")
        back = tmux.wait_for("ctx ")
        assert "Transcript ·" not in back and "cart marker" in back  # the scrollback as it was, the prompt back

        tmux.keys("Go on", "Enter")
        _settled(tmux, "Both done.")
        rows = tmux.run("capture-pane", "-p", "-S", "-", "-t", "t").splitlines()
        tmux.keys("C-o")
        assert "19995" in tmux.wait_for("19990")  # the last block in full (its tail showed 19995-20000 only)
    title = next(row for row in rows if "read_file(" in row and "deeply" in row)
    assert "…" in title and title.rstrip().endswith("deeply_nested_module.py)") and len(title.rstrip()) <= 60
    start = next(index for index, row in enumerate(rows) if "run_command(seq 1 20000)" in row)
    block = rows[start + 1 : next(index for index, row in enumerate(rows) if "Both done." in row)]
    saved = next(row for row in block if ".txt" in row or "spill" in row)
    assert "…" in saved and len(saved.rstrip()) <= 60
    assert all(row.startswith(("  ⎿ ", "    ")) for row in block if row.strip()), "\n".join(block)
