"""Model facts from the provider: the window, output limit and capabilities its models endpoint gives.

The model table (``providers.py``) is kept by hand; Anthropic's models endpoint
(``GET /v1/models/{id}``, SDK ``ModelInfo``) says for each model what it
really takes: ``max_input_tokens``, ``max_tokens`` and ``capabilities``. Where
it answers, its facts win over the table for the window, the output limit, the
reasoning style and vision (``models.model_info`` lays them over the row); the
table keeps the prices and answers everything offline, at an endpoint without
the route, and for OpenAI (whose ``/v1/models`` gives ids only).

When it is asked, and how long anything waits:

* ``begin_facts_lookup`` is called as the agent is assembled, before the session,
  tools and prompts are built. A fresh answer in the home's cache
  (``model_facts_cache``) is used at once, with no request. Otherwise one
  ``GET`` starts on a daemon thread (``FETCH_TIMEOUT``), in parallel with the
  rest of start-up.
* ``FactsLookup.result`` is read where the window is chosen, and waits at most
  until ``FIRST_REQUEST_WAIT`` (0.5 s) after the lookup began: a slow endpoint
  costs the first request at most that, a refused connection nothing. An
  answer that comes later is not applied to the running session (its window
  and budget are set once, so every figure it shows agrees), but the thread
  still records it, and the next run starts with it from the cache.
* A failure of any kind means "the table": the lookup never fails a run.
* The lookup thread imports nothing: what ``urlopen`` would load on first use
  (``encodings.idna``) is imported with this module, by the main thread, so the
  thread can run beside the SDK warm-up (``warmup.start_warm_up``) without
  two threads ever importing one module at once.
* ``doctor`` asks afresh (``refresh``) and waits for the answer.

The facts applied to this process live in one small registry (``learn_facts``,
``learned_facts``), filled by the agent builder: the process talks to one endpoint
per provider, and every reader of ``model_info`` (the thinking cap, the
stream-json usage, the status line) must see the same facts the budget uses.
"""

from __future__ import annotations

import encodings.idna  # noqa: F401  (urlopen's host encoding: loaded here, not lazily in the lookup thread, see below)
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Mapping, Sequence

from pseudoclaude.llm import model_facts_cache
from pseudoclaude.llm.model_facts_shape import ModelFacts, facts_from_model_info
from pseudoclaude.llm.providers import ANTHROPIC, PROVIDERS, ProviderEntry

__all__ = ["FactsLookup", "ModelFacts", "begin_facts_lookup", "forget_facts", "learn_facts", "learned_facts", "models_endpoint", "recorded_facts"]

FETCH_TIMEOUT = 3.0
"""The request's own timeout (it runs off the critical path; ``doctor`` waits for it)."""
FIRST_REQUEST_WAIT = 0.5
"""The most start-up waits for an answer, counted from the lookup's start."""
SERVICE_ENDPOINT = ANTHROPIC.default_endpoint
SOURCE = "models endpoint"


def models_endpoint(base_url: str | None) -> str:
    """The ``/v1`` root the models route hangs from (a base URL is given to the SDK without its ``/v1``)."""
    endpoint = (base_url or SERVICE_ENDPOINT).rstrip("/")
    return endpoint if endpoint.endswith("/v1") else endpoint + "/v1"


@dataclass(frozen=True)
class _Route:
    provider: str
    base_url: str
    headers: Mapping[str, str] = field(repr=False)


class _Unanswered(Exception):
    """No answer at all (refused, timed out, cut, or the credential refused): nothing to remember."""


def _fetch(route: _Route, model: str, timeout: float) -> ModelFacts | None:
    """The endpoint's facts; None when it answered without any (404, no such route, a foreign shape)."""
    url = f"{models_endpoint(route.base_url)}/models/{urllib.parse.quote(model, safe='')}"
    request = urllib.request.Request(url, method="GET")
    request.add_header("accept", "application/json")
    for name, value in route.headers.items():
        request.add_header(name, value)
    host = (urllib.parse.urlsplit(url).hostname or "").lower()
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({})) if host in ("127.0.0.1", "localhost", "::1") else urllib.request.build_opener()
    try:
        with opener.open(request, timeout=timeout) as response:
            body = json.loads(response.read(1_000_000).decode("utf-8"))
    except urllib.error.HTTPError as error:
        if error.code in (401, 403, 429) or error.code >= 500:
            raise _Unanswered(f"HTTP {error.code}") from None
        return None
    except ValueError:
        return None
    except Exception as error:  # noqa: BLE001 - refused, timed out, cut (http.client's errors are not all OSError)
        raise _Unanswered(type(error).__name__) from None
    return facts_from_model_info(body, model)


class FactsLookup:
    """One model's facts, from the cache or a request running on a daemon thread (see the module docstring)."""

    def __init__(self, route: _Route, model: str, *, cache: Path | None, refresh: bool, timeout: float) -> None:
        self.model = model
        self.route = route
        self.from_cache = False
        self.failure: str | None = None
        """Why nothing came back (an unanswered request), else None."""
        self._started = time.monotonic()
        self._done = threading.Event()
        self._facts: ModelFacts | None = None
        self._cache = cache
        if cache is not None and not refresh:
            found, facts = model_facts_cache.cached(cache, route.base_url, model)
            if found:
                self._facts, self.from_cache = facts, True
                self._done.set()
                return
        threading.Thread(target=self._run, args=(timeout,), name=f"model-facts-{model}", daemon=True).start()

    def _run(self, timeout: float) -> None:
        try:
            self._facts = _fetch(self.route, self.model, timeout)
            if self._cache is not None:
                model_facts_cache.remember(self._cache, self.route.base_url, self.model, self._facts)
        except _Unanswered as error:
            self.failure = str(error)
        finally:
            self._done.set()

    def result(self, wait: float = FIRST_REQUEST_WAIT) -> ModelFacts | None:
        """The facts if they are in by ``wait`` seconds after the lookup began, else None (the table's turn)."""
        self._done.wait(max(0.0, self._started + wait - time.monotonic()))
        return self._facts if self._done.is_set() else None


def begin_facts_lookup(
    provider: str,
    model: str,
    *,
    base_url: str | None,
    api_key: str | None,
    auth_token: str | None = None,
    headers: Sequence[tuple[str, str]] = (),
    cache: Path | None | Literal["home"] = "home",
    refresh: bool = False,
    timeout: float = FETCH_TIMEOUT,
    providers: Sequence[ProviderEntry] = PROVIDERS,
) -> FactsLookup | None:
    """Start finding ``model``'s facts; None when this provider has no models endpoint with facts or no credential.

    Only the Messages API's models endpoint (an entry whose ``listing`` is ``anthropic``) says a model's window,
    output limit and reasoning; OpenAI's lists ids alone.

    The credential is sent as the Messages API takes it: a token (a gateway's) as ``Authorization: Bearer`` and then
    alone, else the key as ``x-api-key``; ``headers`` (``ANTHROPIC_CUSTOM_HEADERS``) after them.
    """
    entry = next((entry for entry in providers if entry.name == provider), None)
    if entry is None or entry.listing != "anthropic" or not (api_key or auth_token) or not model:
        return None
    query = entry.models_query(base_url, api_key, auth_token, tuple(headers))
    if query is None:
        return None
    path = model_facts_cache.cache_path() if cache == "home" else cache
    route = _Route(provider, (base_url or entry.default_endpoint).rstrip("/"), dict(query.headers))
    return FactsLookup(route, model, cache=path, refresh=refresh, timeout=timeout)


_learned: dict[str, tuple[str, ModelFacts]] = {}


def learn_facts(provider: str, model: str, facts: ModelFacts | None) -> None:
    """Apply ``facts`` to ``model`` in this process, replacing what was learned of it before (None: the table alone).

    They answer under the name asked and under the id the endpoint answered with (an alias resolves to a dated id);
    other models keep theirs (a process serving several sessions, ACP's)."""
    for name in [name for name, (_, known) in _learned.items() if model in (name, known.model)]:
        del _learned[name]
    if facts is not None:
        _learned[model] = _learned[facts.model] = (provider, facts)


def recorded_facts(model: str) -> ModelFacts | None:
    """A fresh answer for ``model`` in the home's cache, from any endpoint (what start-up may say before it asks)."""
    return model_facts_cache.recorded(model_facts_cache.cache_path(), model)


def learned_facts(model: str) -> tuple[str, ModelFacts] | None:
    """The provider and facts applied to ``model`` in this process, if any."""
    return _learned.get(model)


def forget_facts() -> None:
    """Back to the table alone (a process that builds several agents, a test)."""
    _learned.clear()
