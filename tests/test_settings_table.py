"""The settings table and its resolver: expectations derived from the rows, not copied beside them."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from pseudoclaude.config import (
    SCOPES,
    SETTINGS,
    ConfigError,
    Flags,
    Setting,
    SettingsFile,
    SettingsFiles,
    Variables,
    claude_config_dir,
    describe,
    parse_setting_sources,
    read_settings_file,
    resolve,
    settings_files,
)
from pseudoclaude.config.table import dollars, folder, positive_int, switch, text, thinking_tokens
from pseudoclaude.tools.permissions.settings import read_settings

WORKSPACE = Path("/work/space")
FILES = settings_files(WORKSPACE, Path("/home/u/.pseudoclaude"), {"CLAUDE_CONFIG_DIR": "/home/u/.claude"})
SCALAR = [row for row in SETTINGS if row.merge != "combine"]


def samples(row: Setting) -> tuple[Any, Any]:
    """Two distinct valid raw values for ``row`` (the first lower), from its parser."""
    parse = row.parse
    if parse is positive_int:
        return 1000, 2000
    if parse is thinking_tokens:
        return 2048, 4096
    if parse is dollars:
        return 1.5, 3.0
    if parse is folder:
        return "/a", "/b"
    if parse is switch:
        return False, True
    if parse is text:
        return "a-value", "b-value"
    choices = getattr(parse, "__closure__", None)
    if choices:
        options = next(cell.cell_contents for cell in choices if isinstance(cell.cell_contents, tuple))
        return options[0], options[1]
    return ["a"], ["b"]


def layer_for(row: Setting, value: Any) -> dict[str, Any]:
    assert row.key is not None
    layer: dict[str, Any] = {}
    parts = row.key.split(".")
    target = layer
    for part in parts[:-1]:
        target = target.setdefault(part, {})
    target[parts[-1]] = value
    return layer


def files_with(values: dict[int, dict[str, Any]]) -> SettingsFiles:
    return SettingsFiles(FILES, tuple(values.get(index, {}) for index in range(len(FILES))))


def parsed(row: Setting, raw: Any) -> Any:
    return row.parse(raw, "test")


def test_every_row_is_named_once_and_its_flag_is_a_flags_field() -> None:
    names = [row.name for row in SETTINGS]
    assert len(names) == len(set(names))
    fields = {field.name for field in dataclasses.fields(Flags)}
    assert {row.flag for row in SETTINGS if row.flag} <= fields


def test_the_files_are_claude_then_ours_at_each_scope() -> None:
    assert [(file.scope, file.family) for file in FILES] == [(scope, family) for scope in SCOPES for family in ("claude", "ours")]
    assert FILES[0].path == Path("/home/u/.claude/settings.json") and FILES[2].path == WORKSPACE / ".claude" / "settings.json"


@pytest.mark.parametrize("row", [row for row in SCALAR if row.merge in ("last", "mode")], ids=lambda row: row.name)
def test_a_last_wins_row_takes_the_strongest_file_of_its_families(row: Setting) -> None:
    low, high = samples(row)
    readable = [index for index, file in enumerate(FILES) if file.family in row.families]
    unread = [index for index, file in enumerate(FILES) if file.family not in row.families]
    files = files_with(
        {readable[0]: layer_for(row, low), readable[-1]: layer_for(row, high), **{index: layer_for(row, low) for index in unread if index > readable[-1]}}
    )
    found = resolve(row, Flags(), Variables({}), files)
    assert found.value == parsed(row, high)
    assert found.source == describe(FILES[readable[-1]])


@pytest.mark.parametrize("row", [row for row in SCALAR if row.merge == "lowest"], ids=lambda row: row.name)
def test_a_lowest_row_takes_the_lowest_value_whatever_the_file(row: Setting) -> None:
    low, high = samples(row)
    files = files_with({0: layer_for(row, high), len(FILES) - 1: layer_for(row, low), 1: layer_for(row, high)})
    assert resolve(row, Flags(), Variables({}), files).value == parsed(row, low)


@pytest.mark.parametrize("row", [row for row in SCALAR if row.merge == "user"], ids=lambda row: row.name)
def test_a_user_row_ignores_every_project_and_local_file(row: Setting) -> None:
    low, high = samples(row)
    project = {index: layer_for(row, high) for index, file in enumerate(FILES) if file.scope != "user"}
    assert resolve(row, Flags(), Variables({}), files_with(project)).value == row.default
    user = next(index for index, file in enumerate(FILES) if file.scope == "user" and file.family in row.families)
    assert resolve(row, Flags(), Variables({}), files_with({**project, user: layer_for(row, low)})).value == parsed(row, low)


@pytest.mark.parametrize("row", [row for row in SCALAR if row.flag or row.env], ids=lambda row: row.name)
def test_the_flag_beats_the_variables_which_beat_the_files(row: Setting) -> None:
    low, high = samples(row)
    if row.merge == "user":
        low, high = high, low
    user = next(index for index, file in enumerate(FILES) if file.family in row.families and file.scope == "user")
    files = files_with({user: layer_for(row, low)})
    if row.env:
        variable = row.env[-1]
        found = resolve(row, Flags(), Variables({variable: "1" if row.parse is switch else str(high)}), files)
        assert (found.value, found.source) == (parsed(row, "1" if row.parse is switch else str(high)), f"environment {variable}")
        dotenv = resolve(row, Flags(), Variables({}, {variable: "1" if row.parse is switch else str(high)}), files)
        assert dotenv.source == (f".env {variable}" if row.workspace_env else describe(FILES[user]))
    if row.flag:
        given = parsed(row, high)
        found = resolve(row, dataclasses.replace(Flags(), **{row.flag: given}), Variables({name: str(low) for name in row.env}), files)
        assert (found.value, found.source) == (given, f"command line {row.flag_name}")


def test_a_project_default_mode_does_not_lift_the_users_plan() -> None:
    row = next(row for row in SETTINGS if row.merge == "mode")
    files = files_with({1: layer_for(row, "plan"), 3: layer_for(row, "default")})
    assert resolve(row, Flags(), Variables({}), files).value == "plan"
    files = files_with({1: layer_for(row, "plan"), 3: layer_for(row, "acceptEdits")})
    assert resolve(row, Flags(), Variables({}), files).value == "acceptEdits"


def test_combine_rows_keep_every_files_value_and_name_each_file() -> None:
    for row in (row for row in SETTINGS if row.merge == "combine" and row.key and "." not in row.key):
        readable = [index for index, file in enumerate(FILES) if file.family in row.families]
        files = files_with({index: {row.key: [index]} for index in readable})
        found = resolve(row, Flags(), Variables({}), files)
        assert found.value == [[index] for index in readable]
        assert found.source == ", ".join(describe(FILES[index]) for index in readable)


def test_the_users_env_setting_beats_dotenv_and_a_projects_comes_last() -> None:
    user, project = SettingsFile("user", "claude", Path("/u/settings.json")), SettingsFile("project", "claude", WORKSPACE / ".claude" / "settings.json")
    variables = Variables({}, {"A": "dotenv", "B": "dotenv"}, {"A": ("user", user), "B": ("project", project), "C": ("project", project)})
    assert [variables.get(name) for name in "ABC"] == ["user", "dotenv", "project"]
    assert variables.find("C") == ("project", "Claude Code project settings (.claude/settings.json) env C")
    assert variables.find("C", workspace=False) is None and variables.users() == {"A": "user"}


def test_claude_config_dir_replaces_the_home_folders_dot_claude() -> None:
    assert claude_config_dir({"CLAUDE_CONFIG_DIR": "/x/cc", "HOME": "/h"}) == Path("/x/cc")
    assert claude_config_dir({"HOME": "/h"}) == Path("/h/.claude")


def test_setting_sources_restrict_claude_codes_files_only() -> None:
    assert parse_setting_sources(None) == SCOPES and parse_setting_sources("") == () and parse_setting_sources("local,user") == ("user", "local")
    with pytest.raises(ConfigError, match="unknown source 'team'"):
        parse_setting_sources("user,team")
    files = settings_files(WORKSPACE, Path("/p"), {"CLAUDE_CONFIG_DIR": "/c"}, ())
    assert {file.family for file in files} == {"ours"} and len(files) == len(SCOPES)


def test_a_claude_project_file_that_is_the_users_own_is_read_once(tmp_path: Path) -> None:
    files = settings_files(tmp_path, tmp_path / "p", {"HOME": str(tmp_path)})
    assert [file.path for file in files].count(tmp_path / ".claude" / "settings.json") == 1


@pytest.mark.parametrize("content", ["", "  \n"])
def test_an_empty_file_is_an_empty_object_for_every_reader(tmp_path: Path, content: str) -> None:
    path = tmp_path / "settings.json"
    path.write_text(content)
    assert read_settings_file(path) == read_settings(path) == {}


def test_a_broken_file_is_one_error_naming_it_for_every_reader(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps([1]))
    with pytest.raises(ConfigError, match=str(path)):
        read_settings_file(path)
    with pytest.raises(Exception, match=str(path)):
        read_settings(path)
