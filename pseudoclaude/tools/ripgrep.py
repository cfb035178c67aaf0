"""Where the ``rg`` binary is: the one the ``ripgrep`` wheel installed next to our interpreter first, then the PATH.

The ``ripgrep`` dependency (pinned to a version PyPI publishes as binary
wheels) puts ``rg`` in the environment's scripts folder, which is on the PATH
only when the environment is activated; PseudoClaude is usually started as
``.venv/bin/pseudoclaude`` without activating anything, so that folder is
looked at first. A system-wide ``rg`` is the second choice; with none, the
grep tool falls back to its Python engine (same results, slower).

Commands the model runs get the same ``rg``: ``child_env`` appends the
bundled binary's folder to their PATH when no ``rg`` is on it.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
from pathlib import Path

RG_NAME = "rg.exe" if os.name == "nt" else "rg"


def find_rg() -> str | None:
    """The path of the ``rg`` binary to use, or None when there is none (cached: found once per process)."""
    return _find_rg(sys.executable, os.environ.get("PATH", ""))


@functools.lru_cache(maxsize=4)
def _find_rg(executable: str, path_env: str) -> str | None:
    candidate = Path(executable).parent / RG_NAME
    if executable and candidate.is_file() and os.access(candidate, os.X_OK):
        return str(candidate)
    return shutil.which("rg", path=path_env or None)
