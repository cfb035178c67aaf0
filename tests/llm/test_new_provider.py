"""A provider defined only here, one ``ProviderEntry`` in a test's table, runs a prompt and passes ``doctor``.

The recipe in ``docs/ARCHITECTURE.md``: an adapter (here the OpenAI one, for a
service speaking its Chat Completions API) and one entry. Nothing outside this
file names "acme": the settings find it by its key, the model by its row,
``doctor`` asks the endpoint the entry names, and the prompt goes over HTTP
through the real SDK to the wire-level fake.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from pseudoclaude.doctor import doctor_exit_code, run_doctor
from pseudoclaude.config import Flags, load_settings
from pseudoclaude.llm import PROVIDERS, Completed, Message, ModelRow, Provider, ProviderEntry, Request, build_provider
from pseudoclaude.llm.gateway import Headers
from pseudoclaude.llm.openai import OpenAIProvider
from tests.fakes.local_servers import FakeLocalServer

MODEL = "acme-coder-1"


def acme_table(endpoint: str) -> tuple[ProviderEntry, ...]:
    def adapter(*, model: str, api_key: str | None, base_url: str | None, api: str = "auto", auth_token: str | None = None, headers: Headers = ()) -> Provider:
        return OpenAIProvider(model=model, api_key=api_key, base_url=base_url or endpoint, api="chat", headers=headers)

    acme = ProviderEntry(
        name="acme",
        base_url_variable="ACME_BASE_URL",
        default_model=MODEL,
        adapter=adapter,
        models=(ModelRow("acme-", 64_000, 1.0, 2.0),),
        key_variable="ACME_API_KEY",
        display_name="Acme",
        default_endpoint=endpoint,
    )
    return (*PROVIDERS, acme)


def env(tmp_path: Path) -> dict[str, str]:
    return {"PSEUDOCLAUDE_HOME": str(tmp_path / "home"), "ACME_API_KEY": "acme-key"}


def test_the_new_provider_answers_a_prompt_through_its_adapter(tmp_path: Path) -> None:
    with FakeLocalServer("vllm", model=MODEL, window=64_000, replies=["hello from acme"]) as server:
        table = acme_table(server.url)
        settings = load_settings(tmp_path, Flags(), env(tmp_path), table)
        assert (settings.provider, settings.model, settings.api_key, settings.base_url) == ("acme", MODEL, "acme-key", None)
        provider = build_provider(settings.provider, model=settings.model, api_key=settings.api_key, base_url=settings.base_url, providers=table)

        async def last_event() -> object:
            try:
                return [event async for event in provider.stream(Request(model=MODEL, system="be brief", messages=[Message.user("hi")]))][-1]
            finally:
                await provider.aclose()

        done = asyncio.run(last_event())
    assert isinstance(done, Completed) and done.message.text == "hello from acme"
    assert server.requests and server.requests[-1]["model"] == MODEL


def test_doctor_passes_the_new_provider_at_the_endpoint_its_entry_names(tmp_path: Path) -> None:
    with FakeLocalServer("vllm", model=MODEL, window=64_000) as server:
        checks = run_doctor(tmp_path, Flags(), env(tmp_path), acme_table(server.url))
        assert not server.requests  # no prompt: doctor spends no tokens
    by_name = {check.name: check for check in checks}
    assert doctor_exit_code(checks) == 0, [check.line() for check in checks]
    assert by_name["provider"].detail == f"acme, model {MODEL}"
    assert by_name["key"].detail == "ACME_API_KEY is set"
    assert by_name["endpoint"].detail == f"{server.url} answers (1 models)"
    assert by_name["model"].detail == f"{MODEL} is listed"
    assert by_name["window"].detail == "64,000 tokens (model table)"
