"""The interactive REPL (bare ``pseudoclaude``); being built, see the issue tracker."""

from __future__ import annotations

import sys

from pseudoclaude.config import Settings


def run_repl(settings: Settings, *, resume_id: str | None, continue_latest: bool) -> int:
    sys.stderr.write('pseudoclaude: the interactive REPL is not built yet; run a task with: pseudoclaude -p "your task"\n')
    return 2
