"""write_file: creation, the read-first rule, atomicity side effects, mode, diff."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pseudoclaude.tools import ToolContext, ToolError
from pseudoclaude.tools.read_file import ReadFileTool
from pseudoclaude.tools.write_file import WriteFileTool

from .conftest import Call

read, write = ReadFileTool(), WriteFileTool()


def test_creates_file_and_parent_folders(call: Call, workspace: Path) -> None:
    out = call(write, path="a/b/c.txt", content="hello\n")
    assert (workspace / "a/b/c.txt").read_text() == "hello\n"
    assert out.display["created"] is True
    assert "+hello" in out.display["diff"]


def test_new_file_gets_default_permissions(call: Call, workspace: Path) -> None:
    call(write, path="n.txt", content="x")
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE((workspace / "n.txt").stat().st_mode) == 0o666 & ~umask


def test_overwrite_without_reading_is_refused(call: Call, workspace: Path) -> None:
    (workspace / "a.txt").write_text("original\n")
    with pytest.raises(ToolError, match="read it with read_file first"):
        call(write, path="a.txt", content="new\n")
    assert (workspace / "a.txt").read_text() == "original\n"


def test_overwrite_after_external_change_is_refused(call: Call, workspace: Path) -> None:
    (workspace / "a.txt").write_text("original\n")
    call(read, path="a.txt")
    (workspace / "a.txt").write_text("changed by the user\n")
    with pytest.raises(ToolError, match="changed on disk since you read it"):
        call(write, path="a.txt", content="new\n")
    assert (workspace / "a.txt").read_text() == "changed by the user\n"


def test_touch_alone_does_not_count_as_a_change(call: Call, workspace: Path) -> None:
    (workspace / "a.txt").write_text("original\n")
    call(read, path="a.txt")
    os.utime(workspace / "a.txt", ns=(1, 1))
    call(write, path="a.txt", content="new\n")
    assert (workspace / "a.txt").read_text() == "new\n"


def test_overwrite_after_read_keeps_mode_and_shows_diff(call: Call, workspace: Path) -> None:
    script = workspace / "run.sh"
    script.write_text("echo old\n")
    script.chmod(0o750)
    call(read, path="run.sh")
    out = call(write, path="run.sh", content="echo new\n")
    assert script.read_text() == "echo new\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert "-echo old\n+echo new\n" in out.display["diff"]
    assert out.display["created"] is False


def test_stamp_is_updated_so_a_second_write_needs_no_read(call: Call, ctx: ToolContext, workspace: Path) -> None:
    call(write, path="a.txt", content="one\n")
    call(write, path="a.txt", content="two\n")
    assert (workspace / "a.txt").read_text() == "two\n"
    assert ctx.file_stamps[workspace / "a.txt"].size == 4


def test_no_temporary_file_is_left_behind(call: Call, workspace: Path) -> None:
    call(write, path="a.txt", content="x")
    assert sorted(p.name for p in workspace.iterdir()) == ["a.txt"]


def test_writing_through_symlink_updates_the_target(call: Call, workspace: Path) -> None:
    (workspace / "real.txt").write_text("r\n")
    (workspace / "alias.txt").symlink_to(workspace / "real.txt")
    call(read, path="alias.txt")
    call(write, path="alias.txt", content="updated\n")
    assert (workspace / "alias.txt").is_symlink()
    assert (workspace / "real.txt").read_text() == "updated\n"


def test_writing_outside_the_workspace_is_refused(call: Call, tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="outside the workspace"):
        call(write, path=str(tmp_path / "evil.txt"), content="x")
    assert not (tmp_path / "evil.txt").exists()


def test_directory_target_is_refused(call: Call, workspace: Path) -> None:
    (workspace / "d").mkdir()
    with pytest.raises(ToolError, match="is a directory"):
        call(write, path="d", content="x")


def test_content_must_be_a_string(call: Call) -> None:
    with pytest.raises(ToolError, match="'content' must be a string"):
        call(write, path="a.txt", content=["x"])
