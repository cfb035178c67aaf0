"""Which provider a run uses when the model name and the configuration disagree (gateways), and a first run with nothing set."""

from __future__ import annotations

from pathlib import Path

import pytest

from pseudoclaude.config import ConfigError, Flags, NoProviderConfigured, load_settings
from tests.e2e.support import run_cli
from tests.fakes.local_servers import FakeLocalServer
from tests.fakes.ports import refusing_port


def test_a_claude_alias_through_litellm_uses_the_only_configured_provider(tmp_path: Path) -> None:
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:4000/v1", "PSEUDOCLAUDE_HOME": str(tmp_path / "h")}
    settings = load_settings(tmp_path, Flags(model="claude-via-litellm"), environ=env)
    assert (settings.provider, settings.model, settings.base_url) == ("openai", "claude-via-litellm", "http://127.0.0.1:4000/v1")


def test_a_disagreement_without_a_gateway_names_provider(tmp_path: Path) -> None:
    env = {"ANTHROPIC_API_KEY": "k", "PSEUDOCLAUDE_HOME": str(tmp_path / "h")}
    with pytest.raises(ConfigError) as error:
        load_settings(tmp_path, Flags(model="gpt-4o"), environ=env)
    assert "--provider anthropic" in str(error.value) and "OPENAI_API_KEY" in str(error.value)


def test_the_guess_stands_when_it_is_configured(tmp_path: Path) -> None:
    env = {"ANTHROPIC_API_KEY": "k", "OPENAI_BASE_URL": "http://127.0.0.1:4000/v1", "PSEUDOCLAUDE_HOME": str(tmp_path / "h")}
    assert load_settings(tmp_path, Flags(model="claude-sonnet-4-5"), environ=env).provider == "anthropic"


def test_nothing_configured_is_its_own_error(tmp_path: Path) -> None:
    with pytest.raises(NoProviderConfigured):
        load_settings(tmp_path, Flags(), environ={"PSEUDOCLAUDE_HOME": str(tmp_path / "h")})


def _env(tmp_path: Path, ports: str) -> dict[str, str]:
    import os

    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL")) and not k.startswith("PSEUDOCLAUDE_")}
    return {**env, "PSEUDOCLAUDE_HOME": str(tmp_path / "home"), "PSEUDOCLAUDE_LOCAL_PORTS": ports}


def test_headless_with_nothing_configured_names_what_it_tried(tmp_path: Path) -> None:
    with refusing_port() as closed:
        out = run_cli(["-p", "hi"], tmp_path, _env(tmp_path, f"{closed}:Ollama"))
    assert out.returncode == 2
    assert "no model provider is configured" in out.stderr and f"tried Ollama on 127.0.0.1:{closed}" in out.stderr


def test_headless_names_the_flags_that_would_use_a_local_server(tmp_path: Path) -> None:
    with refusing_port() as closed, FakeLocalServer("ollama", model="llama3.2:3b") as server:
        port = server.url.split(":")[2].split("/")[0]
        out = run_cli(["-p", "hi"], tmp_path, _env(tmp_path, f"{closed}:LM Studio,{port}:Ollama"))
    assert out.returncode == 2
    assert f"Ollama answers at {server.url} with llama3.2:3b" in out.stderr
    assert f"OPENAI_BASE_URL={server.url} --provider openai --model llama3.2:3b" in out.stderr
    assert not server.requests  # nothing was sent without the user's word


def test_the_flags_it_names_run_the_task(tmp_path: Path) -> None:
    with FakeLocalServer("ollama", model="llama3.2:3b", window=32_768, loaded=True, replies=["hello from ollama"]) as server:
        env = {**_env(tmp_path, "1:none"), "OPENAI_BASE_URL": server.url}
        out = run_cli(["-p", "hi", "--provider", "openai", "--model", "llama3.2:3b"], tmp_path, env)
    assert out.returncode == 0 and "hello from ollama" in out.stdout


def test_the_repl_asks_and_takes_the_first_model_or_another_one_named(tmp_path: Path) -> None:
    from pseudoclaude.first_run import choose_local_server

    questions: list[str] = []
    with FakeLocalServer("ollama", model="llama3.2:3b") as server:
        port = server.url.split(":")[2].split("/")[0]
        environ = {"PSEUDOCLAUDE_LOCAL_PORTS": f"{port}:Ollama"}
        yes = choose_local_server("no provider", lambda q: questions.append(q) or "\n", environ)
        named = choose_local_server("no provider", lambda q: "llama3.2:3b", environ)
        with pytest.raises(ConfigError) as refused:
            choose_local_server("no provider", lambda q: "n", environ)
    assert (yes.base_url, yes.model) == (server.url, "llama3.2:3b") and named.model == "llama3.2:3b"
    assert "Use llama3.2:3b? [Y/n" in questions[0] and "not using Ollama" in str(refused.value)
