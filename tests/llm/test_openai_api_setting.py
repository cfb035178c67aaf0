"""Which OpenAI API the adapter speaks: the table by default, ``PSEUDOCLAUDE_OPENAI_API`` / ``openaiApi`` when told."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pseudoclaude.config import ConfigError, load_settings
from pseudoclaude.llm import build_provider


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"PSEUDOCLAUDE_HOME": str(tmp_path / "home"), "OPENAI_API_KEY": "k", "PSEUDOCLAUDE_MODEL": "gpt-5", **extra}


def test_auto_by_default_and_the_environment_beats_the_settings_file(tmp_path: Path) -> None:
    assert load_settings(tmp_path, environ=_env(tmp_path)).openai_api == "auto"
    (tmp_path / ".pseudoclaude").mkdir()
    (tmp_path / ".pseudoclaude" / "settings.json").write_text(json.dumps({"openaiApi": "chat"}))
    assert load_settings(tmp_path, environ=_env(tmp_path)).openai_api == "chat"
    assert load_settings(tmp_path, environ=_env(tmp_path, PSEUDOCLAUDE_OPENAI_API="responses")).openai_api == "responses"


def test_an_unknown_api_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown OpenAI API 'assistants'"):
        load_settings(tmp_path, environ=_env(tmp_path, PSEUDOCLAUDE_OPENAI_API="assistants"))


def test_the_setting_reaches_the_adapter_and_the_other_provider_ignores_it() -> None:
    local = "http://127.0.0.1:9/v1"
    told = build_provider("openai", model="gpt-5", api_key=None, base_url=local, api="responses")
    assert getattr(told, "takes_responses")("gpt-5")
    assert not getattr(build_provider("openai", model="gpt-5", api_key=None, base_url=local), "takes_responses")("gpt-5")
    assert not getattr(build_provider("openai", model="gpt-5", api_key="k", base_url=None, api="chat"), "takes_responses")("gpt-5")
    assert build_provider("anthropic", model="claude-sonnet-4-5", api_key="k", base_url=None, api="responses").name == "anthropic"
