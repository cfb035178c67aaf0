"""/model's list and Tab completion: real ids from the provider's models endpoint, else the table's full ids."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from pseudoclaude.config import Flags, Settings, load_settings
from pseudoclaude.llm import PROVIDERS
from pseudoclaude.tui.input import ReplCompleter
from pseudoclaude.tui.model_list import model_ids, provider_models, table_ids
from pseudoclaude.tui.slash import ARGUMENT_CHOICES
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.local_servers import FakeLocalServer
from tests.fakes.openai_server import FakeOpenAIServer
from tests.tui.terminal import Terminal, start


def openai_settings(tmp_path: Path, url: str, model: str) -> tuple[Settings, dict[str, str]]:
    (tmp_path / "ws").mkdir(exist_ok=True)
    env = {"OPENAI_API_KEY": "k-test", "OPENAI_BASE_URL": url, "PSEUDOCLAUDE_HOME": str(tmp_path / "home")}
    return load_settings(tmp_path / "ws", Flags(model=model, provider="openai"), environ=env), env


def test_the_configured_providers_ids_come_from_its_models_endpoint_and_are_cached(tmp_path: Path) -> None:
    with FakeLocalServer("ollama", model="qwen2.5-coder:7b") as server:
        settings, env = openai_settings(tmp_path, server.url, "qwen2.5-coder:7b")
        groups = {group.provider: group for group in provider_models(settings, env)}
        assert server.paths.count("GET /v1/models") == 1
    assert groups["openai"].ids == ("qwen2.5-coder:7b",) and groups["openai"].source == "endpoint"
    assert groups["anthropic"].source == "table" and groups["anthropic"].needs == "ANTHROPIC_API_KEY"
    assert "claude-sonnet-4-5" in groups["anthropic"].ids
    assert provider_models(settings, env)[1].ids == ("qwen2.5-coder:7b",)  # the server is gone: the answer was kept


def test_the_anthropic_models_endpoint_is_asked_with_its_key_header_and_version(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    with FakeAnthropicServer([], models=("claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805")) as server:
        env = {"ANTHROPIC_API_KEY": "k-test", "ANTHROPIC_BASE_URL": server.url, "PSEUDOCLAUDE_HOME": str(tmp_path / "home")}
        settings = load_settings(tmp_path / "ws", Flags(model="claude-sonnet-4-5"), environ=env)
        groups = {group.provider: group for group in provider_models(settings, env)}
    assert groups["anthropic"].ids == ("claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805")
    assert groups["anthropic"].source == "endpoint"
    assert groups["openai"].source == "table" and groups["openai"].needs == "OPENAI_API_KEY"


def test_tab_does_not_wait_for_the_endpoint_the_table_answers_until_it_has(tmp_path: Path) -> None:
    with FakeLocalServer("ollama", model="qwen2.5-coder:7b") as server:
        settings, env = openai_settings(tmp_path, server.url, "qwen2.5-coder:7b")
        first = model_ids(settings, env, wait=False)
        deadline = time.monotonic() + 3
        while "qwen2.5-coder:7b" not in model_ids(settings, env, wait=False) and time.monotonic() < deadline:
            time.sleep(0.02)
        later = model_ids(settings, env, wait=False)
        assert server.paths.count("GET /v1/models") == 1
    assert "gpt-4.1" in first and "qwen2.5-coder:7b" not in first
    assert later[0] == "qwen2.5-coder:7b" and "gpt-4.1" not in later


def test_when_the_endpoint_does_not_answer_the_tables_full_ids_are_listed(tmp_path: Path) -> None:
    with FakeOpenAIServer([]) as server:
        settings, env = openai_settings(tmp_path, server.url, "gpt-4.1")
        groups = {group.provider: group for group in provider_models(settings, env)}
    assert groups["openai"].source == "table"
    assert {"gpt-4.1", "gpt-5", "o3", "gpt-4o-mini"} <= set(groups["openai"].ids)
    assert groups["openai"].needs == ""


def test_every_table_id_is_a_full_id_its_own_row_answers_and_no_prefix_is_offered() -> None:
    for entry in PROVIDERS:
        for model in table_ids(entry):
            row = entry.model_row(model)
            assert row is not None and model in row.full_ids()
    offered = set(ARGUMENT_CHOICES["/model"])  # type: ignore[arg-type]
    assert offered == {model for entry in PROVIDERS for model in table_ids(entry)}
    assert {entry.default_model for entry in PROVIDERS} <= offered
    assert not offered & {row.prefix for entry in PROVIDERS for row in entry.models if not row.exact and row.prefix not in row.full_ids()}
    assert not offered & {"claude", "chatgpt", "claude-haiku-4", "gpt-", "gpt-5."}


def test_tab_offers_every_id_and_narrows_as_one_types(tmp_path: Path) -> None:
    with FakeOpenAIServer([]) as server:
        settings, env = openai_settings(tmp_path, server.url, "gpt-4.1")
        every = model_ids(settings, env)
        completer = ReplCompleter([("/model", "model")], Path("."), {"/model": lambda: model_ids(settings, env)})

        def offered(text: str) -> list[str]:
            return [c.text for c in completer.get_completions(Document(text, len(text)), CompleteEvent(completion_requested=True))]

        assert offered("/model ") == list(every)
        openai = next(entry for entry in PROVIDERS if entry.name == "openai")
        assert len(every) > 30 and every[: len(table_ids(openai))] == table_ids(openai)  # the current provider's first
        assert offered("/model claude-so") == [model for model in every if model.startswith("claude-so")]
        assert len(offered("/model claude-so")) > 2


@pytest.mark.slow
def test_in_the_repl_model_lists_full_ids_and_tab_completes_one(tmp_path: Path, terminals: list[Terminal]) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with FakeAnthropicServer([]) as server:
        term = start(terminals, workspace, server, tmp_path / "home")
        term.expect_prompt()
        term.send_line("/model")
        term.expect("from the built-in table")
        start_at = len(term.raw)
        term.expect(r"\s+openai")
        listing = " ".join(re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", term.raw[start_at:]).split())
        anthropic = next(entry for entry in PROVIDERS if entry.name == "anthropic")
        assert all(model in listing for model in table_ids(anthropic))
        assert not re.search(r"claude-haiku-4(?!-)", listing)
        term.expect_prompt()
        target = table_ids(anthropic)[-1]  # typed but for its last character, the menu's first entry is itself
        assert [model for model in table_ids(anthropic) if model.startswith(target[:-1])][0] == target
        term.send("/model " + target[:-1])
        term.expect(re.escape(target))  # the menu completing while typing
        term.send("\t")
        term.expect(re.escape(target[-4:]))  # Tab took the entry into the line
        term.send("\r")  # the first Enter takes the highlighted completion, the second sends
        term.send("\r")
        term.expect(r"Model set to .*" + re.escape(target))
        term.expect_prompt()
        term.send("\x04")
        assert term.exit_code() == 0
