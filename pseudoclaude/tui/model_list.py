"""What ``/model`` lists and Tab completes: the real model ids of the providers one can use.

A provider's own ``GET /models`` answers first, with a short timeout (a slow
or missing endpoint must not stall the prompt), asked once per process and
endpoint, failures included; Tab does not wait for it (``wait=False``: the
question goes on in a background thread, the table answers meanwhile, the
next keystroke sees the endpoint's ids). When it does not answer, the provider table's
full ids (``ModelRow.full_ids``) stand in: never a row's matching prefix
(``claude-haiku-4``), which no service accepts as a model. From the services
themselves only the ids the table knows are kept (their lists also hold
embedding, speech and image models); a server at a base URL (a gateway, a
local server) is listed whole. The ids a server lists are untrusted text:
callers show them through ``for_terminal``.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Literal, Mapping

from pseudoclaude.config import Settings
from pseudoclaude.llm import PROVIDERS, ProviderEntry, fetch_models, table_model_ids

FETCH_TIMEOUT = 1.5
_MAX_IDS = 500


@dataclass(frozen=True)
class ProviderModels:
    """One provider's ids, where they came from, and whether its key is configured (else ``needs``: the variable)."""

    provider: str
    ids: tuple[str, ...]
    source: Literal["endpoint", "table"]
    needs: str = ""


_cache: dict[tuple[str, str, str], tuple[str, ...] | None] = {}
_asking: set[tuple[str, str, str]] = set()
_lock = threading.Lock()


def provider_models(settings: Settings, environ: Mapping[str, str] | None = None, timeout: float = FETCH_TIMEOUT, *, wait: bool = True) -> list[ProviderModels]:
    """Every provider's ids: the endpoint's for the configured ones, the table's otherwise (also while an unwaited question runs)."""
    env = os.environ if environ is None else environ
    found: list[ProviderModels] = []
    for entry in PROVIDERS:
        usable = entry.name == settings.provider or entry.configured_in(env)
        listed = _listed(entry, settings, env, timeout, wait) if usable else None
        if listed:
            found.append(ProviderModels(entry.name, listed, "endpoint"))
        else:
            found.append(ProviderModels(entry.name, table_ids(entry), "table", "" if usable else entry.key_variable))
    return found


def model_ids(settings: Settings, environ: Mapping[str, str] | None = None, timeout: float = FETCH_TIMEOUT, *, wait: bool = True) -> tuple[str, ...]:
    """Every id ``/model`` offers, the current provider's first (what Tab completes, with ``wait=False``)."""
    groups = sorted(provider_models(settings, environ, timeout, wait=wait), key=lambda group: group.provider != settings.provider)
    return tuple(dict.fromkeys(model for group in groups for model in group.ids))


def table_ids(entry: ProviderEntry) -> tuple[str, ...]:
    """The full ids the table's rows give for ``entry``, in table order."""
    return table_model_ids((entry,))


def _listed(entry: ProviderEntry, settings: Settings, env: Mapping[str, str], timeout: float, wait: bool) -> tuple[str, ...] | None:
    current = entry.name == settings.provider
    base_url = settings.base_url if current else env.get(entry.base_url_variable) or None
    api_key = settings.api_key if current else (env.get(entry.key_variable) or None if entry.key_variable else None)
    auth_token = settings.auth_token if current else (env.get(entry.token_variable) or None if entry.token_variable else None)
    query = entry.models_query(base_url, api_key, auth_token, settings.extra_headers if current else ())
    if query is None:
        return None
    endpoint, bearer, headers = query.url, query.bearer, dict(query.headers)
    key = (entry.name, endpoint, api_key or auth_token or "")
    with _lock:
        if key in _cache:
            return _cache[key]
        if not wait:
            if key not in _asking:
                _asking.add(key)
                threading.Thread(target=_ask, args=(key, entry, base_url, bearer, headers, timeout), daemon=True).start()
            return None
    return _ask(key, entry, base_url, bearer, headers, timeout)


def _ask(
    key: tuple[str, str, str], entry: ProviderEntry, base_url: str | None, bearer: str | None, headers: Mapping[str, str], timeout: float
) -> tuple[str, ...] | None:
    try:
        ids: list[str] | None = fetch_models(key[1], api_key=bearer, headers=headers, timeout=timeout)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        ids = None
    kept = None
    if ids is not None:
        shown = [model for model in ids if base_url or entry.model_row(model) is not None]
        kept = tuple(dict.fromkeys(shown))[:_MAX_IDS] or None
    with _lock:
        _cache[key] = kept
        _asking.discard(key)
    return kept
