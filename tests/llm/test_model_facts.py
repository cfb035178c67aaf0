"""Model facts from Anthropic's models endpoint: they win over the table for the window, output limit and
reasoning, are cached in the home with an expiry, and a failing endpoint leaves the table in charge at once."""

from __future__ import annotations

import asyncio
import json
import os
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest

from pseudoclaude.agent import Agent, build_agent
from pseudoclaude.compact import Budget
from pseudoclaude.config import Flags, load_settings
from pseudoclaude.doctor import run_doctor
from pseudoclaude.llm import forget_facts, model_info, unknown_model_notice
from tests.fakes.anthropic_models import model_entry
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.ports import refusing_port

SONNET = model_entry(
    "claude-sonnet-4-5",
    max_input_tokens=1_000_000,
    max_tokens=128_000,
    thinking=("adaptive", "enabled"),
    context_management=("clear_tool_uses_20250919", "compact_20260112"),
)


@pytest.fixture(autouse=True)
def _table_alone_afterwards() -> Iterator[None]:
    yield
    forget_facts()  # the facts an agent applies are the process's: other tests read the table alone


def _home() -> Path:
    return Path(os.environ["PSEUDOCLAUDE_HOME"])


def _env(url: str, **extra: str) -> dict[str, str]:
    return {"ANTHROPIC_API_KEY": "sk-ant-facts", "ANTHROPIC_BASE_URL": url, "PSEUDOCLAUDE_HOME": str(_home()), **extra}


def _agent(tmp_path: Path, url: str, model: str = "claude-sonnet-4-5", **flags: Any) -> Agent:
    return build_agent(load_settings(tmp_path, Flags(model=model, **flags), environ=_env(url)))


def _status(tmp_path: Path, url: str, model: str = "claude-sonnet-4-5", **flags: Any) -> tuple[int, int, str]:
    agent = _agent(tmp_path, url, model, **flags)
    try:
        status = agent.status()
        return status.context_window, status.auto_threshold, status.window_source
    finally:
        asyncio.run(agent.aclose())


def _get(url: str, headers: dict[str, str]) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_the_fakes_model_answer_has_the_sdks_shape_and_needs_the_real_headers() -> None:
    from anthropic.types import ModelInfo

    with FakeAnthropicServer([], models=(SONNET,)) as server:
        status, body = _get(f"{server.url}/v1/models/claude-sonnet-4-5", {"x-api-key": "k", "anthropic-version": "2023-06-01"})
        assert status == 200
        info = ModelInfo.model_validate(body)
        assert (info.max_input_tokens, info.max_tokens) == (1_000_000, 128_000)
        assert info.capabilities is not None and info.capabilities.thinking.types.adaptive.supported
        assert info.capabilities.context_management.compact_20260112 is not None
        assert _get(f"{server.url}/v1/models/claude-sonnet-4-5", {"authorization": "Bearer t", "anthropic-version": "2023-06-01"})[0] == 200
        assert _get(f"{server.url}/v1/models/claude-sonnet-4-5", {"anthropic-version": "2023-06-01"})[0] == 401
        assert _get(f"{server.url}/v1/models/claude-sonnet-4-5", {"x-api-key": "k"})[0] == 400
        assert _get(f"{server.url}/v1/models/claude-nope", {"x-api-key": "k", "anthropic-version": "2023-06-01"})[1]["error"]["type"] == "not_found_error"
        listed = _get(f"{server.url}/v1/models", {"x-api-key": "k", "anthropic-version": "2023-06-01"})[1]
        assert [ModelInfo.model_validate(item).id for item in listed["data"]] == ["claude-sonnet-4-5"]


def test_the_endpoints_window_beats_the_table_and_the_compaction_threshold_follows(tmp_path: Path) -> None:
    with FakeAnthropicServer([], models=(model_entry("claude-sonnet-4-5", max_input_tokens=100_000, max_tokens=32_000),)) as server:
        window, threshold, source = _status(tmp_path, server.url)
        lookups = [(model, headers.get("x-api-key"), headers.get("anthropic-version")) for model, headers in server.models.lookups]  # type: ignore[union-attr]
    assert (window, source) == (100_000, "models endpoint")
    assert threshold == Budget.for_window(100_000).auto_threshold < Budget.for_window(200_000).auto_threshold
    assert lookups == [("claude-sonnet-4-5", "sk-ant-facts", "2023-06-01")]
    info = model_info("claude-sonnet-4-5")
    assert info is not None and (info.context_window, info.max_output_tokens) == (100_000, 32_000)
    assert (info.input_per_mtok, info.output_per_mtok) == (3.0, 15.0)  # the prices stay the table's


def test_the_endpoints_capabilities_set_the_reasoning_style(tmp_path: Path) -> None:
    entry = model_entry("claude-sonnet-4-5", max_input_tokens=1_000_000, max_tokens=128_000, thinking=("adaptive",))
    with FakeAnthropicServer([], models=(entry,)) as server:
        assert _status(tmp_path, server.url)[0] == 1_000_000
    info = model_info("claude-sonnet-4-5")
    assert info is not None and info.reasoning == "adaptive_only"  # the table says "budget"


def test_the_cache_answers_the_next_run_and_is_asked_again_after_it_expires(tmp_path: Path) -> None:
    with FakeAnthropicServer([], models=(SONNET,)) as server:
        assert _status(tmp_path, server.url)[0] == 1_000_000
        forget_facts()
        assert _status(tmp_path, server.url)[0] == 1_000_000
        assert len(server.models.lookups) == 1  # type: ignore[union-attr]
        cache = _home() / "model-facts.json"
        entries = json.loads(cache.read_text())
        assert list(entries) == [f"{server.url} claude-sonnet-4-5"]
        entries[f"{server.url} claude-sonnet-4-5"]["at"] = time.time() - 25 * 3600
        cache.write_text(json.dumps(entries))
        forget_facts()
        assert _status(tmp_path, server.url)[0] == 1_000_000
        assert len(server.models.lookups) == 2  # type: ignore[union-attr]
    assert json.loads(cache.read_text())[f"{server.url} claude-sonnet-4-5"]["at"] > time.time() - 60


def test_an_endpoint_without_the_route_leaves_the_table_in_charge(tmp_path: Path) -> None:
    with FakeAnthropicServer([]) as server:  # no Models API: every GET is a 404
        assert _status(tmp_path, server.url) == (200_000, Budget.for_window(200_000).auto_threshold, "model table")
    assert model_info("claude-sonnet-4-5") == model_info("claude-sonnet-4-5-20250929")  # nothing learned


def test_an_unreachable_endpoint_costs_nothing(tmp_path: Path) -> None:
    with refusing_port() as port:
        started = time.monotonic()
        assert _status(tmp_path, f"http://127.0.0.1:{port}")[0] == 200_000
        assert time.monotonic() - started < 5
    assert not (_home() / "model-facts.json").exists()  # a refusal is not an answer: the next run asks again


def test_a_slow_endpoint_holds_start_up_at_most_half_a_second_and_serves_the_next_run(tmp_path: Path) -> None:
    with FakeAnthropicServer([], models=(SONNET,), models_delay_s=2.0) as server:
        started = time.monotonic()
        agent = _agent(tmp_path, server.url)
        built = time.monotonic() - started
        try:
            assert (agent.status().context_window, agent.status().window_source) == (200_000, "model table")
        finally:
            asyncio.run(agent.aclose())
        assert built < 1.8  # the answer takes 2 s; start-up waited for it at most 0.5 s
        cache = _home() / "model-facts.json"
        deadline = time.monotonic() + 10
        while not cache.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        forget_facts()
        assert _status(tmp_path, server.url)[0] == 1_000_000  # the late answer, from the cache
        assert len(server.models.lookups) == 1  # type: ignore[union-attr]


def test_an_unknown_model_gets_the_endpoints_window_instead_of_the_guess(tmp_path: Path) -> None:
    assert unknown_model_notice("fable-7") is not None
    with FakeAnthropicServer([], models=(model_entry("fable-7", max_input_tokens=512_000, max_tokens=64_000, thinking=("adaptive",)),)) as server:
        window, threshold, source = _status(tmp_path, server.url, model="fable-7", provider="anthropic")
    assert (window, source) == (512_000, "models endpoint")
    assert threshold == Budget.for_window(512_000).auto_threshold
    info = model_info("fable-7")
    assert info is not None and (info.provider, info.max_output_tokens, info.reasoning) == ("anthropic", 64_000, "adaptive_only")
    assert (info.input_per_mtok, info.output_per_mtok) == (0.0, 0.0)  # no price is invented
    assert unknown_model_notice("fable-7") is None
    forget_facts()
    assert unknown_model_notice("fable-7") is None  # the next run's start-up: the home's cache already knows it


def test_your_window_setting_still_wins(tmp_path: Path) -> None:
    with FakeAnthropicServer([], models=(SONNET,)) as server:
        assert _status(tmp_path, server.url, context_window=50_000)[::2] == (50_000, "your setting")


def test_doctor_shows_each_fact_and_where_it_came_from(tmp_path: Path) -> None:
    with FakeAnthropicServer([], models=(SONNET,)) as server:
        lines = {check.name: check for check in run_doctor(tmp_path, Flags(model="claude-sonnet-4-5"), _env(server.url))}
        assert len(server.models.lookups) == 1  # type: ignore[union-attr]
    assert lines["window"].detail == "1,000,000 tokens (models endpoint; the table says 200,000)"
    assert lines["facts"].verdict == "ok"
    assert lines["facts"].detail == (
        "from the models endpoint: output 128,000 (endpoint), reasoning adaptive (endpoint), "
        "context management clear_tool_uses_20250919, compact_20260112 (endpoint), $3/$15 per Mtok (table)"
    )


def test_doctor_says_the_table_answers_when_the_endpoint_does_not(tmp_path: Path) -> None:
    with FakeAnthropicServer([]) as server:
        lines = {check.name: check for check in run_doctor(tmp_path, Flags(model="claude-sonnet-4-5"), _env(server.url))}
    assert lines["window"].detail.startswith("200,000 tokens (model table)")
    assert lines["facts"].detail == "from the model table: output 64,000 (table), reasoning budget (table), $3/$15 per Mtok (table)"


def test_a_malformed_cache_or_a_foreign_answer_is_ignored(tmp_path: Path) -> None:
    cache = _home() / "model-facts.json"
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("{not json")
    foreign = {"id": "claude-sonnet-4-5", "max_input_tokens": "1000000", "max_tokens": -5, "capabilities": "all"}
    with FakeAnthropicServer([], models=(foreign,)) as server:
        assert _status(tmp_path, server.url)[::2] == (200_000, "model table")
        assert len(server.models.lookups) == 1  # type: ignore[union-attr]
    assert json.loads(cache.read_text())[f"{server.url} claude-sonnet-4-5"]["facts"] is None  # rewritten whole
