"""The reading tools obey ``Read(...)`` deny rules on every file they touch, in every spelling of its path.

The guard is the real one (``agent.read_denials.DeniedReads``, built from a real
policy's rules), as ``agent.build`` wires it into ``ToolContext.read_guard``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pseudoclaude.agent.read_denials import DeniedReads
from pseudoclaude.tools import Tool, ToolContext, ToolError, ToolOutput
from pseudoclaude.tools.glob_tool import GlobTool
from pseudoclaude.tools.grep import GrepTool
from pseudoclaude.tools.list_dir import ListDirTool
from pseudoclaude.tools.permissions import PermissionPolicy, Rules
from pseudoclaude.tools.read_file import ReadFileTool

ENGINES = [pytest.param(None, id="python"), pytest.param("auto", id="ripgrep")]
SECRET = "CANARY-secret"


def guarded(workspace: Path, *deny: str) -> ToolContext:
    policy = PermissionPolicy(mode="default", workspace=workspace, rules=Rules.from_settings({"permissions": {"deny": list(deny)}}))
    return ToolContext(workspace=workspace, read_guard=DeniedReads.of(policy))


def run(tool: Tool, ctx: ToolContext, **args: Any) -> ToolOutput:
    return asyncio.run(asyncio.wait_for(tool.run(args, ctx), timeout=20))


@pytest.fixture
def tree(workspace: Path) -> Path:
    for name, text in {
        ".env": f"TOKEN={SECRET}\n",
        "app/.env": f"NESTED={SECRET}\n",
        "app/config/prod.env": f"PROD={SECRET}\n",
        "app/main.py": "print('CANARY-public')\n",
        "vault/key.txt": f"{SECRET}\n",
    }.items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text(text)
    (workspace / "notes").symlink_to(".env")
    (workspace / "door").symlink_to("vault")
    return workspace


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("mode", ["content", "files_with_matches", "count"])
def test_a_workspace_wide_grep_does_not_touch_a_denied_file(tree: Path, engine: str | None, mode: str) -> None:
    ctx = guarded(tree, "Read(**/.env)", "Read(app/config/prod.env)", "Read(vault/**)")
    out = run(GrepTool(rg_path=engine), ctx, pattern="CANARY", output_mode=mode)
    assert SECRET not in out.content and ".env" not in out.content and "vault" not in out.content
    assert "app/main.py" in out.content


@pytest.mark.parametrize("engine", ENGINES)
def test_a_grep_below_a_folder_or_with_an_including_glob_still_skips_denied_files(tree: Path, engine: str | None) -> None:
    ctx = guarded(tree, "Read(**/.env)", "Read(app/config/prod.env)")
    for args in ({"path": "app"}, {"path": "app/config"}, {"glob": "*.env"}, {"path": "app", "glob": "**/*.env"}):
        out = run(GrepTool(rg_path=engine), ctx, pattern="CANARY", output_mode="content", **args)
        assert SECRET not in out.content, args


@pytest.mark.parametrize("engine", ENGINES)
def test_grep_through_a_symlinked_folder_is_judged_by_the_link_s_spelling_too(tree: Path, engine: str | None) -> None:
    ctx = guarded(tree, "Read(door/**)")
    assert SECRET not in run(GrepTool(rg_path=engine), ctx, pattern="CANARY", path="door", output_mode="content").content


@pytest.mark.parametrize("path", [".env", "notes", "app/../.env", "./app/.env", "door/key.txt"])
def test_grep_refuses_a_denied_file_named_as_its_path(tree: Path, path: str) -> None:
    ctx = guarded(tree, "Read(**/.env)", "Read(vault/**)")
    with pytest.raises(ToolError, match=r"denied by the permission rule `read_file\("):
        run(GrepTool(), ctx, pattern="CANARY", path=path)


@pytest.mark.parametrize("path", [".env", "notes", "app/../.env", "app//.env", "door/key.txt"])
def test_read_file_refuses_a_denied_file_in_any_spelling(tree: Path, path: str) -> None:
    ctx = guarded(tree, "Read(**/.env)", "Grep(vault/**)")
    with pytest.raises(ToolError, match=r"refused: reading .* is denied by the permission rule `(read_file|grep)\("):
        run(ReadFileTool(), ctx, path=path)


def test_read_file_refuses_a_denied_file_by_its_absolute_path(tree: Path) -> None:
    with pytest.raises(ToolError, match="denied by the permission rule `read_file\\(.env\\)`"):
        run(ReadFileTool(), guarded(tree, "read_file(.env)"), path=str(tree / ".env"))


def test_a_file_no_rule_names_is_read_as_before(tree: Path) -> None:
    assert "CANARY-public" in run(ReadFileTool(), guarded(tree, "Read(**/.env)"), path="app/main.py").content


@pytest.mark.parametrize("engine", [None, "auto"], ids=["python", "ripgrep"])
def test_glob_leaves_denied_files_out_and_says_how_many(tree: Path, engine: str | None) -> None:
    out = run(GlobTool(rg_path=engine), guarded(tree, "Read(**/.env)"), pattern="**/*").content
    assert sorted(out.splitlines()) == [
        "(2 matching files not listed: reading denied by the permission rules)",
        "app/config/prod.env",
        "app/main.py",
        "vault/key.txt",
    ]


def test_list_dir_marks_a_denied_entry_without_its_size(tree: Path) -> None:
    out = run(ListDirTool(), guarded(tree, "Read(**/.env)"), path=".").content
    assert "  .env  (read denied by `read_file(**/.env)`)\n" in out
    assert "  notes -> .env  (read denied by `read_file(**/.env)`)\n" in out
    assert "  app/\n" in out


def test_a_workspace_reached_through_a_symlink_is_guarded_alike(tree: Path, tmp_path: Path) -> None:
    link = tmp_path / "ws-link"
    link.symlink_to(tree)
    ctx = guarded(link, "Read(**/.env)")
    out = run(GrepTool(), ctx, pattern="CANARY", output_mode="content").content
    assert "TOKEN" not in out and "NESTED" not in out and "app/main.py" in out
    with pytest.raises(ToolError, match="denied by the permission rule"):
        run(ReadFileTool(), ctx, path=str(tree / ".env"))
