"""Checkpoints and rewinds as the session file records them.

A ``checkpoint`` entry is written before every file edit: ``path`` (absolute),
``existed`` (False: the edit created the file) and ``blob`` (the file's
previous content under the session's ``checkpoints/`` folder, named by its
SHA-256, so an unchanged file is stored once), with ``turn`` (the model call
it belongs to). A ``rewind`` entry cuts the conversation back to its first
``messages`` recorded messages; ``files`` says whether the files were
restored too. The file is never rewritten: replay applies the entries in order.

Where a checkpoint sits in the conversation is where its entry sits in the
file: its ``position`` is the number of messages recorded before it (after
earlier rewinds), so "before the user message at index i" is every checkpoint
with a position above i. A rewind of the conversation alone keeps the
checkpoints of the turns it drops (their edits are still on disk), moved to
the cut, so an earlier rewind can still undo them; a rewind that restored the
files consumes them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Mapping

from pseudoclaude.session.writer import write_private_file

CHECKPOINT_DIR = "checkpoints"


@dataclass(frozen=True)
class Checkpoint:
    """A file as it was before an edit: ``blob`` is the saved content's path ("" when the file did not exist)."""

    path: str
    blob: str
    position: int
    turn: int = 0

    @property
    def existed(self) -> bool:
        return bool(self.blob)

    def content(self) -> bytes | None:
        """The saved content (None: the file did not exist); ``OSError`` when the blob is gone."""
        return Path(self.blob).read_bytes() if self.blob else None


def checkpoint_from_entry(entry: Mapping[str, Any], folder: Path, position: int) -> Checkpoint:
    blob = str(entry.get("blob") or "")
    if blob and not Path(blob).is_absolute():
        blob = str(folder / blob)
    if entry.get("existed") is False:
        blob = ""
    return Checkpoint(str(entry["path"]), blob, position, int(entry.get("turn") or 0))


def rewind_checkpoints(checkpoints: list[Checkpoint], messages: int, files: bool) -> list[Checkpoint]:
    """The checkpoints left after a rewind to ``messages`` (see the module docstring)."""
    if files:
        return [c for c in checkpoints if c.position <= messages]
    return [c if c.position <= messages else replace(c, position=messages) for c in checkpoints]


def save_blob(folder: Path, content: bytes) -> str:
    """Keep ``content`` under ``<folder>/checkpoints/`` (0600, folder 0700); its path relative to ``folder``."""
    directory = folder / CHECKPOINT_DIR
    directory.mkdir(mode=0o700, exist_ok=True)
    name = hashlib.sha256(content).hexdigest()
    path = directory / name
    if not path.exists():
        write_private_file(path, content)
    return f"{CHECKPOINT_DIR}/{name}"
