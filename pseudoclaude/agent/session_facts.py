"""The session facts a resume puts back (``session/facts.py``): read stamps, the effort, the permission mode.

A resumed session is the same session: a file it read may be edited without
reading it again (its stamp is still compared with the disk, so a file changed
since must be read again), and it goes on with the ``/effort`` and the mode the
user chose in it. An explicit ``--effort`` / ``--permission-mode`` on the
resuming command line wins, as ``--model`` wins over a recorded ``/model``.

A recorded ``bypass`` is not restored on its own: skipping every question is
granted by a flag of the process that skips them (``--dangerously-skip-permissions``
or ``--permission-mode bypass``), never by a line in a file; the resume warns
and goes on in the mode the settings give.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Callable, Protocol

from pseudoclaude.config import Settings
from pseudoclaude.llm import EFFORTS
from pseudoclaude.session import ReadStamp, Replay
from pseudoclaude.tools import FileStamp
from pseudoclaude.tools.permissions import PermissionMode

_COMMAND_LINE = "command line"


class StampStore(Protocol):
    closed: bool

    def append_file_stamp(self, stamp: ReadStamp) -> None: ...


def _from_command_line(settings: Settings, name: str) -> bool:
    origin = settings.origins.get(name)
    return origin is not None and origin.source.startswith(_COMMAND_LINE)


def with_recorded_choices(settings: Settings, replay: Replay | None) -> tuple[Settings, Replay | None]:
    """``settings`` with the effort and permission mode the resumed session recorded last (unless the command line set them)."""
    if replay is None:
        return settings, replay
    warnings: list[str] = []
    if replay.effort_recorded and not _from_command_line(settings, "effort"):
        if replay.effort is None or replay.effort in EFFORTS:
            settings = dataclasses.replace(settings, effort=replay.effort)
        else:
            warnings.append(f"this session recorded an unknown effort {replay.effort!r}; going on with {settings.effort or 'the default'}")
    if replay.mode and replay.mode != settings.permission_mode and not _from_command_line(settings, "permission_mode"):
        try:
            mode = PermissionMode.parse(replay.mode)
        except ValueError:
            warnings.append(f"this session recorded an unknown permission mode {replay.mode!r}; going on in {settings.permission_mode}")
        else:
            if mode is PermissionMode.BYPASS:
                warnings.append(
                    f"this session was in bypass mode; it resumes in {settings.permission_mode} "
                    "(pass --dangerously-skip-permissions to go on skipping every question)"
                )
            else:
                settings = dataclasses.replace(settings, permission_mode=mode.value)
    if warnings:
        replay = dataclasses.replace(replay, warnings=(*replay.warnings, *warnings))
    return settings, replay


def replayed_stamps(replay: Replay | None) -> dict[Path, FileStamp]:
    """The stamps of the files the resumed session had read or written, as the edit tools keep them."""
    if replay is None:
        return {}
    return {Path(s.path): FileStamp(mtime_ns=s.mtime_ns, size=s.size, sha256=s.sha256) for s in replay.read_stamps}


def stamp_recorder(store: StampStore) -> Callable[[Path, FileStamp], None]:
    """The ``ToolContext.stamp_sink`` that records each new stamp in the session (a read that ends after the close records nothing)."""

    def record(path: Path, stamp: FileStamp) -> None:
        if not store.closed:
            store.append_file_stamp(ReadStamp(str(path), stamp.mtime_ns, stamp.size, stamp.sha256))

    return record
