"""A small JSON file in the home that remembers what a server said, per base URL and model.

The probe cache (``probe_cache``) and the model facts (``model_facts_cache``)
keep one such file each; what an entry holds and how long it counts is theirs,
the file is this module's. It is a convenience, never trusted for more:
unreadable, malformed or foreign-shaped content reads as empty and is
rewritten; a write goes through a temporary file and a rename, so two runs at
once leave one whole file, and keeps the newest ``MAX_ENTRIES`` entries.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

MAX_ENTRIES = 64


def home_file(name: str) -> Path:
    """``name`` in the home: ``config.pseudoclaude_home``'s rule, restated (``llm`` imports nothing above it)."""
    return Path(os.environ.get("PSEUDOCLAUDE_HOME") or Path.home() / ".pseudoclaude").expanduser() / name


def entry_key(base_url: str, model: str) -> str:
    return f"{base_url.rstrip('/')} {model}"


def read_entries(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_entry(path: Path, key: str, entry: Any | None) -> None:
    """Set (``None``: remove) one entry, the newest last; a failure to write is no failure of the run."""
    entries = read_entries(path)
    entries.pop(key, None)
    if entry is not None:
        entries[key] = entry
    while len(entries) > MAX_ENTRIES:
        entries.pop(next(iter(entries)))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=f".{path.stem}.", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(entries, f)
        os.replace(temporary, path)
    except OSError:
        pass
