"""The README's REPL captures, reproduced: ``python -m tests.tui.readme_capture OUT_DIR``.

Runs the real REPL in tmux (100 x 40) against the scripted fake Anthropic
server, on the provider table's default model: the model reads two files (one
folded line), runs the test, which fails (in the sandbox it does not ask;
without one the script says yes), asks to edit a file (the approval shows the
diff) and answers in Markdown after ``y``. Then Ctrl-D, and the same session is
opened again with ``pseudoclaude --continue``. Writes the screen at the
question (``approval.txt``), at the end of the turn (``final.txt``) and after
the resume (``resumed.txt``). Not a test: a tool for the docs.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

from pseudoclaude.llm.providers import ANTHROPIC
from tests.fakes.script import Call, Reply
from tests.tui.terminal import SlowAnthropicServer, env_for
from tests.tui.test_repl_tmux import Tmux

CART = "def total(prices):\n    return sum(prices)\n\n\ndef with_tax(prices, rate):\n    return total(prices) * rate\n"
TEST = "from cart import with_tax\n\n\ndef test_with_tax():\n    assert with_tax([10, 20], 0.2) == 36.0\n"
CHECK = "python3 -c 'import test_cart; test_cart.test_with_tax()'"
PROMPT = "with_tax looks wrong for a 20% rate, can you fix it?"
ANSWER = (
    "## Fixed\n\n"
    "`with_tax([10, 20], 0.2)` now returns **36.0** instead of 6.0, as `test_with_tax` expects:\n\n"
    "- `total` was right;\n"
    "- `with_tax` now adds the rate to 1 before multiplying.\n"
)
SCRIPT = [
    Reply(
        text="Let me read the cart module and its test first.",
        calls=(Call("read_file", json.dumps({"path": "cart.py"})), Call("read_file", json.dumps({"path": "test_cart.py"}))),
    ),
    Reply(text="I'll run the test to see it fail.", calls=(Call("run_command", json.dumps({"command": CHECK})),)),
    Reply(
        text="`with_tax` multiplies by the rate itself, so a 20% tax returns a fifth of the total. I'll fix it.",
        calls=(
            Call(
                "edit_file",
                json.dumps({"path": "cart.py", "old_string": "    return total(prices) * rate", "new_string": "    return total(prices) * (1 + rate)"}),
            ),
        ),
    ),
    Reply(text=ANSWER, text_chunks=6),
]


def _launcher(root: Path, workspace: Path, env: dict[str, str]) -> Path:
    exports = "".join(f"export {key}={shlex.quote(value)}\n" for key, value in env.items() if key not in ("COLUMNS", "LINES"))
    launcher = root / "launch.sh"
    launcher.write_text(f'#!/bin/sh\nunset COLUMNS LINES\n{exports}cd {shlex.quote(str(workspace))}\nexec {shlex.quote(sys.executable)} -m pseudoclaude "$@"\n')
    launcher.chmod(0o755)
    return launcher


def _wait_for_exit(tmux: Tmux, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while subprocess.run(["tmux", "-L", tmux.socket, "has-session", "-t", "t"], capture_output=True).returncode == 0:
        if time.monotonic() > deadline:
            raise AssertionError(f"the REPL did not exit on Ctrl-D; the screen:\n{tmux.screen()}")
        time.sleep(0.1)


def capture(root: Path) -> None:
    workspace = root / "shop"
    workspace.mkdir(parents=True, exist_ok=True)
    (workspace / "cart.py").write_text(CART)
    (workspace / "test_cart.py").write_text(TEST)
    tmux = Tmux("pc-readme-capture")
    try:
        with SlowAnthropicServer(SCRIPT, delay=0.05) as server:
            env = {**env_for(server.url, root / "home"), "PSEUDOCLAUDE_MODEL": ANTHROPIC.default_model}
            launcher = _launcher(root, workspace, env)
            tmux.run("new-session", "-d", "-s", "t", "-x", "100", "-y", "40", str(launcher))
            tmux.wait_for("ctx 0%")
            tmux.keys(PROMPT, "Enter")
            if "Allow run_command" in tmux.wait_for("Allow", timeout=30):
                tmux.keys("y")
            tmux.wait_for("Allow edit_file", timeout=30)
            time.sleep(0.5)
            (root / "approval.txt").write_text(tmux.screen())
            tmux.keys("y")
            tmux.wait_for("36.0", timeout=30)
            tmux.wait_for("ctx ")
            time.sleep(0.8)
            (root / "final.txt").write_text(tmux.screen())
            tmux.keys("C-d")
            _wait_for_exit(tmux)
            tmux.run("new-session", "-d", "-s", "t", "-x", "100", "-y", "40", str(launcher), "--continue")
            tmux.wait_for("ctx ", timeout=20)
            time.sleep(0.8)
            (root / "resumed.txt").write_text(tmux.screen())
    finally:
        subprocess.run(["tmux", "-L", tmux.socket, "kill-server"], capture_output=True)


if __name__ == "__main__":
    capture(Path(sys.argv[1]))
