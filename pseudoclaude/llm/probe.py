"""Asking an OpenAI-compatible server what it really runs, and finding one on this machine.

Local servers budget differently from the model they serve: Ollama's OpenAI
endpoint runs its own ``num_ctx`` (a few thousand tokens by default) whatever
the model supports, ignores per-request options, and cuts an over-long prompt
from the front without an error. So at the first call the window is asked of
the server itself, in the dialect of each family:

| server     | asked                         | read                                              |
|------------|-------------------------------|---------------------------------------------------|
| vLLM, others | ``GET {base}/models``       | the model's ``max_model_len`` / ``context_length`` |
| Ollama     | ``GET /api/ps``, ``POST /api/show`` | the loaded model's ``context_length``, else ``num_ctx``, else its default; the model's own length |
| llama.cpp  | ``GET /props``                | ``default_generation_settings.n_ctx`` (per slot), else ``n_ctx`` |
| LM Studio  | ``GET /api/v0/models/{id}``   | ``loaded_context_length``, else ``max_context_length`` |
| LiteLLM    | ``GET /model/info``           | the alias's ``max_input_tokens``                  |

The dialects are asked at once, under one short deadline (``PROBE_DEADLINE``),
and the first in the table's order that answers is the answer; any failure
means "this server does not say": the probe never fails a run. Cloud
endpoints are never asked (nothing to learn), and an answer is remembered in
the home per base URL and model (``probe_cache``). Everything here is blocking ``urllib``
(stdlib, nothing imported on the start-up path); async callers run it in a
thread.

``find_local_servers`` looks for a server on the usual loopback ports (only
127.0.0.1) when nothing is configured. ``PSEUDOCLAUDE_LOCAL_PORTS`` replaces
the port list; it exists for tests, which must not depend on real ports.
"""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal, Mapping, Protocol, runtime_checkable

from pseudoclaude.llm import probe_cache
from pseudoclaude.llm.window_probe import WindowProbe

__all__ = [
    "LOCAL_PORTS",
    "LocalServer",
    "OLLAMA_DEFAULT_WINDOW",
    "WindowProbe",
    "WindowProber",
    "fetch_models",
    "find_local_servers",
    "list_models",
    "probe_window",
    "server_root",
]

PROBE_TIMEOUT = 1.5
DISCOVERY_TIMEOUT = 0.4
OLLAMA_DEFAULT_WINDOW = 4096
"""What Ollama runs a model with when neither a loaded model, a ``num_ctx`` nor ``OLLAMA_CONTEXT_LENGTH`` says otherwise."""

LOCAL_PORTS: tuple[tuple[int, str], ...] = ((11434, "Ollama"), (1234, "LM Studio"), (8080, "llama.cpp"), (8000, "vLLM"))


@runtime_checkable
class WindowProber(Protocol):
    """A provider that can ask its server the window it runs (the OpenAI adapter at a base URL)."""

    @property
    def local_server(self) -> bool:
        """Whether requests go to a server at a base URL (one that may cut an over-long prompt silently)."""
        ...

    async def probe_window(self) -> WindowProbe | None: ...


Fetch = Callable[[str, "Mapping[str, Any] | None"], Any]


def server_root(base_url: str) -> str:
    """The server's root: ``base_url`` without a trailing ``/v1`` (where Ollama, llama.cpp and LiteLLM answer)."""
    url = base_url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


CLOUD_HOSTS = frozenset({"api.openai.com", "api.anthropic.com"})
"""Endpoints with nothing to learn: their windows are in the model table, and they answer none of the dialects."""
PROBE_DEADLINE = 2.0
"""The whole probe: the dialects are asked at once, and one that has not answered by then does not count."""

_DIALECTS: tuple[tuple[str, Callable[[Fetch, str, str, str], "WindowProbe | None"]], ...] = ()


def probe_window(
    base_url: str,
    model: str,
    *,
    api_key: str | None = None,
    timeout: float = PROBE_TIMEOUT,
    deadline: float = PROBE_DEADLINE,
    cache: Path | None | Literal["home"] = "home",
    refresh: bool = False,
) -> WindowProbe | None:
    """The window the server at ``base_url`` runs ``model`` with, or None when it does not say (never raises).

    Nothing is asked of a cloud endpoint (``CLOUD_HOSTS``). Elsewhere, a recent answer in the cache
    (``probe_cache``; ``cache=None``: none, ``refresh``: ask afresh) is checked by asking only the dialect
    that gave it; otherwise every dialect is asked at once, and the first in the table's order to answer
    within ``deadline`` is the answer.
    """
    if (urllib.parse.urlsplit(base_url).hostname or "").lower() in CLOUD_HOSTS:
        return None
    path = probe_cache.cache_path() if cache == "home" else cache
    fetch = _fetcher(api_key, min(timeout, deadline))
    root, base = server_root(base_url), base_url.rstrip("/")
    known = probe_cache.cached(path, base_url, model) if path is not None and not refresh else None
    if known is not None:
        dialect, answer = known
        ask = dict(_DIALECTS).get(dialect)
        if ask is not None and _ask(ask, fetch, root, base, model) == answer:
            return answer
    dialect_found, found = _ask_all(fetch, root, base, model, deadline)
    if path is not None:
        probe_cache.remember(path, base_url, model, dialect_found, found)
    return found


def _ask(ask: Callable[[Fetch, str, str, str], WindowProbe | None], fetch: Fetch, root: str, base: str, model: str) -> WindowProbe | None:
    try:
        found = ask(fetch, root, base, model)
    except Exception:  # noqa: BLE001 - any failure (a cut answer is http.client's, not an OSError) means "it does not say"
        return None
    return found if found is not None and found.tokens > 0 else None


def _ask_all(fetch: Fetch, root: str, base: str, model: str, deadline: float) -> tuple[str | None, WindowProbe | None]:
    """Every dialect at once, on daemon threads (one that hangs must not hold the process at exit)."""
    answers: dict[str, WindowProbe | None] = {}
    done = {name: threading.Event() for name, _ in _DIALECTS}

    def run(name: str, ask: Callable[[Fetch, str, str, str], WindowProbe | None]) -> None:
        try:
            answers[name] = _ask(ask, fetch, root, base, model)
        finally:
            done[name].set()

    for name, ask in _DIALECTS:
        threading.Thread(target=run, args=(name, ask), name=f"probe-{name}", daemon=True).start()
    ends = time.monotonic() + deadline
    for name, _ in _DIALECTS:
        if done[name].wait(max(0.0, ends - time.monotonic())) and answers.get(name) is not None:
            return name, answers[name]
    return None, None


def fetch_models(base_url: str, *, api_key: str | None = None, headers: Mapping[str, str] | None = None, timeout: float = PROBE_TIMEOUT) -> list[str]:
    """The model ids ``GET {base}/models`` lists; raises ``OSError`` / ``ValueError`` when the server does not answer it."""
    data = _fetcher(api_key, timeout, headers)(base_url.rstrip("/") + "/models", None)
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise ValueError("the answer is not a model list")
    return [str(item["id"]) for item in data["data"] if isinstance(item, dict) and "id" in item]


def list_models(base_url: str, *, api_key: str | None = None, timeout: float = PROBE_TIMEOUT) -> list[str] | None:
    """The model ids ``GET {base}/models`` lists, or None when the server does not answer it."""
    try:
        return fetch_models(base_url, api_key=api_key, timeout=timeout)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


@dataclass(frozen=True)
class LocalServer:
    """An OpenAI-compatible server that answered on a loopback port, and the models it lists."""

    name: str
    base_url: str
    models: tuple[str, ...]


def local_ports(environ: Mapping[str, str] | None = None) -> tuple[tuple[int, str], ...]:
    """The ports looked at (``PSEUDOCLAUDE_LOCAL_PORTS``: ``port[:name],...``, for tests)."""
    raw = (os.environ if environ is None else environ).get("PSEUDOCLAUDE_LOCAL_PORTS")
    if not raw:
        return LOCAL_PORTS
    ports: list[tuple[int, str]] = []
    for item in raw.split(","):
        port, _, name = item.strip().partition(":")
        if port.isdigit():
            ports.append((int(port), name or f"port {port}"))
    return tuple(ports)


def find_local_servers(environ: Mapping[str, str] | None = None, timeout: float = DISCOVERY_TIMEOUT) -> tuple[tuple[LocalServer, ...], str]:
    """The servers answering on the usual loopback ports, and a phrase naming what was tried."""
    ports = local_ports(environ)
    found = []
    for port, name in ports:
        base = f"http://127.0.0.1:{port}/v1"
        models = list_models(base, timeout=timeout)
        if models is not None:
            found.append(LocalServer(name, base, tuple(models)))
    tried = ", ".join(f"{name} on 127.0.0.1:{port}" for port, name in ports)
    return tuple(found), tried


def _fetcher(api_key: str | None, timeout: float, headers: Mapping[str, str] | None = None) -> Fetch:
    def fetch(url: str, body: Mapping[str, Any] | None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(url, data=data, method="POST" if body is not None else "GET")
        request.add_header("accept", "application/json")
        if data is not None:
            request.add_header("content-type", "application/json")
        if api_key:
            request.add_header("authorization", f"Bearer {api_key}")
        for key, value in (headers or {}).items():
            request.add_header(key, value)
        host = urllib.parse.urlsplit(url).hostname or ""
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({})) if host in ("127.0.0.1", "localhost", "::1") else urllib.request.build_opener()
        with opener.open(request, timeout=timeout) as response:
            return json.loads(response.read(2_000_000).decode("utf-8"))

    return fetch


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _from_models(fetch: Fetch, root: str, base: str, model: str) -> WindowProbe | None:
    for item in fetch(base + "/models", None).get("data", []):
        if not isinstance(item, dict) or item.get("id") != model:
            continue
        for key, server in (("max_model_len", "vLLM"), ("context_length", "the server"), ("context_window", "the server")):
            tokens = _positive(item.get(key))
            if tokens:
                return WindowProbe(tokens, f"{server} /v1/models {key}", server=server)
    return None


def _ollama(fetch: Fetch, root: str, base: str, model: str) -> WindowProbe | None:
    show = fetch(root + "/api/show", {"model": model})
    info = show.get("model_info") or {}
    own = next((_positive(v) for k, v in info.items() if k.endswith(".context_length") and _positive(v)), None)
    tools = "tools" in show["capabilities"] if isinstance(show.get("capabilities"), list) else None
    loaded = _loaded_context(fetch, root, model)
    configured = _num_ctx(str(show.get("parameters") or ""))
    runs, source = (
        (loaded, "Ollama /api/ps (the loaded model)")
        if loaded
        else ((configured, "Ollama /api/show num_ctx") if configured else (OLLAMA_DEFAULT_WINDOW, "Ollama's default"))
    )
    tokens = min(runs, own) if own else runs
    notice = None
    if own is None or runs < own:
        larger = f" (the model supports {own:,})" if own else ""
        notice = (
            f"Ollama runs {model} with a {runs:,}-token window{larger} and ignores larger requests: set "
            f"OLLAMA_CONTEXT_LENGTH (e.g. 32768) before `ollama serve`, or use a model with a larger num_ctx (PARAMETER num_ctx in a Modelfile)"
        )
    return WindowProbe(tokens, source, notice, tools, server="Ollama")


def _loaded_context(fetch: Fetch, root: str, model: str) -> int | None:
    try:
        running = fetch(root + "/api/ps", None).get("models") or []
    except (OSError, ValueError):
        return None
    for item in running:
        if isinstance(item, dict) and model in (item.get("name"), item.get("model")):
            return _positive(item.get("context_length"))
    return None


def _num_ctx(parameters: str) -> int | None:
    for line in parameters.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "num_ctx" and parts[1].isdigit():
            return _positive(int(parts[1]))
    return None


def _llamacpp(fetch: Fetch, root: str, base: str, model: str) -> WindowProbe | None:
    props = fetch(root + "/props", None)
    settings = props.get("default_generation_settings") or {}
    per_slot = _positive(settings.get("n_ctx")) if isinstance(settings, dict) else None
    if per_slot:
        return WindowProbe(per_slot, "llama.cpp /props n_ctx (per slot)", server="llama.cpp")
    tokens = _positive(props.get("n_ctx"))
    return WindowProbe(tokens, "llama.cpp /props n_ctx", server="llama.cpp") if tokens else None


def _lmstudio(fetch: Fetch, root: str, base: str, model: str) -> WindowProbe | None:
    info = fetch(root + "/api/v0/models/" + urllib.parse.quote(model, safe=""), None)
    for key in ("loaded_context_length", "max_context_length"):
        tokens = _positive(info.get(key))
        if tokens:
            return WindowProbe(tokens, f"LM Studio {key}", server="LM Studio")
    return None


def _litellm(fetch: Fetch, root: str, base: str, model: str) -> WindowProbe | None:
    for item in fetch(root + "/model/info", None).get("data", []):
        if isinstance(item, dict) and item.get("model_name") == model:
            tokens = _positive((item.get("model_info") or {}).get("max_input_tokens"))
            if tokens:
                return WindowProbe(tokens, "LiteLLM /model/info max_input_tokens", server="LiteLLM")
    return None


_DIALECTS = (("models", _from_models), ("ollama", _ollama), ("llamacpp", _llamacpp), ("lmstudio", _lmstudio), ("litellm", _litellm))
