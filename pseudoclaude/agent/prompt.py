"""The system prompt, split for the prompt cache.

``stable_system_prompt`` must be byte-identical from turn to turn (and across
a resume): it depends only on the workspace path and the instructions.
``environment_suffix`` carries what changes (date, git branch) and is sent
after the cached prefix, followed by the permission mode's instructions (the
runner adds those per request, so switching modes mid-session works and keeps
the cache).
"""

from __future__ import annotations

import datetime as _dt
import platform
import subprocess
from pathlib import Path

_BASE = """You are PseudoClaude, a coding agent working in the user's workspace through tools.

How to work:
- Read before you change: inspect files with read_file, find them with glob and grep.
- Make focused changes with edit_file (exact replacement) or write_file; keep the user's style.
- Run commands with run_command (tests, builds, git); read their output before claiming success.
- When a tool result says content was offloaded to a file, read that file (with offset and limit) instead of guessing.
- Paths are relative to the workspace root unless absolute. Never touch files outside the workspace.
- Be concise. When the task is done, say what you changed and how you verified it."""


def stable_system_prompt(workspace: Path, instructions: str = "") -> str:
    parts = [_BASE, f"Workspace root: {workspace}"]
    if instructions.strip():
        parts.append(instructions.strip())
    return "\n\n".join(parts)


def environment_suffix(workspace: Path, today: _dt.date | None = None) -> str:
    """Facts that change between sessions; kept out of the cached prefix."""
    day = (today or _dt.date.today()).isoformat()
    lines = [f"Today's date: {day}", f"Platform: {platform.system().lower()}"]
    branch = _git_branch(workspace)
    if branch:
        lines.append(f"Git branch: {branch}")
    return "\n".join(lines)


def _git_branch(workspace: Path) -> str | None:
    if not (workspace / ".git").exists():
        return None
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--abbrev-ref", "HEAD"], cwd=workspace, capture_output=True, text=True, timeout=2, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None
