"""read_file: numbered pages, paging notes, binary refusal, stamps."""

from __future__ import annotations

from pathlib import Path

import pytest

from pseudoclaude.tools import ToolContext, ToolError
from pseudoclaude.tools.read_file import PAGE_LIMIT_BYTES, ReadFileTool

from .conftest import Call

read = ReadFileTool()


def test_lines_are_numbered_like_cat_n(call: Call, workspace: Path) -> None:
    (workspace / "a.txt").write_text("alpha\nbeta\n")
    assert call(read, path="a.txt").content == "     1\talpha\n     2\tbeta\n"


def test_last_line_without_newline_is_read(call: Call, workspace: Path) -> None:
    (workspace / "a.txt").write_text("alpha\nbeta")
    assert call(read, path="a.txt").content == "     1\talpha\n     2\tbeta\n"


def test_paging_note_gives_the_offset_to_continue(call: Call, workspace: Path) -> None:
    (workspace / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    out = call(read, path="n.txt", offset=3, limit=4)
    assert out.content.splitlines()[0] == "     3\tline 3"
    assert out.content.splitlines()[3] == "     6\tline 6"
    assert out.content.splitlines()[-1] == "… 4 more lines; call read_file with offset=7 to continue"


def test_default_page_is_2000_lines(call: Call, workspace: Path) -> None:
    (workspace / "big.txt").write_text("x\n" * 2500)
    out = call(read, path="big.txt")
    assert out.content.count("\tx\n") == 2000
    assert "500 more lines; call read_file with offset=2001" in out.content


def test_page_is_capped_in_bytes_for_wide_lines(call: Call, workspace: Path) -> None:
    (workspace / "wide.txt").write_text(("y" * 1500 + "\n") * 200)
    out = call(read, path="wide.txt")
    assert len(out.content.encode()) <= PAGE_LIMIT_BYTES + 200
    assert "page capped at 40 KB" in out.content
    offset = int(out.content.rsplit("offset=", 1)[1].split()[0])
    following = call(read, path="wide.txt", offset=offset)
    assert following.content.startswith(f"{offset:>6}\t")


def test_long_lines_are_cut_with_a_marker(call: Call, workspace: Path) -> None:
    (workspace / "long.txt").write_text("z" * 2500 + "\n")
    out = call(read, path="long.txt")
    assert "z" * 2000 + "… [line cut: 500 more characters]" in out.content


def test_binary_file_is_refused_with_size_and_type(call: Call, workspace: Path) -> None:
    (workspace / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 100)
    with pytest.raises(ToolError, match=r"binary file \(108 bytes, looks like PNG image\)"):
        call(read, path="img.png")


def test_undecodable_file_is_refused(call: Call, workspace: Path) -> None:
    (workspace / "latin.txt").write_bytes("café".encode("latin-1"))
    with pytest.raises(ToolError, match="binary file"):
        call(read, path="latin.txt")


def test_directory_suggests_list_dir(call: Call, workspace: Path) -> None:
    (workspace / "d").mkdir()
    with pytest.raises(ToolError, match="list_dir"):
        call(read, path="d")


def test_missing_file_is_an_error(call: Call) -> None:
    with pytest.raises(ToolError, match="does not exist"):
        call(read, path="nope.txt")


def test_offset_past_end_is_an_error(call: Call, workspace: Path) -> None:
    (workspace / "a.txt").write_text("one\n")
    with pytest.raises(ToolError, match="past the end.*1 lines"):
        call(read, path="a.txt", offset=5)


def test_empty_file_says_so(call: Call, workspace: Path) -> None:
    (workspace / "e.txt").write_text("")
    assert "empty" in call(read, path="e.txt").content


def test_reading_records_a_stamp(call: Call, ctx: ToolContext, workspace: Path) -> None:
    (workspace / "a.txt").write_text("one\n")
    call(read, path="a.txt")
    assert ctx.file_stamps[workspace / "a.txt"].size == 4


def test_spilled_file_can_be_paged(call: Call, ctx: ToolContext) -> None:
    assert ctx.spill_dir is not None
    ctx.spill_dir.mkdir()
    (ctx.spill_dir / "out.txt").write_text("".join(f"{i}\n" for i in range(100_000)))
    out = call(read, path=str(ctx.spill_dir / "out.txt"), offset=50_001, limit=2)
    assert out.content == " 50001\t50000\n 50002\t50001\n… 49998 more lines; call read_file with offset=50003 to continue\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({}, "missing required field"),
        ({"path": 3}, "'path' must be a string"),
        ({"path": "a", "offset": "2"}, "'offset' must be an integer"),
        ({"path": "a", "offset": 0}, "'offset' must be >= 1"),
        ({"path": "a", "lines": 3}, "unknown field"),
    ],
)
def test_bad_arguments_are_tool_errors(call: Call, args: dict[str, object], message: str) -> None:
    with pytest.raises(ToolError, match=message):
        call(read, **args)
