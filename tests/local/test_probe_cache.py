"""Probes only where they can answer: none for a cloud endpoint, all dialects at once under a deadline, and the
answer remembered in the home per base URL and model until the server's answer changes or the entry expires."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from pseudoclaude.llm import probe_window
from tests.fakes.http import Exchange, FakeHTTPServer
from tests.fakes.local_servers import FakeLocalServer

MODEL = "m"


EVERY_DIALECT = {"GET /v1/models", "POST /api/show", "GET /props", f"GET /api/v0/models/{MODEL}", "GET /model/info"}


def _asked_everything(server: FakeLocalServer) -> bool:
    """Whether every dialect was asked (the answer can come before the slower ones finish: wait for them)."""
    ends = time.monotonic() + 3
    while not EVERY_DIALECT <= set(server.paths) and time.monotonic() < ends:
        time.sleep(0.01)
    return EVERY_DIALECT <= set(server.paths)


def _cache(home: Path) -> Path:
    return home / "probe-cache.json"


@pytest.fixture
def home() -> Path:
    return Path(os.environ["PSEUDOCLAUDE_HOME"])


def test_a_second_run_asks_only_the_dialect_that_answered(home: Path) -> None:
    with FakeLocalServer("llamacpp", model=MODEL, window=32768) as server:
        first = probe_window(server.url, MODEL)
        assert _asked_everything(server)
        server.paths.clear()
        second = probe_window(server.url, MODEL)
        asked_second = list(server.paths)
    assert first is not None and second == first and first.tokens == 32768
    assert asked_second == ["GET /props"]
    entry = json.loads(_cache(home).read_text())[f"{server.url} {MODEL}"]
    assert entry["dialect"] == "llamacpp" and entry["answer"]["tokens"] == 32768


def test_a_changed_answer_invalidates_the_cached_one(home: Path) -> None:
    with FakeLocalServer("llamacpp", model=MODEL, window=32768) as server:
        first = probe_window(server.url, MODEL)
        assert first is not None and first.tokens == 32768 and _asked_everything(server)
        server.paths.clear()
        server.reports_window = 8192  # the server was restarted with a smaller n_ctx
        changed = probe_window(server.url, MODEL)
        asked_again = _asked_everything(server)  # the cached dialect's answer differed: every dialect asked again
    assert changed is not None and changed.tokens == 8192 and asked_again
    assert json.loads(_cache(home).read_text())[f"{server.url} {MODEL}"]["answer"]["tokens"] == 8192


def test_an_expired_entry_is_asked_again_and_refresh_ignores_the_cache(home: Path) -> None:
    with FakeLocalServer("llamacpp", model=MODEL, window=32768) as server:
        probe_window(server.url, MODEL)
        assert _asked_everything(server)
        data = json.loads(_cache(home).read_text())
        data[f"{server.url} {MODEL}"]["at"] = time.time() - 2 * 24 * 3600
        _cache(home).write_text(json.dumps(data))
        server.paths.clear()
        assert probe_window(server.url, MODEL) is not None
        expired = _asked_everything(server)
        server.paths.clear()
        assert probe_window(server.url, MODEL, refresh=True) is not None
        refreshed = _asked_everything(server)
    assert expired and refreshed


def test_a_malformed_cache_file_is_ignored_and_rewritten(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    _cache(home).write_text("{not json")
    with FakeLocalServer("vllm", model=MODEL, window=16384) as server:
        probe = probe_window(server.url, MODEL)
    assert probe is not None and probe.tokens == 16384
    assert f"{server.url} {MODEL}" in json.loads(_cache(home).read_text())


def test_no_probe_request_reaches_a_cloud_endpoint(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """The fake stands in as the HTTP(S) proxy every non-loopback request would go through: it must hear nothing
    for the cloud endpoints, and does hear a probe for any other base URL (so the check can fail)."""
    heard: list[str] = []

    def proxy(exchange: Exchange) -> None:
        heard.append(f"{exchange.method} {exchange.path}")
        exchange.send_json(404, {"error": "no"})

    with FakeHTTPServer(proxy) as server:
        for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
            monkeypatch.setenv(name, server.url)
        for name in ("no_proxy", "NO_PROXY"):
            monkeypatch.delenv(name, raising=False)
        assert probe_window("https://api.openai.com/v1", "gpt-4.1") is None
        assert probe_window("https://api.anthropic.com/v1", "claude-sonnet-4-5") is None
        assert probe_window("http://API.OPENAI.COM/v1/", "gpt-4.1") is None
        assert heard == []
        assert probe_window("http://models.internal.test/v1", MODEL, deadline=1.0) is None
    assert "GET http://models.internal.test/v1/models" in heard
    assert not _cache(home).exists() or "api.openai.com" not in _cache(home).read_text()


def test_a_dialect_that_hangs_does_not_hold_the_answer_past_the_deadline() -> None:
    release = threading.Event()

    def server(exchange: Exchange) -> None:
        if exchange.path.startswith("/v1/models"):
            release.wait(10)  # a server that accepts and never answers this one
            exchange.send_json(404, {"error": "late"})
        elif exchange.path == "/props":
            exchange.send_json(200, {"default_generation_settings": {"n_ctx": 12288}})
        else:
            exchange.send_json(404, {"error": "no"})

    with FakeHTTPServer(server) as fake:
        try:
            started = time.monotonic()
            probe = probe_window(fake.url + "/v1", MODEL, deadline=0.5, cache=None)
            elapsed = time.monotonic() - started
        finally:
            release.set()
    assert probe is not None and (probe.tokens, probe.server) == (12288, "llama.cpp")
    assert 0.4 <= elapsed < 1.2, elapsed  # the dialects were asked at once: the deadline, not their sum


def test_a_dialect_cut_mid_answer_is_no_answer_and_no_failure(capfd: pytest.CaptureFixture[str]) -> None:
    """A chunked answer cut short raises http.client's IncompleteRead (not an OSError): that dialect does not say."""

    def server(exchange: Exchange) -> None:
        if exchange.path == "/props":
            exchange.start_stream({"content-type": "application/json"})
            exchange.send_chunk(b'{"default_generation_settings": {"n_ctx": 40')
            exchange.cut()
        elif exchange.path == "/model/info":
            exchange.send_json(200, {"data": [{"model_name": MODEL, "model_info": {"max_input_tokens": 9000}}]})
        else:
            exchange.send_json(404, {"error": "no"})

    with FakeHTTPServer(server) as fake:
        probe = probe_window(fake.url + "/v1", MODEL, cache=None)
    assert probe is not None and (probe.tokens, probe.server) == (9000, "LiteLLM")
    assert "Traceback" not in capfd.readouterr().err


def test_the_openai_adapter_probes_its_base_url_and_never_the_default_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the provider: at a base URL the fake server is asked; at the default endpoint (and at an explicit
    api.openai.com) nothing is sent, even with every proxy pointed at the fake."""
    import asyncio

    from pseudoclaude.llm.openai import OpenAIProvider

    with FakeLocalServer("vllm", model=MODEL, window=20480) as server:
        for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
            monkeypatch.setenv(name, server.url.removesuffix("/v1"))
        local = asyncio.run(OpenAIProvider(model=MODEL, api_key=None, base_url=server.url).probe_window())
        assert local is not None and local.tokens == 20480 and _asked_everything(server)
        server.paths.clear()
        default = asyncio.run(OpenAIProvider(model="gpt-4.1", api_key="sk-test").probe_window())
        explicit = asyncio.run(OpenAIProvider(model="gpt-4.1", api_key="sk-test", base_url="http://api.openai.com/v1").probe_window())
        time.sleep(0.1)
        assert (default, explicit, server.paths) == (None, None, [])
