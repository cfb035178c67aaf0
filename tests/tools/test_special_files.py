"""Files that are not regular files are refused or skipped, never opened in a way that blocks; long lines cost bounded memory.

Each call runs under a timeout: before the fix a FIFO blocked the read forever.
"""

from __future__ import annotations

import asyncio
import os
import socket
import tracemalloc
from pathlib import Path
from typing import Any, Iterator

import pytest

from pseudoclaude.tools import Tool, ToolContext, ToolError, ToolOutput
from pseudoclaude.tools.edit_file import EditFileTool
from pseudoclaude.tools.glob_tool import GlobTool
from pseudoclaude.tools.grep import GrepTool
from pseudoclaude.tools.list_dir import ListDirTool
from pseudoclaude.tools.read_file import ReadFileTool
from pseudoclaude.tools.write_file import WriteFileTool

ENGINES = [pytest.param(None, id="python"), pytest.param("auto", id="ripgrep")]


def run(tool: Tool, ctx: ToolContext, **args: Any) -> ToolOutput:
    async def bounded() -> ToolOutput:
        return await asyncio.wait_for(tool.run(args, ctx), timeout=10)

    return asyncio.run(bounded())


@pytest.fixture
def fifo(workspace: Path) -> Path:
    path = workspace / "pipe"
    os.mkfifo(path)
    return path


@pytest.fixture
def unix_socket(workspace: Path) -> Iterator[Path]:
    path = workspace / "sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    yield path
    server.close()


def test_read_file_refuses_a_fifo_at_once(ctx: ToolContext, fifo: Path) -> None:
    with pytest.raises(ToolError, match=r"^pipe is a FIFO \(named pipe\), not a regular file"):
        run(ReadFileTool(), ctx, path="pipe")
    assert fifo not in ctx.file_stamps


def test_read_file_refuses_a_symlink_to_a_fifo(ctx: ToolContext, fifo: Path, workspace: Path) -> None:
    (workspace / "link").symlink_to(fifo)
    with pytest.raises(ToolError, match="is a FIFO"):
        run(ReadFileTool(), ctx, path="link")


def test_read_file_refuses_a_socket(ctx: ToolContext, unix_socket: Path) -> None:
    with pytest.raises(ToolError, match=r"^sock is a socket, not a regular file"):
        run(ReadFileTool(), ctx, path="sock")


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_read_file_refuses_a_device(ctx: ToolContext, workspace: Path) -> None:
    os.mknod(workspace / "zero", 0o600 | 0o020000, os.makedev(1, 5))
    with pytest.raises(ToolError, match=r"^zero is a character device, not a regular file"):
        run(ReadFileTool(), ctx, path="zero")


def test_edit_file_refuses_a_fifo(ctx: ToolContext, fifo: Path) -> None:
    with pytest.raises(ToolError, match="pipe is a FIFO"):
        run(EditFileTool(), ctx, path="pipe", old_string="a", new_string="b")


def test_write_file_refuses_to_replace_a_fifo(ctx: ToolContext, fifo: Path) -> None:
    with pytest.raises(ToolError, match="pipe is a FIFO"):
        run(WriteFileTool(), ctx, path="pipe", content="x")
    assert fifo.is_fifo()


def test_a_file_swapped_for_a_fifo_after_the_read_is_refused_by_edit(ctx: ToolContext, workspace: Path) -> None:
    target = workspace / "a.txt"
    target.write_text("old\n")
    run(ReadFileTool(), ctx, path="a.txt")
    target.unlink()
    os.mkfifo(target)
    with pytest.raises(ToolError, match="a.txt is a FIFO"):
        run(EditFileTool(), ctx, path="a.txt", old_string="old", new_string="new")


@pytest.mark.parametrize("engine", ENGINES)
def test_grep_refuses_a_fifo_named_explicitly(ctx: ToolContext, fifo: Path, engine: str | None) -> None:
    with pytest.raises(ToolError, match="pipe is a FIFO"):
        run(GrepTool(rg_path=engine), ctx, pattern="x", path="pipe")


@pytest.mark.parametrize("engine", ENGINES)
def test_grep_and_glob_skip_fifos_and_sockets_in_a_folder(ctx: ToolContext, fifo: Path, unix_socket: Path, workspace: Path, engine: str | None) -> None:
    (workspace / "real.txt").write_text("needle\n")
    out = run(GrepTool(rg_path=engine), ctx, pattern="needle|x", output_mode="content")
    assert out.content == "1 matching line in 1 file:\nreal.txt:1:needle\n"
    assert run(GlobTool(), ctx, pattern="*").content == "real.txt\n"


def test_list_dir_says_what_a_special_file_is(ctx: ToolContext, fifo: Path, unix_socket: Path) -> None:
    out = run(ListDirTool(), ctx)
    assert "  pipe  (a FIFO (named pipe))\n" in out.content and "  sock  (a socket)\n" in out.content


def test_a_huge_single_line_is_read_in_bounded_memory(ctx: ToolContext, workspace: Path) -> None:
    size = 40_000_000
    with open(workspace / "one-line.txt", "wb") as f:
        f.write(b"a" * size + b"\nsecond line\n")
    tracemalloc.start()
    try:
        out = run(ReadFileTool(), ctx, path="one-line.txt")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8_000_000
    first, second, last = out.content.splitlines()
    assert first == "     1\t" + "a" * 2000 + f"… [line cut: {size - 2000:,} more bytes]"
    assert second == "     2\tsecond line"
    assert last == "… lines 1-2 of 2 (end of file)"


def test_a_long_multibyte_line_is_cut_at_characters_not_bytes(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "wide.txt").write_text("é" * 50_000 + "\n", encoding="utf-8")
    out = run(ReadFileTool(), ctx, path="wide.txt")
    line = out.content.splitlines()[0]
    assert line == "     1\t" + "é" * 2000 + f"… [line cut: {(50_000 - 2000) * 2:,} more bytes]"


def test_a_line_just_over_the_limit_still_counts_characters(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "long.txt").write_text("z" * 2500 + "\n")
    assert "z" * 2000 + "… [line cut: 500 more characters]" in run(ReadFileTool(), ctx, path="long.txt").content


def test_grep_through_ripgrep_survives_a_huge_single_line(ctx: ToolContext, workspace: Path) -> None:
    with open(workspace / "huge.txt", "wb") as f:
        f.write(b"x" * 5_000_000 + b" needle\nshort needle\n")
    out = run(GrepTool(rg_path="auto"), ctx, pattern="needle", output_mode="content")
    header, first, second = out.content.splitlines()
    assert header == "2 matching lines in 1 file:" and second == "huge.txt:2:short needle"
    assert first == "huge.txt:1:… [line of about 5,000,008 bytes, too long to show]"
    assert out.content == run(GrepTool(rg_path=None), ctx, pattern="needle", output_mode="content").content


def test_a_line_over_a_mib_is_a_placeholder_through_ripgrep_however_its_output_is_read(ctx: ToolContext, workspace: Path) -> None:
    """Whole in one read or in pieces, a record over ``LONG_RECORD_BYTES`` shows as its size: the same answer every run."""
    from pseudoclaude.tools.grep_rg import LONG_RECORD_BYTES

    for i, size in enumerate((LONG_RECORD_BYTES + 10, LONG_RECORD_BYTES * 3 // 2, 2 * LONG_RECORD_BYTES)):
        (workspace / f"long{i}.txt").write_bytes(b"y" * size + b" needle\nshort needle\n")
    answers = {run(GrepTool(rg_path="auto"), ctx, pattern="needle", output_mode="content").content for _ in range(3)}
    assert len(answers) == 1
    lines = answers.pop().splitlines()
    assert lines[1] == f"long0.txt:1:… [line of about {LONG_RECORD_BYTES + 18:,} bytes, too long to show]"
    assert lines[3] == f"long1.txt:1:… [line of about {LONG_RECORD_BYTES * 3 // 2 + 8:,} bytes, too long to show]"
    assert lines[6] == "long2.txt:2:short needle" and len(lines) == 7


def test_the_python_engine_streams_a_large_file_with_the_same_results_as_ripgrep(ctx: ToolContext, workspace: Path) -> None:
    rows = [f"row {i} {'needle' if i % 50_000 == 7 else 'hay'} {'pad' * 20}\n" for i in range(250_000)]
    (workspace / "large.txt").write_text("".join(rows))
    assert (workspace / "large.txt").stat().st_size > 16 * 1024 * 1024
    args = {"pattern": "needle", "output_mode": "content", "context": 2}
    python = run(GrepTool(rg_path=None), ctx, **args)
    assert python.content == run(GrepTool(rg_path="auto"), ctx, **args).content
    assert python.content.startswith("5 matching lines in 1 file:\nlarge.txt-6-row 5 hay") and python.content.count("needle") == 5


def test_the_python_engine_finds_a_match_deep_in_a_huge_line_in_bounded_memory(ctx: ToolContext, workspace: Path) -> None:
    with open(workspace / "huge.txt", "wb") as f:
        f.write(b"x" * 30_000_000 + b"needle" + b"x" * 1000 + b"\nshort needle\n")
    tracemalloc.start()
    try:
        out = run(GrepTool(rg_path=None), ctx, pattern="needle", output_mode="content")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16_000_000
    assert out.content.splitlines() == [
        "2 matching lines in 1 file:",
        "huge.txt:1:… [line of about 30,001,007 bytes, too long to show]",
        "huge.txt:2:short needle",
    ]
