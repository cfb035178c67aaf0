"""Claude Code's headless protocol and the headless printer: ``-p``'s output formats, stream-json both ways, its flags.

Nothing here draws on a terminal: scripts and the Agent SDK read these lines,
so this package sits beside ``tui`` (which it never imports) under the CLI.
Every name loads on first use through ``__getattr__``, so ``pseudoclaude
--help`` pays for none of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pseudoclaude.lazy import lazy_getattr

if TYPE_CHECKING:
    from pseudoclaude.headless.catalog import SlashCommand, slash_commands
    from pseudoclaude.headless.driver import ControlChannel, StdioApprover, StreamDriver
    from pseudoclaude.headless.flags import ClaudeFlags, agents_value, refused_flag, split_tool_rules, with_claude_flags
    from pseudoclaude.headless.printer import print_events
    from pseudoclaude.headless.run import print_claude
    from pseudoclaude.headless.stream import ClaudeStream, HeadlessOptions
    from pseudoclaude.headless.wire import Write, error_result, json_line_writer

_LAZY = {
    "SlashCommand": "catalog",
    "slash_commands": "catalog",
    "agents_value": "flags",
    "refused_flag": "flags",
    "ClaudeFlags": "flags",
    "split_tool_rules": "flags",
    "with_claude_flags": "flags",
    "ClaudeStream": "stream",
    "ControlChannel": "driver",
    "HeadlessOptions": "stream",
    "StdioApprover": "driver",
    "StreamDriver": "driver",
    "error_result": "wire",
    "json_line_writer": "wire",
    "Write": "wire",
    "print_claude": "run",
    "print_events": "printer",
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
    "Write",
    "print_claude",
    "print_events",
]
