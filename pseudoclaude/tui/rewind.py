"""``/rewind`` (and Esc Esc on an empty prompt): go back to before one of the user's messages.

The picker lists the user's messages, newest first; then what to restore:
the conversation and the files, the conversation only, or the files only.
Files come back from the checkpoints taken before every ``edit_file`` /
``write_file`` (a file the session created is removed). The conversation is
rewound by appending a ``rewind`` entry and resuming the session, so the
session file is never rewritten and a later ``--resume`` sees the same
conversation. Side effects of commands (``run_command``, ``!cmd``: installs,
deleted files, commits) are not undone; the picker says so. The question
names the message and the files a restore puts back (with the lines changed
since); after a rewind of the conversation the message is back in the input,
to edit and send again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from rich.text import Text

from pseudoclaude.textsafe import for_terminal

if TYPE_CHECKING:
    from pseudoclaude.agent import FileChange, UserTurn
    from pseudoclaude.tui.picker import PickItem
    from pseudoclaude.tui.command_context import CommandContext

CHOICES = (
    ("both", "Restore the conversation and the files"),
    ("conversation", "Restore the conversation only (files stay as they are)"),
    ("files", "Restore the files only (the conversation goes on)"),
)
NOT_UNDONE = "Commands' side effects (run_command, !cmd) are not undone; only edit_file / write_file edits are."
SHORT = 60


def shortened(text: str, limit: int = SHORT) -> str:
    """A message on one line, cut to ``limit`` characters."""
    line = for_terminal(" ".join(text.split()))
    return line if len(line) <= limit else line[: limit - 1] + "…"


def file_list(changes: Sequence[FileChange]) -> str:
    """``app.py +1/-1, new.txt +1/-0``: the files a restore puts back, with the lines changed since the message."""
    return ", ".join(f"{for_terminal(change.path)} +{change.added}/-{change.removed}" for change in changes) or "no file edited since"


def restore_question(turn: UserTurn) -> str:
    return f'What to restore, rewinding to before "{shortened(turn.text)}"?'


def choice_items(changes: Sequence[FileChange]) -> list[PickItem]:
    """The three ways to rewind; the two that touch files name them."""
    from pseudoclaude.tui.picker import PickItem

    files = file_list(changes)
    return [PickItem(label, files if mode != "conversation" else "") for mode, label in CHOICES]


async def rewind_command(repl: CommandContext, arg: str) -> bool:
    from pseudoclaude.agent import restore_files, rewind_session, session_changes, user_turns
    from pseudoclaude.tui.picker import PickItem, pick

    agent = repl.agent
    if agent is None:
        repl.console.print("[dim]Nothing to rewind yet.[/]")
        return False
    session_id = agent.facts.session_id
    turns = list(reversed(user_turns(repl.settings, session_id)))
    if not turns:
        repl.console.print("[dim]Nothing to rewind yet.[/]")
        return False
    items = [PickItem(" ".join(turn.text.split())[:200], f"message {len(turns) - number}") for number, turn in enumerate(turns)]
    chosen = await pick(items, title="Rewind to before which message? (newest first)")
    if chosen is None:
        return False
    turn = turns[chosen]
    changes = session_changes(repl.settings, session_id, since=turn.index)
    repl.console.print(Text("Files a restore puts back: ", style="magenta") + Text(file_list(changes)))
    repl.console.print(Text(NOT_UNDONE, style="dim"))
    what = await pick(choice_items(changes), title=restore_question(turn))
    if what is None:
        return False
    mode = CHOICES[what][0]
    if mode == "files":
        restored = restore_files(repl.settings, session_id, turn.index)
    else:
        await repl.close_agent()
        restored = rewind_session(repl.settings, session_id, turn.index, files=mode == "both")
        if not await repl.open_agent(resume_id=session_id):
            return False
        repl.draft = turn.text
    for item in restored:
        style = "red" if item.action.startswith("cannot") else "magenta"
        repl.console.print(Text(f"  {item.action} ", style=style) + Text(for_terminal(item.path)))
    done = {"both": "conversation and files", "conversation": "conversation", "files": "files"}[mode]
    repl.console.print(Text(f"Rewound the {done} to before: ", style="magenta") + Text(shortened(turn.text, 120)))
    if mode != "files":
        repl.console.print(Text("The message is back in the input: edit it and press Enter, or clear it.", style="dim"))
    return False
