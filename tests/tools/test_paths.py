"""Workspace containment: every escape is refused with a message naming the workspace."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pseudoclaude.tools import ToolContext, ToolError
from pseudoclaude.tools.paths import resolve_path


def test_relative_path_resolves_inside_workspace(ctx: ToolContext, workspace: Path) -> None:
    assert resolve_path(ctx, "src/a.py", for_write=True) == workspace / "src" / "a.py"


def test_dotdot_escape_is_refused(ctx: ToolContext, workspace: Path) -> None:
    with pytest.raises(ToolError, match=str(workspace)):
        resolve_path(ctx, "../outside.txt", for_write=False)


def test_dotdot_through_missing_folder_is_refused(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="outside the workspace"):
        resolve_path(ctx, "nothere/../../../etc/passwd", for_write=False)


def test_absolute_path_outside_is_refused(ctx: ToolContext, workspace: Path) -> None:
    with pytest.raises(ToolError, match=str(workspace)):
        resolve_path(ctx, "/etc/passwd", for_write=False)


def test_absolute_path_inside_is_allowed(ctx: ToolContext, workspace: Path) -> None:
    assert resolve_path(ctx, str(workspace / "x.txt"), for_write=True) == workspace / "x.txt"


def test_symlinked_file_pointing_out_is_refused(ctx: ToolContext, workspace: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("s")
    (workspace / "link.txt").symlink_to(secret)
    with pytest.raises(ToolError, match=str(workspace)):
        resolve_path(ctx, "link.txt", for_write=False)


def test_dangling_symlink_pointing_out_is_refused_for_write(ctx: ToolContext, workspace: Path, tmp_path: Path) -> None:
    (workspace / "new.txt").symlink_to(tmp_path / "not-yet.txt")
    with pytest.raises(ToolError, match="outside the workspace"):
        resolve_path(ctx, "new.txt", for_write=True)


def test_symlinked_parent_folder_is_refused(ctx: ToolContext, workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (workspace / "sub").symlink_to(outside, target_is_directory=True)
    with pytest.raises(ToolError, match=str(workspace)):
        resolve_path(ctx, "sub/deeper/new.txt", for_write=True)


def test_symlink_inside_workspace_resolves_to_real_target(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "real.txt").write_text("r")
    (workspace / "alias.txt").symlink_to(workspace / "real.txt")
    assert resolve_path(ctx, "alias.txt", for_write=True) == workspace / "real.txt"


def test_proc_self_root_is_refused_even_when_it_leads_back_inside(ctx: ToolContext, workspace: Path) -> None:
    with pytest.raises(ToolError, match=str(workspace)):
        resolve_path(ctx, f"/proc/self/root{workspace}/a.txt", for_write=False)


def test_proc_via_symlink_in_workspace_is_refused(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "p").symlink_to("/proc/self")
    with pytest.raises(ToolError, match="outside the workspace"):
        resolve_path(ctx, "p/environ", for_write=False)


def test_spill_dir_is_readable_but_not_writable(ctx: ToolContext) -> None:
    assert ctx.spill_dir is not None
    ctx.spill_dir.mkdir()
    target = ctx.spill_dir / "out.txt"
    assert resolve_path(ctx, str(target), for_write=False) == target
    with pytest.raises(ToolError, match="outside the workspace"):
        resolve_path(ctx, str(target), for_write=True)


def test_extra_dirs_are_allowed(workspace: Path, tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    context = ToolContext(workspace=workspace, extra_dirs=(extra,))
    assert resolve_path(context, str(extra / "f.txt"), for_write=True) == extra.resolve() / "f.txt"


def test_empty_path_is_refused(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="non-empty"):
        resolve_path(ctx, "  ", for_write=False)


def test_workspace_given_through_a_symlink_still_contains_its_files(tmp_path: Path) -> None:
    real = tmp_path / "real-ws"
    real.mkdir()
    alias = tmp_path / "alias-ws"
    os.symlink(real, alias)
    context = ToolContext(workspace=alias)
    assert resolve_path(context, "a.txt", for_write=True) == real.resolve() / "a.txt"
