"""The terminal interface: the interactive REPL, and the printers of the headless and sessions commands.

Only ``run_repl`` is imported eagerly (it imports nothing heavy); the printers
and signal helpers ``commands.py`` uses load on first use through
``__getattr__``, and Rich and prompt-toolkit load when the REPL starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pseudoclaude.lazy import lazy_getattr
from pseudoclaude.tui.repl import run_repl
from pseudoclaude.tui.trust_prompt import settle_workspace_trust

if TYPE_CHECKING:
    from pseudoclaude.tui.sdk_catalog import SlashCommand, slash_commands
    from pseudoclaude.tui.claude_flags import agents_value, refused_flag
    from pseudoclaude.tui.headless import print_events
    from pseudoclaude.tui.prompt_images import load_image_options, vision_notice
    from pseudoclaude.tui.safeconsole import safe_console
    from pseudoclaude.tui.sessions_view import render_session_list, render_transcript
    from pseudoclaude.tui.claude_flags import ClaudeFlags, split_tool_rules, with_claude_flags
    from pseudoclaude.tui.signals import cancel_on_termination, exit_code_for
    from pseudoclaude.tui.stream_input import ControlChannel, StdioApprover, StreamDriver
    from pseudoclaude.tui.stream_json import ClaudeStream, HeadlessOptions, error_result, json_line_writer
    from pseudoclaude.tui.stream_run import print_claude

_LAZY = {
    "SlashCommand": "sdk_catalog",
    "slash_commands": "sdk_catalog",
    "agents_value": "claude_flags",
    "refused_flag": "claude_flags",
    "ClaudeFlags": "claude_flags",
    "split_tool_rules": "claude_flags",
    "with_claude_flags": "claude_flags",
    "ClaudeStream": "stream_json",
    "ControlChannel": "stream_input",
    "HeadlessOptions": "stream_json",
    "StdioApprover": "stream_input",
    "StreamDriver": "stream_input",
    "error_result": "stream_json",
    "json_line_writer": "stream_json",
    "print_claude": "stream_run",
    "cancel_on_termination": "signals",
    "exit_code_for": "signals",
    "print_events": "headless",
    "load_image_options": "prompt_images",
    "vision_notice": "prompt_images",
    "render_session_list": "sessions_view",
    "render_transcript": "sessions_view",
    "safe_console": "safeconsole",
}

if not TYPE_CHECKING:  # mypy sees the names above; a misspelt one stays an error
    __getattr__ = lazy_getattr(__name__, _LAZY)


__all__ = [
    "SlashCommand",
    "slash_commands",
    "agents_value",
    "refused_flag",
    "ClaudeFlags",
    "split_tool_rules",
    "with_claude_flags",
    "ClaudeStream",
    "ControlChannel",
    "HeadlessOptions",
    "StdioApprover",
    "StreamDriver",
    "error_result",
    "json_line_writer",
    "print_claude",
    "cancel_on_termination",
    "exit_code_for",
    "print_events",
    "load_image_options",
    "vision_notice",
    "render_session_list",
    "render_transcript",
    "run_repl",
    "settle_workspace_trust",
    "safe_console",
]
