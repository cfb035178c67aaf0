"""What a typed message becomes before it is sent.

``@path`` mentions of existing workspace files attach their content, within
the budget of one file read (``tui/attach.py``); output of ``!command`` runs
is prepended as context, once.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

_MENTION = re.compile(r"(?<![\w`])@([\w./~-][^\s`'\"]*)")


def mentioned_files(text: str, workspace: Path) -> list[str]:
    """The ``@path`` mentions in ``text`` that name files inside ``workspace``, in order, once each."""
    root = workspace.resolve()
    found: list[str] = []
    for match in _MENTION.finditer(text):
        name = match.group(1).rstrip(".,;:!?)")
        path = (root / name).resolve()
        if path.is_file() and path.is_relative_to(root):
            shown = path.relative_to(root).as_posix()
            if shown not in found:
                found.append(shown)
    return found


def build_prompt(text: str, workspace: Path, shell_context: Sequence[str] = (), *, page_bytes: int) -> str:
    """The message to send: shell context first, the user's text, then the attached files.

    The files share ``page_bytes``, one file read's budget (``AgentStatus.read_page_bytes``).
    """
    parts = list(shell_context)
    parts.append(text)
    files = mentioned_files(text, workspace)
    if files:
        from pseudoclaude.tui.attach import attach_files, attachments_text

        parts.append(attachments_text(attach_files(files, workspace, page_bytes)))
    return "\n\n".join(parts)


def shell_context(command: str, output: str, limit: int = 8000) -> str:
    """How a ``!command`` run is shown to the model in the next message."""
    if len(output) > limit:
        output = output[: limit // 2] + "\n[... output cut ...]\n" + output[-limit // 2 :]
    return f"I ran this shell command myself:\n$ {command}\n```\n{output.rstrip()}\n```"
