"""Starting the REPL inside a tmux session (a real terminal emulator: its screen and scrollback can be read back)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from tests.tui.test_repl_tmux import Tmux


def launch_repl(tmux: Tmux, root: Path, workspace: Path, env: dict[str, str], *args: str, width: int = 120, height: int = 30) -> None:
    """``pseudoclaude args`` in ``workspace`` with ``env``, in tmux session ``t`` of ``width`` x ``height`` (the size is tmux's own)."""
    exports = "".join(f"export {key}={shlex.quote(value)}\n" for key, value in env.items() if key not in ("COLUMNS", "LINES"))
    command = " ".join(shlex.quote(part) for part in (sys.executable, "-m", "pseudoclaude", *args))
    launcher = root / f"launch-{tmux.socket}.sh"
    launcher.write_text(f"#!/bin/sh\nunset COLUMNS LINES\n{exports}cd {shlex.quote(str(workspace))}\nexec {command}\n")
    launcher.chmod(0o755)
    tmux.run("new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height), str(launcher))
    tmux.wait_for("ctx 0%")
