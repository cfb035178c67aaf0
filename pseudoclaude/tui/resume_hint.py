"""The line printed when the REPL exits: how to come back to this session (Codex prints one too)."""

from __future__ import annotations


def resume_hint(session_id: str | None) -> str:
    """The command that resumes ``session_id``; a plain goodbye when no session was recorded."""
    if not session_id:
        return "Bye."
    return f"Resume this session with: pseudoclaude --resume {session_id}"
