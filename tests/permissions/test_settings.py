from __future__ import annotations

import json
from pathlib import Path

import pytest

from pseudoclaude.config import local_settings_path, settings_paths

from pseudoclaude.tools.permissions import (
    Rule,
    Rules,
    SettingsError,
    append_local_rule,
    local_rule_sink,
)
from pseudoclaude.tools.permissions.settings import read_settings


def write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def test_missing_file_reads_as_empty(tmp_path: Path) -> None:
    assert read_settings(tmp_path / "ws" / ".pseudoclaude" / "settings.json") == {}


def test_invalid_json_names_the_file(tmp_path: Path) -> None:
    project = settings_paths(tmp_path, tmp_path / "user")[1]
    project.parent.mkdir(parents=True)
    project.write_text("{not json", encoding="utf-8")
    with pytest.raises(SettingsError, match="settings.json"):
        read_settings(project)


def test_append_creates_the_local_file(tmp_path: Path) -> None:
    path = append_local_rule(tmp_path, Rule("run_command", "make test"))
    assert json.loads(path.read_text()) == {"permissions": {"allow": ["run_command(make test)"]}}
    assert path == tmp_path / ".pseudoclaude" / "settings.local.json"


def test_append_keeps_other_keys_and_does_not_duplicate(tmp_path: Path) -> None:
    local = local_settings_path(tmp_path)
    write(local, {"model": "x", "permissions": {"deny": ["write_file"], "allow": ["glob"]}})
    sink = local_rule_sink(tmp_path)
    sink(Rule("edit_file"))
    sink(Rule("edit_file"))
    assert json.loads(local.read_text()) == {"model": "x", "permissions": {"deny": ["write_file"], "allow": ["glob", "edit_file"]}}
    assert sorted(p.name for p in local.parent.iterdir()) == ["settings.local.json", "settings.local.json.lock"]


def test_append_refuses_to_overwrite_a_broken_file(tmp_path: Path) -> None:
    local = local_settings_path(tmp_path)
    local.parent.mkdir(parents=True)
    local.write_text("{broken", encoding="utf-8")
    with pytest.raises(SettingsError):
        append_local_rule(tmp_path, Rule("glob"))
    assert local.read_text() == "{broken"


def test_saved_rule_is_loaded_back(tmp_path: Path) -> None:
    append_local_rule(tmp_path, Rule("run_command", "npm test:*"))
    local = local_settings_path(tmp_path)
    assert Rules.from_settings(read_settings(local)).allow == (Rule("run_command", "npm test:*"),)


def test_local_settings_are_kept_out_of_git_without_touching_gitignore(tmp_path: Path) -> None:
    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("# git ls-files --others --exclude-from=.git/info/exclude")
    append_local_rule(tmp_path, Rule("run_command", "make test"))
    append_local_rule(tmp_path, Rule("run_command", "make lint"))
    lines = (tmp_path / ".git" / "info" / "exclude").read_text().splitlines()
    assert lines[1:] == [".pseudoclaude/settings.local.json", ".pseudoclaude/settings.local.json.lock"]
    assert not (tmp_path / ".gitignore").exists()


def test_outside_a_git_work_tree_nothing_is_excluded(tmp_path: Path) -> None:
    append_local_rule(tmp_path, Rule("glob"))
    assert not (tmp_path / ".git").exists()
