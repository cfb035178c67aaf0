"""Hostile repository content costs bounded time: each call returns within ``BOUND_S`` and says what it skipped.

Sparse files make the sizes real without the disk (``truncate``); memory figures
are measured by ``bench/bench_hostile_files.py``, not asserted here.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

import pytest

from pseudoclaude.tools import Tool, ToolContext, ToolError, ToolOutput
from pseudoclaude.tools.edit_file import EditFileTool
from pseudoclaude.tools.glob_tool import GlobTool
from pseudoclaude.tools.grep import GrepTool
from pseudoclaude.tools.read_file import ReadFileTool

ENGINES = [pytest.param(None, id="python"), pytest.param("auto", id="ripgrep")]
BOUND_S = 10.0
GIB = 1 << 30


def timed(tool: Tool, ctx: ToolContext, **args: Any) -> ToolOutput:
    """The call's output, asserting it came within ``BOUND_S`` (a ToolError passes through, timed too)."""
    started = time.monotonic()
    try:
        return asyncio.run(asyncio.wait_for(tool.run(args, ctx), timeout=BOUND_S * 3))
    finally:
        assert time.monotonic() - started < BOUND_S


def sparse(path: Path, size: int, head: bytes = b"") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(head)
    os.truncate(path, size)
    return path


@pytest.mark.parametrize("engine", ENGINES)
def test_grep_refuses_a_10_gb_file_named_as_its_path_at_once(ctx: ToolContext, workspace: Path, engine: str | None) -> None:
    sparse(workspace / "big.bin", 10 * GIB, b"needle\n")
    with pytest.raises(ToolError, match=r"not searched: big.bin is 10.0 GiB, over the 64 MiB grep searches in one file"):
        timed(GrepTool(rg_path=engine), ctx, pattern="needle", path="big.bin")


@pytest.mark.parametrize("engine", ENGINES)
def test_grep_skips_huge_files_in_the_tree(ctx: ToolContext, workspace: Path, engine: str | None) -> None:
    sparse(workspace / "data" / "sparse.bin", 10 * GIB, b"needle\n")
    (workspace / "data" / "dump.txt").write_bytes(b"x" * (65 << 20) + b" needle\n")
    (workspace / "src.py").write_text("needle = 1\n")
    out = timed(GrepTool(rg_path=engine), ctx, pattern="needle", output_mode="content")
    assert out.content == "1 matching line in 1 file:\nsrc.py:1:needle = 1\n"
    assert "files over 64 MiB" in GrepTool.description


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("where", [".gitignore", "sub/.gitignore"])
def test_a_fifo_gitignore_does_not_stall_grep_and_the_result_says_so(ctx: ToolContext, workspace: Path, engine: str | None, where: str) -> None:
    (workspace / "sub").mkdir()
    os.mkfifo(workspace / where)
    (workspace / "sub" / "found.txt").write_text("needle\n")
    out = timed(GrepTool(rg_path=engine), ctx, pattern="needle")
    assert out.content == f"1 file match 'needle':\nsub/found.txt\n(note: {where}: a FIFO (named pipe), not read: its rules do not apply)\n"


@pytest.mark.parametrize("engine", ENGINES)
def test_a_gitignore_linked_to_dev_zero_costs_bounded_memory_and_time(ctx: ToolContext, workspace: Path, engine: str | None) -> None:
    (workspace / ".gitignore").symlink_to("/dev/zero")
    (workspace / "found.txt").write_text("needle\n")
    out = timed(GrepTool(rg_path=engine), ctx, pattern="needle")
    assert out.content == "1 file match 'needle':\nfound.txt\n(note: .gitignore: a character device, not read: its rules do not apply)\n"
    assert timed(GlobTool(rg_path=engine), ctx, pattern="*.txt").content.startswith("found.txt\n(note: .gitignore: a character device")


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_a_2_gb_gitignore_is_read_only_in_its_first_mib(ctx: ToolContext, workspace: Path, engine: str | None) -> None:
    sparse(workspace / ".gitignore", 2 * GIB, b"*.log\n")
    (workspace / "found.txt").write_text("needle\n")
    (workspace / "skip.log").write_text("needle\n")
    out = timed(GrepTool(rg_path=engine), ctx, pattern="needle")
    assert out.content == "1 file match 'needle':\nfound.txt\n(note: .gitignore: over 1 MiB: only the rules in its first MiB apply)\n"


@pytest.mark.parametrize("engine", ENGINES)
def test_devices_in_the_tree_are_not_read(ctx: ToolContext, workspace: Path, engine: str | None) -> None:
    try:
        os.mknod(workspace / "zero", 0o600 | 0o020000, os.makedev(1, 5))
    except PermissionError:
        pytest.skip("creating a device node needs CAP_MKNOD")
    (workspace / "found.txt").write_text("needle\n")
    assert timed(GrepTool(rg_path=engine), ctx, pattern="needle").content == "1 file match 'needle':\nfound.txt\n"
    assert timed(GlobTool(rg_path=engine), ctx, pattern="*").content == "found.txt\n"


@pytest.mark.slow
def test_read_file_of_a_10_gb_file_behind_a_page_of_text_reads_a_bounded_prefix(ctx: ToolContext, workspace: Path) -> None:
    sparse(workspace / "big.log", 10 * GIB, "".join(f"line {i}\n" for i in range(3000)).encode())
    out = timed(ReadFileTool(), ctx, path="big.log")
    assert out.content.splitlines()[-1] == (
        "… lines 1-3000 of at least 3000 (lines counted in the first 256 MiB of its 10,737,418,240 bytes); call read_file with offset=3001 to continue"
    )
    with pytest.raises(ToolError, match=r"offset 9000 is beyond the first 256 MiB of big.log .*sed -n '9000,\+99p' big.log"):
        timed(ReadFileTool(), ctx, path="big.log", offset=9000)


def test_edit_file_refuses_a_file_over_its_limit_naming_it(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "one-line.min.js").write_bytes(b"a" * (11 << 20))
    timed(ReadFileTool(), ctx, path="one-line.min.js")
    with pytest.raises(ToolError, match=r"one-line.min.js is 11.0 MiB, over the 10 MiB that edit_file changes in memory; .*sed -i"):
        timed(EditFileTool(), ctx, path="one-line.min.js", old_string="aaa", new_string="b")


def test_edit_file_still_edits_a_file_at_its_limit(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "big.txt").write_bytes(b"a" * ((10 << 20) - 10) + b"\nneedle\n")
    timed(ReadFileTool(), ctx, path="big.txt")
    assert "Edited big.txt" in timed(EditFileTool(), ctx, path="big.txt", old_string="needle", new_string="pin").content
    assert (workspace / "big.txt").read_bytes().endswith(b"\npin\n")
