"""Cross-session memory: markdown files of facts under the PseudoClaude home.

Two stores: per project, ``<home>/projects/<workspace key>/MEMORY.md`` (the key is
the sessions' ``workspace_key``, so two checkouts never share one), and per user,
``<home>/MEMORY.md``. A fact is one bullet line, appended (``O_APPEND``, one
``write``), so concurrent sessions cannot interleave half lines; a fact already
in the file is not added twice. The user may edit the files freely.

The text injected into the system prompt is a snapshot taken at session start:
facts saved during the session reach the prompt of the next session (the saving
tool result already tells the model), so the cached prompt prefix never changes
mid-session. The same snapshot is given to the Layer 2 summary prompt as context.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from pseudoclaude.tools import MemoryScope as MemoryScope

MEMORY_SCOPES: tuple[MemoryScope, ...] = ("user", "project")
MEMORY_FILENAME = "MEMORY.md"
MAX_FACT_CHARS = 2_000
MAX_INJECTED_CHARS = 20_000

_FILE_HEADERS: dict[MemoryScope, str] = {
    "user": "# PseudoClaude memory (user: all projects)\n\n",
    "project": "# PseudoClaude memory (project: {workspace})\n\n",
}

MEMORY_HEADER = (
    "# Memory\n\n"
    "Facts saved in earlier sessions (by the user, or with the remember tool when the user asked). "
    "Treat them as true unless the user says otherwise."
)


class FactRejected(ValueError):
    """A fact that cannot be saved (empty, or an unknown scope)."""


@dataclass(frozen=True)
class MemoryFile:
    scope: MemoryScope
    path: Path
    size: int

    @property
    def exists(self) -> bool:
        return self.size > 0 or self.path.is_file()


@dataclass(frozen=True)
class SavedFact:
    """Where a fact went; ``added`` is False when the file already held it."""

    scope: MemoryScope
    path: Path
    line: str
    added: bool


class MemoryStore:
    """The memory files of one workspace and one user (``home`` = the PseudoClaude home)."""

    def __init__(self, home: Path, workspace: Path) -> None:
        from pseudoclaude.session import workspace_key

        self.home = home
        self.workspace = workspace
        self._project = home / "projects" / workspace_key(workspace) / MEMORY_FILENAME
        self._user = home / MEMORY_FILENAME

    def path(self, scope: MemoryScope) -> Path:
        if scope == "project":
            return self._project
        if scope == "user":
            return self._user
        raise FactRejected(f"unknown memory scope {scope!r}: use 'project' or 'user'")

    def files(self) -> tuple[MemoryFile, ...]:
        """Both files, user first (a missing file has size 0)."""
        return tuple(MemoryFile(scope, self.path(scope), _size(self.path(scope))) for scope in MEMORY_SCOPES)

    def save(self, text: str, scope: MemoryScope = "project") -> SavedFact:
        """Append ``text`` as one bullet to the ``scope`` file (created with its folder when missing)."""
        fact = " ".join(text.split())
        if not fact:
            raise FactRejected("there is nothing to remember: the fact is empty")
        if len(fact) > MAX_FACT_CHARS:
            raise FactRejected(f"a fact may be at most {MAX_FACT_CHARS} characters; save a shorter one")
        path = self.path(scope)
        line = f"- {fact}"
        _create(path, _FILE_HEADERS[scope].format(workspace=self.workspace))
        existing = path.read_text(encoding="utf-8", errors="replace")
        if line in existing.splitlines():
            return SavedFact(scope, path, line, added=False)
        prefix = "" if existing.endswith("\n") or not existing else "\n"
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        try:
            os.write(fd, f"{prefix}{line}\n".encode("utf-8"))
        finally:
            os.close(fd)
        return SavedFact(scope, path, line, added=True)

    def snapshot(self) -> str:
        """The memory section for the system prompt ("" when both files are empty)."""
        sections: list[str] = []
        for scope in MEMORY_SCOPES:
            path = self.path(scope)
            body = _read(path).strip()
            if not body or body == _FILE_HEADERS[scope].format(workspace=self.workspace).strip():
                continue
            if len(body) > MAX_INJECTED_CHARS:
                body = "[... earlier entries omitted ...]\n" + body[-MAX_INJECTED_CHARS:]
            label = "User memory, all projects" if scope == "user" else "Project memory"
            sections.append(f"## {label} ({path})\n\n{body}")
        return "\n\n".join([MEMORY_HEADER, *sections]) if sections else ""


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _create(path: Path, header: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    try:
        os.write(fd, header.encode("utf-8"))
    finally:
        os.close(fd)
