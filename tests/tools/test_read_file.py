"""read_file: whole files within the budget, numbered pages, paging notes, the unchanged-reread note, binary refusal, stamps."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pseudoclaude.tools import OutputBudget, ToolContext, ToolError
from pseudoclaude.tools.edit_file import EditFileTool
from pseudoclaude.tools.read_file import ReadFileTool

from .conftest import Call

read = ReadFileTool()


def next_offset(content: str) -> int | None:
    found = re.search(r"call read_file with offset=(\d+) to continue\n$", content)
    return int(found.group(1)) if found else None


def numbered(content: str) -> list[int]:
    return [int(line.split("\t", 1)[0]) for line in content.splitlines() if "\t" in line]


def test_lines_are_numbered_like_cat_n_and_end_with_the_total(call: Call, workspace: Path) -> None:
    (workspace / "a.txt").write_text("alpha\nbeta\n")
    assert call(read, path="a.txt").content == "     1\talpha\n     2\tbeta\n… lines 1-2 of 2 (end of file)\n"


def test_last_line_without_newline_is_read(call: Call, workspace: Path) -> None:
    (workspace / "a.txt").write_text("alpha\nbeta")
    assert call(read, path="a.txt").content == "     1\talpha\n     2\tbeta\n… lines 1-2 of 2 (end of file)\n"


def test_paging_note_gives_the_total_and_the_offset_to_continue(call: Call, workspace: Path) -> None:
    (workspace / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    out = call(read, path="n.txt", offset=3, limit=4)
    assert out.content.splitlines()[0] == "     3\tline 3"
    assert out.content.splitlines()[3] == "     6\tline 6"
    assert out.content.splitlines()[-1] == "… lines 3-6 of 10; 4 more lines; call read_file with offset=7 to continue"


def test_a_60_kb_file_is_read_whole_in_one_call(call: Call, workspace: Path) -> None:
    (workspace / "big.py").write_text("".join(f"# line {i:05d} " + "x" * 26 + "\n" for i in range(1, 1501)))
    assert (workspace / "big.py").stat().st_size == 60_000
    out = call(read, path="big.py")
    assert numbered(out.content) == list(range(1, 1501))
    assert "  1500\t# line 01500 " in out.content
    assert out.content.endswith("… lines 1-1500 of 1500 (end of file)\n")
    assert out.shaped


def test_many_short_lines_come_whole_at_the_default_budget(call: Call, workspace: Path) -> None:
    (workspace / "short.txt").write_text("".join(f"{i:018d}\n" for i in range(3000)))
    out = call(read, path="short.txt")
    assert numbered(out.content) == list(range(1, 3001))
    assert next_offset(out.content) is None


def test_blank_lines_cannot_make_a_page_many_times_the_budget(call: Call, workspace: Path) -> None:
    (workspace / "blank.txt").write_text("\n" * 100_000)
    out = call(read, path="blank.txt")
    assert len(out.content.encode()) < 2 * OutputBudget().read_bytes
    assert next_offset(out.content) == len(numbered(out.content)) + 1


def test_a_file_over_the_budget_is_capped_in_bytes(call: Call, workspace: Path) -> None:
    (workspace / "wide.txt").write_text(("y" * 1500 + "\n") * 200)
    out = call(read, path="wide.txt")
    shown = numbered(out.content)
    assert len(shown) * 1501 <= OutputBudget().read_bytes < (len(shown) + 1) * 1501
    assert f"of 200 (page capped at 64 KB); {200 - len(shown)} more lines" in out.content
    offset = next_offset(out.content)
    assert offset == len(shown) + 1
    following = call(read, path="wide.txt", offset=offset)
    assert following.content.startswith(f"{offset:>6}\t")


def test_paging_at_a_small_budget_yields_every_line_exactly_once(call: Call, ctx: ToolContext, workspace: Path) -> None:
    call.context = ctx.at(budget=OutputBudget(read_bytes=8_000))
    (workspace / "m.txt").write_text("".join(f"row {i} " + "z" * (i % 90) + "\n" for i in range(1, 1001)))
    seen: list[int] = []
    offset: int | None = 1
    calls = 0
    while offset is not None:
        out = call(read, path="m.txt", offset=offset)
        calls += 1
        page = numbered(out.content)
        assert page[0] == offset and len(out.content.encode()) < 8_000 + 7 * len(page) + 200
        seen.extend(page)
        offset = next_offset(out.content)
        assert offset is None or offset == page[-1] + 1
    assert seen == list(range(1, 1001))
    assert calls > 1 and out.content.endswith("of 1000 (end of file)\n")


def test_an_explicit_limit_still_applies(call: Call, workspace: Path) -> None:
    (workspace / "n.txt").write_text("x\n" * 50)
    out = call(read, path="n.txt", limit=5)
    assert numbered(out.content) == [1, 2, 3, 4, 5]
    assert next_offset(out.content) == 6


def test_long_lines_are_cut_with_a_marker(call: Call, workspace: Path) -> None:
    (workspace / "long.txt").write_text("z" * 2500 + "\n")
    out = call(read, path="long.txt")
    assert "z" * 2000 + "… [line cut: 500 more characters]" in out.content


def test_rereading_an_unchanged_file_returns_a_note(call: Call, ctx: ToolContext, workspace: Path) -> None:
    (workspace / "a.txt").write_text("alpha\nbeta\n")
    call.context = ctx.at(turn=3)
    call(read, path="a.txt")
    call.context = ctx.at(turn=5)
    again = call(read, path="a.txt")
    assert again.content == "a.txt is unchanged since your read at turn 3 (lines 1-2); its content is above.\n… lines 1-2 of 2 (end of file)\n"
    assert "alpha" not in again.content


def test_the_note_for_a_page_still_gives_the_offset_to_continue(call: Call, workspace: Path) -> None:
    (workspace / "n.txt").write_text("x\n" * 50)
    call(read, path="n.txt", limit=10)
    again = call(read, path="n.txt", limit=10)
    assert "unchanged since your read" in again.content and next_offset(again.content) == 11


def test_a_changed_file_is_read_again(call: Call, workspace: Path) -> None:
    (workspace / "a.txt").write_text("alpha\nbeta\n")
    call(read, path="a.txt")
    (workspace / "a.txt").write_text("alpha\ngamma\n")
    assert "     2\tgamma" in call(read, path="a.txt").content


def test_a_file_the_model_edited_is_read_again(call: Call, workspace: Path) -> None:
    (workspace / "a.txt").write_text("alpha\nbeta\n")
    call(read, path="a.txt")
    call(EditFileTool(), path="a.txt", old_string="beta", new_string="delta")
    assert "     2\tdelta" in call(read, path="a.txt").content


def test_a_different_range_is_read_again(call: Call, workspace: Path) -> None:
    (workspace / "a.txt").write_text("alpha\nbeta\ngamma\n")
    call(read, path="a.txt")
    assert call(read, path="a.txt", offset=2).content.startswith("     2\tbeta\n")
    assert call(read, path="a.txt", limit=1).content.startswith("     1\talpha\n")


def test_a_read_after_the_log_was_cleared_is_real(call: Call, ctx: ToolContext, workspace: Path) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    call(read, path="a.txt")
    ctx.read_log.clear()
    assert call(read, path="a.txt").content.startswith("     1\talpha\n")


def test_binary_file_is_refused_with_size_and_type(call: Call, workspace: Path) -> None:
    (workspace / "prog").write_bytes(b"\x7fELF" + b"\x00" * 104)
    with pytest.raises(ToolError, match=r"binary file \(108 bytes, looks like ELF executable\)"):
        call(read, path="prog")


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
    assert out.content == " 50001\t50000\n 50002\t50001\n… lines 50001-50002 of 100000; 49998 more lines; call read_file with offset=50003 to continue\n"


def test_description_does_not_depend_on_the_window() -> None:
    assert "about 64 KB" in read.description and "small context windows" in read.description


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
