"""What a provider's models endpoint said about a model, remembered in the home per base URL and model.

``$PSEUDOCLAUDE_HOME/model-facts.json`` maps ``"{base_url} {model}"`` to the
time of the answer and the facts (``null``: the endpoint answered that it
does not know the model, or has no such endpoint). An answer is used for
``FACTS_TTL_S`` (a day: a model's window and limits change with a new model
id, not under an old one), a "does not say" for ``SILENT_TTL_S`` (an hour, so
a gateway without the endpoint is not asked at every start, yet a fixed one
is noticed soon). A timeout or a refused connection is never recorded: the
next run asks again.

The file itself (read leniently, written atomically, bounded) is ``home_cache``'s.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path

from pseudoclaude.llm.home_cache import entry_key, home_file, read_entries, write_entry
from pseudoclaude.llm.model_facts_shape import ModelFacts, facts_from_dict

CACHE_FILE = "model-facts.json"
FACTS_TTL_S = 24 * 3600.0
SILENT_TTL_S = 3600.0


def cache_path() -> Path:
    return home_file(CACHE_FILE)


def cached(path: Path, base_url: str, model: str, *, now: float | None = None) -> tuple[bool, ModelFacts | None]:
    """``(found, facts)``: whether a fresh entry exists, and its facts (None: the endpoint does not say)."""
    entry = read_entries(path).get(entry_key(base_url, model))
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
    for key, entry in read_entries(path).items():
        if not isinstance(key, str) or not key.endswith(f" {model}") or not isinstance(entry, dict):
            continue
        found, facts = cached(path, key[: -len(model) - 1], model, now=now)
        if found and facts is not None and (best is None or float(entry["at"]) > best[0]):
            best = float(entry["at"]), facts
    return best[1] if best is not None else None


def remember(path: Path, base_url: str, model: str, facts: ModelFacts | None) -> None:
    """Record what the endpoint said (None: that it does not say); a failure to write is no failure of the run."""
    write_entry(path, entry_key(base_url, model), {"at": time.time(), "facts": asdict(facts) if facts is not None else None})
