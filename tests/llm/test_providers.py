"""The provider table is the single source of what the code knows about a provider."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from pseudoclaude.config import ConfigError, Flags, load_settings
from pseudoclaude.llm import PROVIDERS, ModelRow, ProviderEntry, build_provider, context_window
from pseudoclaude.llm.messages import Message
from pseudoclaude.llm.models import cost_usd, encoding_for, provider_for_model
from pseudoclaude.llm.provider import Completed, Provider, Request
from pseudoclaude.llm.warmup import warm_up
from tests.fakes.script import Reply
from tests.fakes.scripted import ScriptedProvider

ENTRIES = [pytest.param(entry, id=entry.name) for entry in PROVIDERS]


def settings_env(tmp_path: Path, **env: str) -> dict[str, str]:
    return {"PSEUDOCLAUDE_HOME": str(tmp_path / "home"), **env}


@pytest.mark.parametrize("entry", ENTRIES)
def test_config_reads_each_entrys_key_and_base_url_variables(tmp_path: Path, entry: ProviderEntry) -> None:
    env = settings_env(tmp_path, **{entry.key_variable: "the-key", entry.base_url_variable: "http://127.0.0.1:9/v1"})
    settings = load_settings(tmp_path, Flags(provider=entry.name), environ=env)
    assert (settings.provider, settings.api_key, settings.base_url) == (entry.name, "the-key", "http://127.0.0.1:9/v1")
    assert settings.model == entry.default_model


@pytest.mark.parametrize("entry", ENTRIES)
def test_a_key_alone_selects_its_provider(tmp_path: Path, entry: ProviderEntry) -> None:
    settings = load_settings(tmp_path, environ=settings_env(tmp_path, **{entry.key_variable: "k"}))
    assert settings.provider == entry.name


@pytest.mark.parametrize("entry", ENTRIES)
def test_every_model_row_infers_its_own_provider(entry: ProviderEntry) -> None:
    for row in entry.models:
        name = row.prefix if row.exact else f"{row.prefix}x"
        assert provider_for_model(name) == entry.name, name
        assert provider_for_model(f"vendor/{name.upper()}") == entry.name, name
        assert context_window(name) == row.context_window
    assert provider_for_model(entry.default_model) == entry.name


def test_unknown_models_belong_to_no_provider_and_get_the_fallback_window() -> None:
    assert provider_for_model("qwen2.5-coder") is None
    assert context_window("qwen2.5-coder") == 128_000
    assert context_window("qwen2.5-coder", override=16_000) == 16_000


@pytest.mark.parametrize(
    ("model", "encoding"),
    [
        ("gpt-4o", "o200k_base"),
        ("gpt-4.1-mini", "o200k_base"),
        ("gpt-5", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("o4", "o200k_base"),
        ("chatgpt-4o-latest", "o200k_base"),
        ("gpt-4", "cl100k_base"),
        ("gpt-4-turbo", "cl100k_base"),
        ("gpt-3.5-turbo", "cl100k_base"),
        ("claude-sonnet-4-5", None),
        ("qwen2.5-coder", None),
    ],
)
def test_the_tokenizer_family_comes_from_the_model_rows(model: str, encoding: str | None) -> None:
    assert encoding_for(model) == encoding


def test_prices_come_from_the_model_rows() -> None:
    assert cost_usd("claude-sonnet-4-5", 1_000_000, 1_000_000) == pytest.approx(18.0)
    assert cost_usd("qwen2.5-coder", 1_000_000, 1_000_000) == 0.0


def test_a_new_entry_is_picked_up_by_settings_inference_and_build(tmp_path: Path) -> None:
    built: list[tuple[str, str | None, str | None]] = []

    def adapter(*, model: str, api_key: str | None, base_url: str | None) -> Provider:
        built.append((model, api_key, base_url))
        return ScriptedProvider([Reply(text="hello from the new provider")], model=model, name="acme")

    acme = ProviderEntry(
        name="acme",
        key_variable="ACME_API_KEY",
        base_url_variable="ACME_BASE_URL",
        default_model="acme-large",
        adapter=adapter,
        sdk_module="json",
        models=(ModelRow("acme-", 32_000, 1.0, 2.0, encoding=None),),
    )
    table = (*PROVIDERS, acme)

    with pytest.raises(ConfigError, match="ACME_API_KEY"):
        load_settings(tmp_path, environ=settings_env(tmp_path), providers=table)
    by_model = load_settings(tmp_path, Flags(model="acme-small"), environ=settings_env(tmp_path, ANTHROPIC_API_KEY="a", ACME_API_KEY="k"), providers=table)
    assert (by_model.provider, by_model.api_key) == ("acme", "k")
    by_key = load_settings(tmp_path, environ=settings_env(tmp_path, ACME_API_KEY="k"), providers=table)
    assert (by_key.provider, by_key.model) == ("acme", "acme-large")
    assert context_window("acme-small", providers=table) == 32_000

    provider = build_provider("acme", model="acme-small", api_key="k", base_url=None, providers=table)
    request = Request(model="acme-small", system="", messages=[Message.user("hi")])

    async def last_event() -> object:
        return [event async for event in provider.stream(request)][-1]

    done = asyncio.run(last_event())
    assert isinstance(done, Completed) and done.message.text == "hello from the new provider"
    assert built == [("acme-small", "k", None)]
    warm_up("acme", table)


def test_an_unknown_provider_is_a_config_error_naming_the_choices(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="choose one of " + ", ".join(entry.name for entry in PROVIDERS)):
        load_settings(tmp_path, Flags(provider="gemini"), environ=settings_env(tmp_path, ANTHROPIC_API_KEY="k"))


def test_the_table_and_the_version_flag_import_no_sdk() -> None:
    code = (
        "import sys, runpy\n"
        "from pseudoclaude.llm.providers import PROVIDERS, provider_entry\n"
        "entries = [provider_entry(e.name) for e in PROVIDERS]\n"
        "sys.argv = ['pseudoclaude', '--version']\n"
        "try:\n    runpy.run_module('pseudoclaude', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print('heavy:' + ','.join(m for m in ('anthropic', 'openai', 'tiktoken') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "heavy:"


@pytest.mark.parametrize("entry", [pytest.param(entry, id=entry.name) for entry in PROVIDERS if entry.sdk_module])
def test_warm_up_imports_the_entrys_sdk(entry: ProviderEntry) -> None:
    code = f"import sys; from pseudoclaude.llm.warmup import warm_up; warm_up({entry.name!r}); print({entry.sdk_module!r} in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def test_an_entrys_token_variable_configures_it_and_reaches_its_adapter_with_the_headers(tmp_path: Path) -> None:
    built: list[dict[str, object]] = []

    def adapter(**given: object) -> Provider:
        built.append(given)
        return ScriptedProvider([Reply(text="ok")], model=str(given["model"]), name="acme")

    acme = ProviderEntry(
        name="acme",
        key_variable="ACME_API_KEY",
        base_url_variable="ACME_BASE_URL",
        default_model="acme-large",
        adapter=adapter,
        sdk_module="json",
        models=(ModelRow("acme-", 32_000),),
        token_variable="ACME_TOKEN",
        headers_variable="ACME_HEADERS",
    )
    table = (*PROVIDERS, acme)
    assert acme.configured_in({"ACME_TOKEN": "t"}) and not acme.configured_in({"ACME_HEADERS": "X-A: b"})
    settings = load_settings(tmp_path, environ=settings_env(tmp_path, ACME_TOKEN="tok", ACME_HEADERS="X-Team: core"), providers=table)
    assert (settings.provider, settings.api_key, settings.auth_token, settings.extra_headers) == ("acme", None, "tok", (("X-Team", "core"),))
    build_provider("acme", model="acme-1", api_key=None, base_url=None, auth_token=settings.auth_token, headers=settings.extra_headers, providers=table)
    build_provider("acme", model="acme-1", api_key="k", base_url=None, providers=table)
    assert built == [
        {"model": "acme-1", "api_key": None, "base_url": None, "auth_token": "tok", "headers": (("X-Team", "core"),)},
        {"model": "acme-1", "api_key": "k", "base_url": None},
    ]
