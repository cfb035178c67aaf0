"""What a local server said its window is, remembered in the home per base URL and model.

Finding out takes up to five requests in five dialects (``probe``), some of
which a server does not answer at all; the answer and the dialect that gave
it are kept in ``$PSEUDOCLAUDE_HOME/probe-cache.json`` for ``CACHE_TTL_S``.
Within that time a run asks only the dialect that answered (one or two
requests): the same answer means the entry holds; a different one, or none,
means the server changed (another model loaded, a new ``num_ctx``), and every
dialect is asked again. ``doctor`` always asks afresh (``refresh``).

The file is a convenience, never trusted for more: unreadable, malformed or
foreign-shaped content is ignored and rewritten; writes go through a
temporary file and a rename, so two runs at once leave one whole file.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from pseudoclaude.llm.probe import WindowProbe

CACHE_FILE = "probe-cache.json"
CACHE_TTL_S = 24 * 3600.0
MAX_ENTRIES = 64


def cache_path() -> Path:
    """The cache file in the home: ``config.pseudoclaude_home``'s rule, restated (``llm`` imports nothing above it)."""
    return Path(os.environ.get("PSEUDOCLAUDE_HOME") or Path.home() / ".pseudoclaude").expanduser() / CACHE_FILE


def _key(base_url: str, model: str) -> str:
    return f"{base_url.rstrip('/')} {model}"


def _entries(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def cached(path: Path, base_url: str, model: str, *, now: float | None = None) -> tuple[str, WindowProbe] | None:
    """The dialect that answered and its answer, when recorded less than ``CACHE_TTL_S`` ago."""
    entry = _entries(path).get(_key(base_url, model))
    if not isinstance(entry, dict):
        return None
    try:
        if (time.time() if now is None else now) - float(entry["at"]) > CACHE_TTL_S:
            return None
        answer = entry["answer"]
        probe = WindowProbe(
            tokens=int(answer["tokens"]), source=str(answer["source"]), notice=answer.get("notice"),
            tools=answer.get("tools"), server=str(answer.get("server", "")),
        )
        return str(entry["dialect"]), probe
    except (KeyError, TypeError, ValueError):
        return None


def remember(path: Path, base_url: str, model: str, dialect: str | None, probe: WindowProbe | None) -> None:
    """Record (or, with no answer, forget) what the server said; a failure to write is no failure of the run."""
    entries = _entries(path)
    key = _key(base_url, model)
    entries.pop(key, None)
    if probe is not None and dialect is not None:
        entries[key] = {"at": time.time(), "dialect": dialect, "answer": asdict(probe)}
    while len(entries) > MAX_ENTRIES:
        entries.pop(next(iter(entries)))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=".probe-cache.", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(entries, f)
        os.replace(temporary, path)
    except OSError:
        pass
