"""edit_file: unique, not found, ambiguous, replace_all, and the read-first rule."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from pseudoclaude.tools import ToolError
from pseudoclaude.tools.edit_file import EditFileTool
from pseudoclaude.tools.read_file import ReadFileTool

from .conftest import Call

read, edit = ReadFileTool(), EditFileTool()


@pytest.fixture
def source(call: Call, workspace: Path) -> Path:
    path = workspace / "m.py"
    path.write_text("def f():\n    return 1\n\n\ndef g():\n    return 1\n")
    call(read, path="m.py")
    return path


def test_unique_match_is_replaced(call: Call, source: Path) -> None:
    out = call(edit, path="m.py", old_string="def f():\n    return 1", new_string="def f():\n    return 2")
    assert source.read_text() == "def f():\n    return 2\n\n\ndef g():\n    return 1\n"
    assert "-    return 1\n+    return 2\n" in out.display["diff"]
    assert "     2\t    return 2" in out.content


def test_missing_text_is_an_error(call: Call, source: Path) -> None:
    with pytest.raises(ToolError, match="not found"):
        call(edit, path="m.py", old_string="return 3", new_string="return 4")


def test_ambiguous_match_reports_the_count(call: Call, source: Path) -> None:
    with pytest.raises(ToolError, match="occurs 2 times.*replace_all"):
        call(edit, path="m.py", old_string="return 1", new_string="return 2")
    assert source.read_text().count("return 1") == 2


def test_replace_all_replaces_every_occurrence(call: Call, source: Path) -> None:
    out = call(edit, path="m.py", old_string="return 1", new_string="return 0", replace_all=True)
    assert source.read_text().count("return 0") == 2
    assert out.display["replacements"] == 2


def test_identical_strings_are_an_error(call: Call, source: Path) -> None:
    with pytest.raises(ToolError, match="identical"):
        call(edit, path="m.py", old_string="def f", new_string="def f")


def test_edit_without_reading_is_refused(call: Call, workspace: Path) -> None:
    (workspace / "u.txt").write_text("abc\n")
    with pytest.raises(ToolError, match="read_file first"):
        call(edit, path="u.txt", old_string="abc", new_string="xyz")


def test_edit_after_external_change_is_refused(call: Call, source: Path) -> None:
    source.write_text(source.read_text() + "# user edit\n")
    with pytest.raises(ToolError, match="changed on disk"):
        call(edit, path="m.py", old_string="def g", new_string="def h")


def test_consecutive_edits_need_no_reread(call: Call, source: Path) -> None:
    call(edit, path="m.py", old_string="def f", new_string="def f1")
    call(edit, path="m.py", old_string="def g", new_string="def g1")
    assert "def f1" in source.read_text() and "def g1" in source.read_text()


def test_mode_is_kept(call: Call, source: Path) -> None:
    source.chmod(0o700)
    call(edit, path="m.py", old_string="def g", new_string="def h")
    assert stat.S_IMODE(source.stat().st_mode) == 0o700


def test_crlf_file_matches_lf_old_string(call: Call, workspace: Path) -> None:
    path = workspace / "w.txt"
    path.write_bytes(b"one\r\ntwo\r\n")
    call(read, path="w.txt")
    call(edit, path="w.txt", old_string="one\ntwo", new_string="1\n2")
    assert path.read_bytes() == b"1\r\n2\r\n"


def test_missing_file_suggests_write_file(call: Call) -> None:
    with pytest.raises(ToolError, match="write_file"):
        call(edit, path="nope.py", old_string="a", new_string="b")


def test_replace_all_must_be_boolean(call: Call, source: Path) -> None:
    with pytest.raises(ToolError, match="'replace_all' must be a boolean"):
        call(edit, path="m.py", old_string="a", new_string="b", replace_all="yes")


def test_line_number_prefixes_copied_from_read_file_are_named(call: Call, source: Path) -> None:
    copied = "     5\tdef g():\n     6\t    return 1"
    with pytest.raises(ToolError, match=r"line-number prefixes.*Without them it matches at line 5\.") as error:
        call(edit, path="m.py", old_string=copied, new_string="def g():\n    return 2")
    assert "remove them from old_string and new_string" in str(error.value)
    assert source.read_text().endswith("def g():\n    return 1\n")


def test_missing_text_shows_the_nearest_lines_with_their_numbers(call: Call, workspace: Path) -> None:
    path = workspace / "n.py"
    path.write_text("".join(f"value_{i} = compute({i})\n" for i in range(200)) + "def handler(event):\n    return event.body\n")
    call(read, path="n.py")
    with pytest.raises(ToolError) as error:
        call(edit, path="n.py", old_string="def handler(event):\n  return event.body", new_string="x")
    message = str(error.value)
    assert "   201\tdef handler(event):\n   202\t    return event.body" in message
    assert message.count("\n") < 30


def test_nothing_close_keeps_the_plain_advice(call: Call, source: Path) -> None:
    with pytest.raises(ToolError, match="not found.*Read the file again") as error:
        call(edit, path="m.py", old_string="zzzz qqqq wwww", new_string="x")
    assert "closest" not in str(error.value)


def test_ambiguous_match_names_where_each_occurrence_starts(call: Call, source: Path) -> None:
    with pytest.raises(ToolError, match="starts at lines 2, 6"):
        call(edit, path="m.py", old_string="    return 1", new_string="    return 2")


def test_candidates_stay_bounded_in_a_large_file(call: Call, workspace: Path) -> None:
    path = workspace / "big.py"
    path.write_text("".join(f"    result = transform(item_{i}, option=True)  # {'x' * 300}\n" for i in range(5000)))
    call(read, path="big.py", limit=5)
    with pytest.raises(ToolError) as error:
        call(edit, path="big.py", old_string="result = transform(item_1, option=False)\n" * 12, new_string="x")
    assert len(str(error.value)) < 3000
