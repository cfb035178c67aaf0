"""What a provider's models endpoint said about a model, remembered in the home per base URL and model.

``$PSEUDOCLAUDE_HOME/model-facts.json`` maps ``"{base_url} {model}"`` to the
time of the answer and the facts (``null``: the endpoint answered that it
does not know the model, or has no such endpoint). An answer is used for
``FACTS_TTL_S`` (a day: a model's window and limits change with a new model
id, not under an old one), a "does not say" for ``SILENT_TTL_S`` (an hour, so
a gateway without the endpoint is not asked at every start, yet a fixed one
is noticed soon). A timeout or a refused connection is never recorded: the
next run asks again.

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

from pseudoclaude.llm.model_facts_shape import ModelFacts, facts_from_dict

CACHE_FILE = "model-facts.json"
FACTS_TTL_S = 24 * 3600.0
SILENT_TTL_S = 3600.0
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


def cached(path: Path, base_url: str, model: str, *, now: float | None = None) -> tuple[bool, ModelFacts | None]:
    """``(found, facts)``: whether a fresh entry exists, and its facts (None: the endpoint does not say)."""
    entry = _entries(path).get(_key(base_url, model))
    if not isinstance(entry, dict):
        return False, None
    try:
        age = (time.time() if now is None else now) - float(entry["at"])
        raw = entry["facts"]
        if raw is None:
            return (age <= SILENT_TTL_S), None
        facts = facts_from_dict(raw)
    except (KeyError, TypeError, ValueError):
        return False, None
    return (age <= FACTS_TTL_S and facts is not None), facts if age <= FACTS_TTL_S else None


def recorded(path: Path, model: str, *, now: float | None = None) -> ModelFacts | None:
    """The facts of the freshest entry for ``model`` at any base URL, if one is younger than ``FACTS_TTL_S``."""
    best: tuple[float, ModelFacts] | None = None
    for key, entry in _entries(path).items():
        if not isinstance(key, str) or not key.endswith(f" {model}") or not isinstance(entry, dict):
            continue
        found, facts = cached(path, key[: -len(model) - 1], model, now=now)
        if found and facts is not None and (best is None or float(entry["at"]) > best[0]):
            best = float(entry["at"]), facts
    return best[1] if best is not None else None


def remember(path: Path, base_url: str, model: str, facts: ModelFacts | None) -> None:
    """Record what the endpoint said (None: that it does not say); a failure to write is no failure of the run."""
    entries = _entries(path)
    key = _key(base_url, model)
    entries.pop(key, None)
    entries[key] = {"at": time.time(), "facts": asdict(facts) if facts is not None else None}
    while len(entries) > MAX_ENTRIES:
        entries.pop(next(iter(entries)))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=".model-facts.", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(entries, f)
        os.replace(temporary, path)
    except OSError:
        pass
