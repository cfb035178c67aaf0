"""``pseudoclaude acp``: the Agent Client Protocol on stdio, for Zed, JetBrains and the Neovim/Emacs clients.

The face stays cheap: the ACP SDK loads only when the server starts
(``serve_acp``), so the rest of the program never imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pseudoclaude.lazy import lazy_getattr

if TYPE_CHECKING:
    from pseudoclaude.acp.server import AcpOptions, serve_acp

_LAZY = {"AcpOptions": "server", "serve_acp": "server"}

if not TYPE_CHECKING:
    __getattr__ = lazy_getattr(__name__, _LAZY)

__all__ = ["AcpOptions", "serve_acp"]
