"""What a local server said its window is, remembered in the home per base URL and model.

Finding out takes up to five requests in five dialects (``probe``), some of
which a server does not answer at all; the answer and the dialect that gave
it are kept in ``$PSEUDOCLAUDE_HOME/probe-cache.json`` for ``CACHE_TTL_S``.
Within that time a run asks only the dialect that answered (one or two
requests): the same answer means the entry holds; a different one, or none,
means the server changed (another model loaded, a new ``num_ctx``), and every
dialect is asked again. ``doctor`` always asks afresh (``refresh``).

The file itself (read leniently, written atomically, bounded) is ``home_cache``'s.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path

from pseudoclaude.llm.home_cache import entry_key, home_file, read_entries, write_entry
from pseudoclaude.llm.window_probe import WindowProbe

CACHE_FILE = "probe-cache.json"
CACHE_TTL_S = 24 * 3600.0


def cache_path() -> Path:
    return home_file(CACHE_FILE)


def cached(path: Path, base_url: str, model: str, *, now: float | None = None) -> tuple[str, WindowProbe] | None:
    """The dialect that answered and its answer, when recorded less than ``CACHE_TTL_S`` ago."""
    entry = read_entries(path).get(entry_key(base_url, model))
    if not isinstance(entry, dict):
        return None
    try:
        if (time.time() if now is None else now) - float(entry["at"]) > CACHE_TTL_S:
            return None
        answer = entry["answer"]
        probe = WindowProbe(
            tokens=int(answer["tokens"]),
            source=str(answer["source"]),
            notice=answer.get("notice"),
            tools=answer.get("tools"),
            server=str(answer.get("server", "")),
        )
        return str(entry["dialect"]), probe
    except (KeyError, TypeError, ValueError):
        return None


def remember(path: Path, base_url: str, model: str, dialect: str | None, probe: WindowProbe | None) -> None:
    """Record (or, with no answer, forget) what the server said; a failure to write is no failure of the run."""
    entry = {"at": time.time(), "dialect": dialect, "answer": asdict(probe)} if probe is not None and dialect is not None else None
    write_entry(path, entry_key(base_url, model), entry)
