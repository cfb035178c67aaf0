"""The one-time question of a folder whose project settings want more than the user gave.

Asked before the REPL starts, in plain lines (no prompt-toolkit yet), only on a
terminal and only for entries never answered in this folder; the answer is
recorded in the user's trust file (``pseudoclaude.trust.TrustStore``), so the
question comes back only when an entry is added or edited. Without a terminal,
or after "no", the entries stay out of the session and one line says so.
"""

from __future__ import annotations

import sys
from typing import Callable, TextIO

from pseudoclaude.config import Settings
from pseudoclaude.trust import TrustEntry, TrustStore, WorkspaceTrust, visible

YES = frozenset({"y", "yes"})


def settle_workspace_trust(
    settings: Settings, reload: Callable[[bool], Settings], *, stdin: TextIO | None = None, out: TextIO | None = None, always_ask: bool = False
) -> Settings:
    """Show the trust notices, ask about unanswered entries when a person is there, and return the settings to use.

    ``reload(trust_all)`` reads the settings again after a "yes", so the approved entries take
    effect; ``trust_all`` is True when the answer could not be saved (it then holds for this run).
    ``always_ask`` (``pseudoclaude trust``): ask about every ignored entry, answered before or not.
    """
    stdin = sys.stdin if stdin is None else stdin
    out = sys.stdout if out is None else out
    trust = settings.trust
    asked = trust.ignored if always_ask else trust.pending
    if asked and stdin.isatty():
        trusted = _ask(trust, asked, stdin, out)
        saved = _save(settings, asked, trusted, out)
        if trusted:
            count = len(asked)
            out.write(f"✓ trusted: {count} project setting{'s' if count != 1 else ''} of this folder now apply\n\n")
            settings = reload(not saved)
            _notices(settings.trust, out)
            return settings
    _notices(trust, out)
    return settings


def _save(settings: Settings, asked: tuple[TrustEntry, ...], trusted: bool, out: TextIO) -> bool:
    """Remember the answer; a home that cannot be written costs the memory, not the session."""
    try:
        TrustStore(settings.home).record(settings.workspace, asked, trusted=trusted)
    except OSError as error:
        out.write(f"! cannot remember this answer in {visible(str(settings.home))}: {visible(str(error))} (it holds for this run)\n")
        return False
    return True


def _notices(trust: WorkspaceTrust, out: TextIO) -> None:
    ignored = trust.ignored_notice()
    for notice in (*trust.notices, *([ignored] if ignored else [])):
        out.write(f"! {notice}\n")
    out.flush()


def _ask(trust: WorkspaceTrust, entries: tuple[TrustEntry, ...], stdin: TextIO, out: TextIO) -> bool:
    folder = visible(str(trust.folder)) if trust.folder is not None else "this folder"
    lines = [
        f"The project settings of {folder} want to:",
        *(f"  • {entry.describe()}" for entry in entries),
        "These came with the folder, not from you: a hook runs a command on your machine, an allow rule",
        "or a mode skips your approval, a base URL receives your key. Until you trust them they are ignored.",
        "Trust this folder's settings? [y/N] ",
    ]
    out.write("\n".join(lines))
    out.flush()
    answer = stdin.readline()
    if not answer:
        out.write("\n")
        return False
    return answer.strip().lower() in YES
