"""Listing a workspace's sessions cheaply, without a full replay.

Listing must stay fast with many large sessions, so it does not parse every
line: the header keys come first on every line and structural JSON cannot
occur inside a JSON string (its quotes would be escaped), so user turns are
counted with a byte search for ``"message":{"role":"user"`` and only the
first line (meta) and the last ``title`` line are parsed. Counts are therefore
those of the well-formed lines plus, at worst, a torn one.
"""

from __future__ import annotations

import codecs
import json
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pseudoclaude.session import format as fmt
from pseudoclaude.session.errors import SessionNotFound
from pseudoclaude.session.naming import is_session_id
from pseudoclaude.session.reader import JSONL_NAME
from pseudoclaude.session.store import workspace_folder

_USER_TURN = b'"message":{"role":"user"'
_TITLE_LINE = b'{"type":"title",'


@dataclass(frozen=True)
class SessionInfo:
    id: str
    title: str
    created: datetime
    updated: datetime
    turns: int
    size_bytes: int
    model: str = ""
    folder: Path | None = None
    cwd: str = ""


def list_sessions(sessions_dir: Path, workspace: Path) -> list[SessionInfo]:
    """This workspace's sessions, most recently updated first."""
    parent = workspace_folder(sessions_dir, workspace)
    try:
        names = os.listdir(parent)
    except FileNotFoundError:
        return []
    infos = []
    for name in names:
        if not is_session_id(name):
            continue
        info = session_info(parent / name)
        if info is not None:
            infos.append(info)
    infos.sort(key=lambda i: (i.updated, i.id), reverse=True)
    return infos


def list_all_sessions(sessions_dir: Path) -> list[SessionInfo]:
    """Every workspace's sessions (``sessions list --all``), most recently updated first; ``cwd`` says whose."""
    try:
        folders = [Path(sessions_dir) / name for name in os.listdir(sessions_dir)]
    except (FileNotFoundError, NotADirectoryError):
        return []
    infos: list[SessionInfo] = []
    for parent in folders:
        try:
            names = os.listdir(parent)
        except OSError:
            continue
        infos.extend(info for name in names if is_session_id(name) and (info := session_info(parent / name)) is not None)
    infos.sort(key=lambda i: (i.updated, i.id), reverse=True)
    return infos


def latest_session_id(sessions_dir: Path, workspace: Path) -> str | None:
    """The session with the most recent activity (what ``--continue`` resumes)."""
    infos = list_sessions(sessions_dir, workspace)
    return infos[0].id if infos else None


def resolve_session_id(sessions_dir: Path, workspace: Path, text: str) -> str:
    """A full id, or a unique prefix of one (``--resume 20261129-2315``)."""
    ids = sorted(i.id for i in list_sessions(sessions_dir, workspace))
    if text in ids:
        return text
    matches = [i for i in ids if i.startswith(text)] if text else []
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise SessionNotFound(f"{text!r} matches {len(matches)} sessions: {', '.join(matches[:5])}")
    raise SessionNotFound(f"no session {text!r} in this workspace")


def session_info(folder: Path) -> SessionInfo | None:
    path = folder / JSONL_NAME
    try:
        stat = path.stat()
        data = path.read_bytes().removeprefix(codecs.BOM_UTF8)
    except OSError:
        return None
    meta = _parse_line(data[: data.find(b"\n")] if b"\n" in data else data)
    title_at = data.rfind(b"\n" + _TITLE_LINE)
    title_entry = _parse_line(data[title_at + 1 : data.find(b"\n", title_at + 1)]) if title_at >= 0 else {}
    if not title_entry and data.startswith(_TITLE_LINE):
        title_entry = _parse_line(data[: data.find(b"\n")])
    created = fmt.parse_ts(meta.get("created")) if meta.get("type") == fmt.META else _id_time(folder.name)
    return SessionInfo(
        id=folder.name,
        title=str(title_entry.get("title", "")),
        created=created,
        updated=datetime.fromtimestamp(stat.st_mtime, timezone.utc),
        turns=data.count(_USER_TURN),
        size_bytes=stat.st_size,
        model=str(meta.get("model", "")),
        folder=folder,
        cwd=str(meta.get("cwd", "")),
    )


def _parse_line(line: bytes) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _id_time(session_id: str) -> datetime:
    return datetime.strptime(session_id[:15], "%Y%m%d-%H%M%S").replace(tzinfo=timezone.utc)
