from __future__ import annotations

import json
from pathlib import Path

import pytest

from pseudoclaude.config import ConfigError, Flags, load_settings


def settings_for(tmp_path: Path, env: dict[str, str], flags: Flags = Flags()):  # type: ignore[no-untyped-def]
    return load_settings(tmp_path, flags, environ={"PSEUDOCLAUDE_HOME": str(tmp_path / "home"), **env})


def test_no_provider_names_every_variable(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        settings_for(tmp_path, {})
    assert "ANTHROPIC_API_KEY" in str(info.value) and "OPENAI_API_KEY" in str(info.value) and "OPENAI_BASE_URL" in str(info.value)


def test_provider_is_inferred_from_the_key(tmp_path: Path) -> None:
    assert settings_for(tmp_path, {"ANTHROPIC_API_KEY": "k"}).provider == "anthropic"
    assert settings_for(tmp_path, {"OPENAI_API_KEY": "k"}).provider == "openai"


def test_provider_is_inferred_from_the_model_name(tmp_path: Path) -> None:
    s = settings_for(tmp_path, {"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o"}, Flags(model="gpt-4o"))
    assert (s.provider, s.api_key) == ("openai", "o")


def test_openai_compatible_server_needs_no_key(tmp_path: Path) -> None:
    s = settings_for(tmp_path, {"OPENAI_BASE_URL": "http://127.0.0.1:11434/v1", "PSEUDOCLAUDE_MODEL": "qwen2.5-coder"})
    assert (s.provider, s.api_key, s.base_url, s.model) == ("openai", None, "http://127.0.0.1:11434/v1", "qwen2.5-coder")


def test_dotenv_is_read_and_the_environment_wins(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("ANTHROPIC_API_KEY=from-dotenv\nPSEUDOCLAUDE_MODEL=claude-x\n")
    assert settings_for(tmp_path, {}).api_key == "from-dotenv"
    assert settings_for(tmp_path, {"ANTHROPIC_API_KEY": "from-env"}).api_key == "from-env"


def test_flags_beat_environment_beat_settings_files(tmp_path: Path) -> None:
    (tmp_path / ".pseudoclaude").mkdir()
    (tmp_path / ".pseudoclaude" / "settings.json").write_text(json.dumps({"model": "claude-from-project", "contextWindow": 1000}))
    (tmp_path / ".pseudoclaude" / "settings.local.json").write_text(json.dumps({"contextWindow": 2000}))
    env = {"ANTHROPIC_API_KEY": "k"}
    s = settings_for(tmp_path, env)
    assert (s.model, s.context_window) == ("claude-from-project", 2000)
    s = settings_for(tmp_path, {**env, "PSEUDOCLAUDE_MODEL": "claude-env", "PSEUDOCLAUDE_CONTEXT_WINDOW": "3000"})
    assert (s.model, s.context_window) == ("claude-env", 3000)
    s = settings_for(tmp_path, {**env, "PSEUDOCLAUDE_MODEL": "claude-env"}, Flags(model="claude-flag", context_window=4000))
    assert (s.model, s.context_window) == ("claude-flag", 4000)


def test_the_key_never_appears_in_repr(tmp_path: Path) -> None:
    s = settings_for(tmp_path, {"ANTHROPIC_API_KEY": "sk-ant-very-secret"})
    assert "sk-ant-very-secret" not in repr(s)


@pytest.mark.parametrize(
    "env",
    [{"PSEUDOCLAUDE_CONTEXT_WINDOW": "big"}, {"PSEUDOCLAUDE_CONTEXT_WINDOW": "-5"}, {"PSEUDOCLAUDE_PROVIDER": "gemini"}],
)
def test_bad_values_are_clear_errors(tmp_path: Path, env: dict[str, str]) -> None:
    with pytest.raises(ConfigError):
        settings_for(tmp_path, {"ANTHROPIC_API_KEY": "k", **env})


def test_a_broken_settings_file_names_its_path(tmp_path: Path) -> None:
    (tmp_path / ".pseudoclaude").mkdir()
    bad = tmp_path / ".pseudoclaude" / "settings.json"
    bad.write_text("{not json")
    with pytest.raises(ConfigError) as info:
        settings_for(tmp_path, {"ANTHROPIC_API_KEY": "k"})
    assert str(bad) in str(info.value)


def test_the_sessions_command_and_load_settings_agree_on_the_sessions_dir(tmp_path: Path) -> None:
    from pseudoclaude.config import resolve_sessions_dir

    env = {"PSEUDOCLAUDE_HOME": str(tmp_path / "home"), "ANTHROPIC_API_KEY": "k"}
    assert resolve_sessions_dir(tmp_path, environ=env) == load_settings(tmp_path, environ=env).sessions_dir == tmp_path / "home" / "sessions"
    (tmp_path / ".pseudoclaude").mkdir()
    (tmp_path / ".pseudoclaude" / "settings.json").write_text(json.dumps({"sessionsDir": str(tmp_path / "elsewhere")}))
    assert resolve_sessions_dir(tmp_path, environ=env) == load_settings(tmp_path, environ=env).sessions_dir == tmp_path / "home" / "sessions"
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "settings.json").write_text(json.dumps({"trustedWorkspaces": [str(tmp_path)]}))
    assert resolve_sessions_dir(tmp_path, environ=env) == load_settings(tmp_path, environ=env).sessions_dir == tmp_path / "elsewhere"
    assert resolve_sessions_dir(tmp_path, tmp_path / "flag", environ=env) == tmp_path / "flag"


def test_effort_comes_from_flag_then_environment_then_settings(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (tmp_path / ".pseudoclaude").mkdir()
    (tmp_path / ".pseudoclaude" / "settings.json").write_text(json.dumps({"effort": "low", "maxThinkingTokens": 2048}))
    env = {"ANTHROPIC_API_KEY": "k", "PSEUDOCLAUDE_HOME": str(home)}
    assert settings_for(tmp_path, env).effort == "low"
    assert settings_for(tmp_path, env).max_thinking_tokens == 2048
    assert settings_for(tmp_path, {**env, "PSEUDOCLAUDE_EFFORT": "medium", "MAX_THINKING_TOKENS": "4096"}).max_thinking_tokens == 4096
    assert settings_for(tmp_path, {**env, "PSEUDOCLAUDE_EFFORT": "medium"}).effort == "medium"
    assert settings_for(tmp_path, {**env, "PSEUDOCLAUDE_EFFORT": "medium"}, Flags(effort="max", thinking="disabled")).effort == "max"


@pytest.mark.parametrize(
    ("flags", "fragment"),
    [(Flags(effort="extreme"), "unknown effort"), (Flags(max_thinking_tokens=1000), "at least 1024"), (Flags(thinking="always"), "unknown thinking mode")],
)
def test_bad_reasoning_settings_are_one_clear_error(tmp_path: Path, flags: Flags, fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment):
        settings_for(tmp_path, {"ANTHROPIC_API_KEY": "k", "PSEUDOCLAUDE_HOME": str(tmp_path / "home")}, flags)
