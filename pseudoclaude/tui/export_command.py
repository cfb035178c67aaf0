"""``/export [--format md|json] [file]``: the conversation written to a file, as Claude Code's ``/export`` does.

The document comes from the session file (``session/export.py``), not from the
screen, so it holds what was recorded: every message, each tool call with its
arguments and (shortened, in Markdown) result, and where the conversation was
compacted. Without a file name it goes to ``<session id>.md`` (or ``.json``) in
the workspace; a name ending in ``.json`` chooses JSON. The line printed says
where it went.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from pseudoclaude.textsafe import for_terminal

if TYPE_CHECKING:
    from pseudoclaude.session import ExportFormat
    from pseudoclaude.tui.command_context import CommandContext

USAGE = "Usage: /export [--format md|json] [file]"


def parse_export_args(arg: str) -> tuple[ExportFormat | None, str] | str:
    """(format or None when not given, file or "") from the argument text; a message when it is not valid."""
    try:
        words = shlex.split(arg)
    except ValueError as error:
        return f"{error}. {USAGE}"
    chosen: ExportFormat | None = None
    names: list[str] = []
    while words:
        word = words.pop(0)
        if word == "--format" or word.startswith("--format="):
            value = word.partition("=")[2] if "=" in word else (words.pop(0) if words else "")
            if value not in ("md", "json"):
                return f"unknown format {value!r}: choose md or json. {USAGE}"
            chosen = "json" if value == "json" else "md"
        elif word.startswith("--"):
            return f"unknown option {word}. {USAGE}"
        else:
            names.append(word)
    if len(names) > 1:
        return f"one file name at most. {USAGE}"
    return chosen, names[0] if names else ""


async def export_command(repl: CommandContext, arg: str) -> bool:
    from pseudoclaude.session import SessionError, default_export_name, export_session, load_replay, session_folder, write_export

    parsed = parse_export_args(arg)
    if isinstance(parsed, str):
        repl.console.print(Text(f"✗ {parsed}", style="red"))
        return False
    chosen, name = parsed
    if repl.agent is None:
        repl.console.print("[dim]Nothing to export yet: no conversation in this session.[/]")
        return False
    export_format: ExportFormat = chosen or ("json" if name.lower().endswith(".json") else "md")
    settings, session_id = repl.settings, repl.agent.facts.session_id
    try:
        replay = load_replay(session_folder(settings.sessions_dir, settings.workspace, session_id))
    except SessionError as error:
        repl.console.print(Text(f"✗ cannot read this session: {error}", style="red"))
        return False
    if not replay.transcript:
        repl.console.print("[dim]Nothing to export yet: no conversation in this session.[/]")
        return False
    target = Path(name).expanduser() if name else Path(default_export_name(session_id, export_format))
    target = target if target.is_absolute() else settings.workspace / target
    try:
        written = write_export(export_session(replay, export_format), target)
    except OSError as error:
        repl.console.print(Text(f"✗ cannot write {for_terminal(str(target))}: {error.strerror or error}", style="red"))
        return False
    kind = "JSON" if export_format == "json" else "Markdown"
    count = len(replay.transcript)
    repl.console.print(Text(f"Exported the conversation ({count} message{'' if count == 1 else 's'}, {kind}) to {for_terminal(str(written))}"))
    return False
