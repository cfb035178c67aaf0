"""``.pseudoclaudeignore``: both grep engines and glob skip what it names, the same way ripgrep does."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pseudoclaude.tools import ToolContext
from pseudoclaude.tools.glob_tool import GlobTool
from pseudoclaude.tools.grep import GrepTool
from pseudoclaude.tools.ripgrep import find_rg

from .conftest import Call

RG = find_rg()
ENGINES = [pytest.param(None, id="python"), pytest.param(RG, id="ripgrep", marks=pytest.mark.skipif(RG is None, reason="no rg"))]


@pytest.fixture
def tree(workspace: Path) -> Path:
    files = {
        ".pseudoclaudeignore": "/vendor\n*.min.js\nfixtures/\n# a comment\n",
        ".gitignore": "!keep.min.js\n*.log\n",
        "src/app.py": "needle\n",
        "src/vendor/own.py": "needle\n",
        "vendor/lib.py": "needle\n",
        "web/app.min.js": "needle\n",
        "web/keep.min.js": "needle\n",
        "tests/fixtures/big.txt": "needle\n",
        "tests/test_app.py": "needle\n",
        "trace.log": "needle\n",
        "src/debug.log": "needle\n",
        "src/[odd]/x.py": "needle\n",
    }
    for name, text in files.items():
        path = workspace / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return workspace


SEARCHABLE = ["src/[odd]/x.py", "src/app.py", "src/vendor/own.py", "tests/test_app.py", "web/keep.min.js"]


def listed(out: Any) -> list[str]:
    return sorted(line for line in out.content.splitlines()[1:] if not line.startswith(("…", "(")))


@pytest.mark.parametrize("engine", ENGINES)
def test_grep_skips_what_pseudoclaudeignore_names_gitignore_negations_win(call: Call, tree: Path, engine: str | None) -> None:
    assert listed(call(GrepTool(rg_path=engine), pattern="needle")) == SEARCHABLE


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "query",
    [
        {"path": "src"},
        {"path": "tests"},
        {"path": "src", "glob": "vendor/*.py"},
        {"path": "src", "glob": "!vendor/**"},
        {"path": "src/[odd]", "glob": "*.py"},
        {"path": "vendor/lib.py"},
    ],
    ids=str,
)
def test_engines_agree_under_a_subfolder_and_with_globs(call: Call, tree: Path, engine: str | None, query: dict[str, Any]) -> None:
    expected = call(GrepTool(rg_path=None), pattern="needle", output_mode="content", **query)
    assert call(GrepTool(rg_path=engine), pattern="needle", output_mode="content", **query) == expected


def test_the_engines_list_exactly_these(call: Call, tree: Path) -> None:
    sub = listed(call(GrepTool(rg_path=None), pattern="needle", path="src", glob="!vendor/**"))
    assert sub == ["src/[odd]/x.py", "src/app.py"]
    assert listed(call(GrepTool(rg_path=None), pattern="needle", path="vendor/lib.py")) == ["vendor/lib.py"]


@pytest.mark.parametrize("engine", ENGINES)
def test_glob_skips_what_pseudoclaudeignore_names(call: Call, tree: Path, engine: str | None) -> None:
    out = call(GlobTool(rg_path=engine), pattern="**/*.{py,js,txt}")
    assert sorted(out.content.splitlines()) == SEARCHABLE
    assert call(GlobTool(rg_path=engine), pattern="*.py", path="src/vendor").content == "src/vendor/own.py\n"
    assert call(GlobTool(rg_path=engine), pattern="src/**/*.py").content.count("\n") == 3


def test_a_pseudoclaudeignore_that_is_a_symlink_is_not_followed(call: Call, tree: Path) -> None:
    (tree / "rules").write_text("src/\n")
    (tree / ".pseudoclaudeignore").unlink()
    (tree / ".pseudoclaudeignore").symlink_to(tree / "rules")
    assert "src/app.py" in listed(call(GrepTool(rg_path=None), pattern="needle"))


@pytest.mark.parametrize("engine", ENGINES)
def test_a_gitignore_above_the_workspace_applies_to_both_tools(tmp_path: Path, engine: str | None) -> None:
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo/.gitignore").write_text("*.log\n")
    workspace = tmp_path / "repo/sub"
    workspace.mkdir()
    (workspace / "kept.txt").write_text("needle\n")
    (workspace / "hidden.log").write_text("needle\n")
    ctx = ToolContext(workspace=workspace.resolve())
    grep = asyncio.run(GrepTool(rg_path=engine).run({"pattern": "needle"}, ctx))
    glob = asyncio.run(GlobTool(rg_path=engine).run({"pattern": "*"}, ctx))
    assert listed(grep) == ["kept.txt"] and glob.content == "kept.txt\n"
