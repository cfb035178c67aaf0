"""The setting recipe (docs/ARCHITECTURE.md): one row in the table and a consumer reading ``Settings.value``.

The row here is a test table's (``load_settings`` takes the table as it takes
the provider table); nothing else is changed, and the new setting resolves
from a variable or the files with the table's merge rule, records where it
came from, is checked by its parser, and shows on ``/status``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pseudoclaude.config import SETTINGS, ConfigError, Setting, load_settings
from pseudoclaude.config.table import positive_int
from pseudoclaude.tui.status_view import status_rows

REVIEW_DEPTH = Setting("review_depth", "reviewDepth", positive_int, env=("PSEUDOCLAUDE_REVIEW_DEPTH",), merge="lowest", label="review depth")
TABLE = (*SETTINGS, REVIEW_DEPTH)


def environment(home: Path, **extra: str) -> dict[str, str]:
    return {"ANTHROPIC_API_KEY": "sk-ant-test-secret-123", "PSEUDOCLAUDE_HOME": str(home), **extra}


def test_a_new_row_resolves_from_its_variable_and_says_where_it_came_from(tmp_path: Path) -> None:
    settings = load_settings(tmp_path, environ=environment(tmp_path / "home", PSEUDOCLAUDE_REVIEW_DEPTH="3"), table=TABLE)
    assert settings.value("review_depth") == 3
    assert settings.origins["review_depth"].source == "environment PSEUDOCLAUDE_REVIEW_DEPTH"
    assert ("review depth", "3", "environment PSEUDOCLAUDE_REVIEW_DEPTH") in status_rows(settings, "default")


def test_from_the_files_its_merge_rule_holds_and_unset_it_is_not_listed(tmp_path: Path) -> None:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    (workspace / ".pseudoclaude").mkdir(parents=True)
    (home / "settings.json").write_text(json.dumps({"reviewDepth": 5}))
    (workspace / ".pseudoclaude" / "settings.json").write_text(json.dumps({"reviewDepth": 2}))
    settings = load_settings(workspace, environ=environment(home), table=TABLE)
    assert settings.value("review_depth") == 2  # "lowest": a project may tighten it
    assert "settings.json" in settings.origins["review_depth"].source
    unset = load_settings(tmp_path, environ=environment(tmp_path / "other"), table=TABLE)
    assert unset.value("review_depth") is None
    assert all(row[0] != "review depth" for row in status_rows(unset, "default"))


def test_a_bad_value_is_refused_naming_where_it_came_from(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="PSEUDOCLAUDE_REVIEW_DEPTH"):
        load_settings(tmp_path, environ=environment(tmp_path / "home", PSEUDOCLAUDE_REVIEW_DEPTH="0"), table=TABLE)
