"""The terminal interface: the interactive REPL and the printers of the sessions commands (the headless ones live in ``headless``).

Only ``run_repl`` is imported eagerly (it imports nothing heavy); the printers
``commands.py`` uses load on first use through
``__getattr__``, and Rich and prompt-toolkit load when the REPL starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pseudoclaude.lazy import lazy_getattr
from pseudoclaude.tui.repl import run_repl
from pseudoclaude.tui.trust_prompt import settle_workspace_trust

if TYPE_CHECKING:
    from pseudoclaude.tui.prompt_images import load_image_options, vision_notice
    from pseudoclaude.tui.safeconsole import safe_console
    from pseudoclaude.tui.sessions_view import render_session_list, render_transcript

_LAZY = {
    "load_image_options": "prompt_images",
    "vision_notice": "prompt_images",
    "render_session_list": "sessions_view",
    "render_transcript": "sessions_view",
    "safe_console": "safeconsole",
}

if not TYPE_CHECKING:  # mypy sees the names above; a misspelt one stays an error
    __getattr__ = lazy_getattr(__name__, _LAZY)


__all__ = [
    "load_image_options",
    "vision_notice",
    "render_session_list",
    "render_transcript",
    "run_repl",
    "settle_workspace_trust",
    "safe_console",
]
