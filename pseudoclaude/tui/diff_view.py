"""``/diff``: what this session changed in the workspace, file by file.

Built from the session's checkpoints (``agent.session_changes``): each file's
content before the session first edited it against the disk now, so later
changes by hand or by commands to those files show too, while files only
commands touched do not (they have no checkpoint). Coloured, each file's
diff bounded (``DIFF_LINES`` there), file contents through ``for_terminal``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from pseudoclaude.textsafe import for_terminal

if TYPE_CHECKING:
    from pseudoclaude.tui.command_context import CommandContext

FILE_DIFF_LINES = 80


async def diff_command(repl: CommandContext, arg: str) -> bool:
    """``/diff [path]``: every changed file, or the one named."""
    from pseudoclaude.agent import session_changes
    from pseudoclaude.tui.toolview import diff_lines

    if repl.agent is None:
        repl.console.print("[dim]No session yet: nothing was changed.[/]")
        return False
    changes = session_changes(repl.settings, repl.agent.facts.session_id)
    if arg:
        changes = [change for change in changes if change.path == arg or change.path.endswith("/" + arg)]
    if not changes:
        repl.console.print("[dim]This session's edits left no change in the workspace" + (f" for {for_terminal(arg)}." if arg else "."))
        return False
    added, removed = sum(c.added for c in changes), sum(c.removed for c in changes)
    repl.console.print(Text(f"{len(changes)} file{'s' if len(changes) != 1 else ''} changed, +{added} -{removed}", style="bold"))
    for change in changes:
        repl.console.print(Text(for_terminal(change.path), style="bold") + Text(f"  +{change.added} -{change.removed}", style="dim"))
        for line in diff_lines(change.diff, limit=FILE_DIFF_LINES):
            repl.console.print(Text("  ") + line)
    repl.console.print("[dim]From the checkpoints taken before each edit; changes made only by commands are not tracked.[/]")
    return False
