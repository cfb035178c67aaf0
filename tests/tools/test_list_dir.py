"""list_dir: sorted entries, folders marked, sizes, symlinks not followed, capped."""

from __future__ import annotations

from pathlib import Path

import pytest

from pseudoclaude.tools import ToolError
from pseudoclaude.tools.list_dir import MAX_ENTRIES, ListDirTool

from .conftest import Call

ls = ListDirTool()


def test_entries_sorted_with_folders_marked_and_sizes(call: Call, workspace: Path) -> None:
    (workspace / "b.txt").write_text("hello")
    (workspace / "a").mkdir()
    (workspace / "c.bin").write_bytes(b"x" * 2048)
    (workspace / "l").symlink_to("b.txt")
    lines = call(ls).content.splitlines()
    assert lines[1:] == ["  a/", "  b.txt  (5 B)", "  c.bin  (2.0 KB)", "  l -> b.txt"]


def test_file_path_suggests_read_file(call: Call, workspace: Path) -> None:
    (workspace / "f").write_text("")
    with pytest.raises(ToolError, match="read_file"):
        call(ls, path="f")


def test_capped_with_count(call: Call, workspace: Path) -> None:
    for i in range(MAX_ENTRIES + 3):
        (workspace / f"{i:04}").write_text("")
    assert call(ls).content.splitlines()[-1].startswith("… 3 more entries")


def test_outside_is_refused(call: Call) -> None:
    with pytest.raises(ToolError, match="outside the workspace"):
        call(ls, path="..")


def test_a_huge_folder_shows_the_first_names_and_counts_all(call: Call, workspace: Path) -> None:
    names = [f"f{i:05}" for i in range(3 * MAX_ENTRIES)]
    for name in reversed(names):
        (workspace / name).write_text("x")
    out = call(ListDirTool())
    shown = [line.split()[0] for line in out.content.splitlines()[1:-1]]
    assert shown == names[:MAX_ENTRIES]
    assert out.content.splitlines()[-1].startswith(f"… {2 * MAX_ENTRIES} more entries not shown")
    assert out.display == {"path": str(workspace), "entries": 3 * MAX_ENTRIES}
