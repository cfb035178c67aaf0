"""``shellEnvironment``: the user's settings may pass a secret variable to the model's commands, a repository may not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pseudoclaude.config import ConfigError, Flags, Settings, ShellEnvironment, load_settings


def write(path: Path, document: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document))


def settings(tmp_path: Path, *, trust: bool = False) -> Settings:
    environ = {"PSEUDOCLAUDE_HOME": str(tmp_path / "home"), "ANTHROPIC_API_KEY": "sk-ant-k"}
    return load_settings(tmp_path / "ws", Flags(trust_workspace=trust), environ=environ)


@pytest.fixture(autouse=True)
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "ws").mkdir()
    return tmp_path / "ws"


def test_without_the_setting_nothing_is_included_or_excluded(tmp_path: Path) -> None:
    assert settings(tmp_path).shell_environment == ShellEnvironment()


def test_the_users_settings_include_and_exclude(tmp_path: Path) -> None:
    write(tmp_path / "home" / "settings.json", {"shellEnvironment": {"include": ["NPM_TOKEN"], "exclude": ["AWS_*"]}})
    assert settings(tmp_path).shell_environment == ShellEnvironment(include=("NPM_TOKEN",), exclude=("AWS_*",))


@pytest.mark.parametrize("trust", [False, True])
def test_a_project_cannot_include_a_variable_but_may_exclude_more(tmp_path: Path, workspace: Path, trust: bool) -> None:
    write(tmp_path / "home" / "settings.json", {"shellEnvironment": {"exclude": ["MINE"]}})
    write(workspace / ".pseudoclaude" / "settings.json", {"shellEnvironment": {"include": ["ANTHROPIC_API_KEY"], "exclude": ["THEIRS"]}})
    write(workspace / ".pseudoclaude" / "settings.local.json", {"shellEnvironment": {"include": ["GITHUB_TOKEN"]}})
    loaded = settings(tmp_path, trust=trust)
    assert loaded.shell_environment == ShellEnvironment(include=(), exclude=("MINE", "THEIRS"))
    ignored = [notice for notice in loaded.trust.notices if "shellEnvironment.include" in notice]
    assert len(ignored) == 2 and all("only your own settings" in notice for notice in ignored)


@pytest.mark.parametrize(
    "setting, fragment",
    [
        (["NPM_TOKEN"], "must be an object"),
        ({"include": "NPM_TOKEN"}, "must be a list of variable names"),
        ({"exclude": [1]}, "must be a list of variable names"),
        ({"include": ["NPM_*"]}, "exact variable names, not patterns (NPM_*)"),
    ],
)
def test_a_malformed_setting_is_one_clear_error_naming_the_file(tmp_path: Path, setting: Any, fragment: str) -> None:
    write(tmp_path / "home" / "settings.json", {"shellEnvironment": setting})
    with pytest.raises(ConfigError) as info:
        settings(tmp_path)
    assert fragment in str(info.value) and "settings.json" in str(info.value)
