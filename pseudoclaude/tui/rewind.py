"""``/rewind`` (and Esc Esc on an empty prompt): go back to before one of the user's messages.

The picker lists the user's messages, newest first; then what to restore:
the conversation and the files, the conversation only, or the files only.
Files come back from the checkpoints taken before every ``edit_file`` /
``write_file`` (a file the session created is removed). The conversation is
rewound by appending a ``rewind`` entry and resuming the session, so the
session file is never rewritten and a later ``--resume`` sees the same
conversation. Side effects of commands (``run_command``, ``!cmd``: installs,
deleted files, commits) are not undone; the picker says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from pseudoclaude.textsafe import for_terminal

if TYPE_CHECKING:
    from pseudoclaude.tui.repl import Repl

CHOICES = (
    ("both", "Restore the conversation and the files"),
    ("conversation", "Restore the conversation only (files stay as they are)"),
    ("files", "Restore the files only (the conversation goes on)"),
)
NOT_UNDONE = "Commands' side effects (run_command, !cmd) are not undone; only edit_file / write_file edits are."


async def rewind_command(repl: Repl, arg: str) -> bool:
    from pseudoclaude.agent import restore_files, rewind_session, user_turns
    from pseudoclaude.tui.picker import PickItem, pick

    agent = repl.agent
    if agent is None:
        repl.console.print("[dim]Nothing to rewind yet.[/]")
        return False
    session_id = agent.session_id
    turns = list(reversed(user_turns(repl.settings, session_id)))
    if not turns:
        repl.console.print("[dim]Nothing to rewind yet.[/]")
        return False
    items = [PickItem(" ".join(turn.text.split())[:200], f"message {len(turns) - number}") for number, turn in enumerate(turns)]
    chosen = await pick(items, title="Rewind to before which message? (newest first)")
    if chosen is None:
        return False
    what = await pick([PickItem(label) for _, label in CHOICES], title=f"What to restore? {NOT_UNDONE}")
    if what is None:
        return False
    turn, mode = turns[chosen], CHOICES[what][0]
    if mode == "files":
        restored = restore_files(repl.settings, session_id, turn.index)
    else:
        await repl.close_agent()
        restored = rewind_session(repl.settings, session_id, turn.index, files=mode == "both")
        if not await repl.open_agent(resume_id=session_id):
            return False
    for item in restored:
        style = "red" if item.action.startswith("cannot") else "magenta"
        repl.console.print(Text(f"  {item.action} ", style=style) + Text(for_terminal(item.path)))
    done = {"both": "conversation and files", "conversation": "conversation", "files": "files"}[mode]
    repl.console.print(Text(f"Rewound the {done} to before: ", style="magenta") + Text(for_terminal(" ".join(turn.text.split())[:120])))
    repl.console.print(Text(NOT_UNDONE, style="dim"))
    return False
