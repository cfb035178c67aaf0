"""grep: ripgrep and the Python fallback give the same results; caps; ignores; errors."""

from __future__ import annotations

import asyncio
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from pseudoclaude.tools import ToolContext, ToolError
from pseudoclaude.tools.base import OutputBudget
from pseudoclaude.tools.grep import MAX_CONTENT_LINES, MAX_FILES, GrepTool
from pseudoclaude.tools.ripgrep import find_rg

from .conftest import Call

RG = find_rg()
fallback = GrepTool(rg_path=None)
needs_rg = pytest.mark.skipif(RG is None, reason="ripgrep (rg) is not installed")


@pytest.fixture
def tree(workspace: Path) -> Path:
    files = {
        ".gitignore": "build/\n*.log\n",
        "src/app.py": "import os\n\ndef main():\n    print('Hello')\n    return os.getcwd()\n",
        "src/util.py": "def helper():\n    return 'hello world'\n",
        "src/sub/deep.py": "# TODO: hello later\nvalue = 1\n",
        "src-extra/x.py": "hello = 2\n",
        "docs/readme.md": "Say hello.\nNothing else.\r\nhello again\n",
        ".hidden/conf.txt": "hello hidden\n",
        "build/gen.py": "hello generated\n",
        "trace.log": "hello log\n",
        "bad.txt": "caf\xe9 hello\n",
    }
    for name, text in files.items():
        path = workspace / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("latin-1") if name == "bad.txt" else text.encode())
    (workspace / "blob.bin").write_bytes(b"hello\x00binary")
    (workspace / ".git").mkdir()
    (workspace / ".git/HEAD").write_text("hello ref\n")
    return workspace


QUERIES: list[dict[str, Any]] = [
    {"pattern": "hello"},
    {"pattern": "hello", "case_insensitive": True, "output_mode": "content"},
    {"pattern": "hello", "output_mode": "count"},
    {"pattern": "return", "output_mode": "content", "context": 1},
    {"pattern": "hello", "glob": "*.py", "output_mode": "content"},
    {"pattern": "hello", "glob": "*.log"},
    {"pattern": "hello", "glob": "!*.md"},
    {"pattern": "hello", "glob": "src/**"},
    {"pattern": "hello", "path": "src"},
    {"pattern": "hello", "path": "build", "output_mode": "content"},
    {"pattern": "hello", "path": "docs/readme.md", "output_mode": "count"},
    {"pattern": "hello", "path": "blob.bin", "output_mode": "content"},
    {"pattern": r"^\s+return\b", "output_mode": "content"},
    {"pattern": "again$", "output_mode": "content"},
    {"pattern": "else\\.$", "output_mode": "content"},
    {"pattern": "nothing-matches-this"},
]


@needs_rg
@pytest.mark.parametrize("query", QUERIES, ids=[str(q) for q in QUERIES])
def test_ripgrep_and_fallback_agree(call: Call, tree: Path, query: dict[str, Any]) -> None:
    assert call(GrepTool(rg_path=RG), **query) == call(fallback, **query)


@pytest.mark.parametrize("engine", ["rg", "python"])
def test_files_with_matches_skips_ignored_binary_and_git(call: Call, tree: Path, engine: str) -> None:
    assert call(_engine(engine), pattern="hello").content.splitlines() == [
        "6 files match 'hello':",
        ".hidden/conf.txt",
        "bad.txt",
        "docs/readme.md",
        "src/sub/deep.py",
        "src/util.py",
        "src-extra/x.py",
    ]


def test_content_mode_shows_line_numbers_and_context(call: Call, tree: Path) -> None:
    out = call(fallback, pattern="print", output_mode="content", context=1)
    assert out.content.splitlines() == [
        "1 matching line in 1 file:",
        "src/app.py-3-def main():",
        "src/app.py:4:    print('Hello')",
        "src/app.py-5-    return os.getcwd()",
    ]


def test_count_mode(call: Call, tree: Path) -> None:
    out = call(fallback, pattern="hello", output_mode="count", path="docs")
    assert out.content.splitlines() == ["2 matching lines in 1 file:", "docs/readme.md:2"]


@pytest.mark.parametrize("engine", ["rg", "python"])
def test_content_is_capped_with_exact_count_left_out(call: Call, workspace: Path, engine: str) -> None:
    (workspace / "many.txt").write_text("match\n" * (MAX_CONTENT_LINES + 7))
    lines = call(_engine(engine), pattern="match", output_mode="content").content.splitlines()
    assert len(lines) == MAX_CONTENT_LINES + 2
    assert lines[-1].startswith("… 7 more matching lines (0 more files) not shown")


@pytest.mark.parametrize("engine", ["rg", "python"])
def test_files_are_capped_with_count_and_the_complete_list_is_saved(call: Call, workspace: Path, engine: str) -> None:
    for i in range(MAX_FILES + 4):
        (workspace / f"f{i:03}.txt").write_text("needle\n")
    out = call(_engine(engine), pattern="needle")
    lines = out.content.splitlines()
    assert lines[-1] == f"… 4 more files not shown; narrow the pattern, path or glob; the complete list is in {out.full_output}"
    assert len(lines) == MAX_FILES + 2
    assert out.shaped and out.full_output is not None
    assert Path(out.full_output).read_text().splitlines() == [f"f{i:03}.txt" for i in range(MAX_FILES + 4)]


@pytest.mark.parametrize("engine", ["rg", "python"])
def test_content_is_capped_by_the_inline_budget(workspace: Path, tmp_path: Path, engine: str) -> None:
    (workspace / "wide.txt").write_text("".join(f"needle {i:04} " + "x" * 80 + "\n" for i in range(250)))
    context = ToolContext(workspace=workspace, spill_dir=tmp_path / "spill").at(budget=OutputBudget(inline_bytes=6_000))
    out = asyncio.run(_engine(engine).run({"pattern": "needle", "output_mode": "content"}, context))
    assert len(out.content.encode()) < 6_000 + 300
    shown = len(out.content.splitlines()) - 2
    assert out.content.splitlines()[-1].startswith(f"… {250 - shown} more matching lines (0 more files) not shown")
    assert out.shaped and out.full_output is not None
    complete = Path(out.full_output).read_text().splitlines()
    assert len(complete) == 250 and complete[-1].startswith("wide.txt:250:needle 0249 ")
    assert complete[:shown] == out.content.splitlines()[1:-1]


def test_a_cut_result_without_a_spill_folder_says_so(workspace: Path) -> None:
    for i in range(MAX_FILES + 1):
        (workspace / f"f{i:03}.txt").write_text("needle\n")
    out = asyncio.run(fallback.run({"pattern": "needle"}, ToolContext(workspace=workspace)))
    assert out.content.splitlines()[-1].endswith("; the complete list was not saved (this session keeps no files)")
    assert out.shaped and out.full_output is None


def test_an_uncut_result_is_not_saved(call: Call, tree: Path, ctx: ToolContext) -> None:
    out = call(fallback, pattern="hello")
    assert not out.shaped and out.full_output is None
    assert ctx.spill_dir is not None and not ctx.spill_dir.exists()


@pytest.mark.parametrize("engine", ["rg", "python"])
def test_symlink_out_of_workspace_is_not_searched(call: Call, workspace: Path, tmp_path: Path, engine: str) -> None:
    (tmp_path / "secret.txt").write_text("needle\n")
    (workspace / "link.txt").symlink_to(tmp_path / "secret.txt")
    assert "No matches" in call(_engine(engine), pattern="needle").content


def test_invalid_regex_is_a_tool_error(call: Call, tree: Path) -> None:
    with pytest.raises(ToolError, match="invalid regular expression"):
        call(fallback, pattern="(unclosed")


def test_context_needs_content_mode(call: Call, tree: Path) -> None:
    with pytest.raises(ToolError, match="output_mode='content'"):
        call(fallback, pattern="x", context=2)


def test_unknown_output_mode_is_refused(call: Call, tree: Path) -> None:
    with pytest.raises(ToolError, match="must be one of"):
        call(fallback, pattern="x", output_mode="lines")


def test_path_outside_is_refused(call: Call) -> None:
    with pytest.raises(ToolError, match="outside the workspace"):
        call(fallback, pattern="root", path="/etc")


def _engine(name: str) -> GrepTool:
    if name == "rg":
        if RG is None:
            pytest.skip("ripgrep (rg) is not installed")
        return GrepTool(rg_path=RG)
    return fallback


@needs_rg
def test_pattern_ripgrep_cannot_parse_falls_back_to_python(call: Call, tree: Path) -> None:
    query = {"pattern": "(?<=def )main", "output_mode": "content"}
    out = call(GrepTool(rg_path=RG), **query)
    assert out.content.splitlines() == ["1 matching line in 1 file:", "src/app.py:3:def main():"]


def test_missing_or_failing_rg_falls_back_to_python(call: Call, tree: Path, tmp_path: Path) -> None:
    failing = tmp_path / "fake-rg"
    failing.write_text("#!/bin/sh\necho 'error: unknown flag' >&2\nexit 2\n")
    failing.chmod(0o755)
    expected = call(fallback, pattern="hello")
    assert call(GrepTool(rg_path=str(failing)), pattern="hello") == expected
    assert call(GrepTool(rg_path=str(tmp_path / "no-such-rg")), pattern="hello") == expected


def test_cancelled_search_leaves_no_ripgrep_running(ctx: ToolContext, tmp_path: Path) -> None:
    slow = tmp_path / "slow-rg"
    slow.write_text(f"#!/bin/sh\necho $$ > {tmp_path}/rg.pid\nexec sleep 1000\n")
    slow.chmod(0o755)

    async def scenario() -> None:
        task = asyncio.create_task(GrepTool(rg_path=str(slow)).run({"pattern": "x"}, ctx))
        while not (tmp_path / "rg.pid").exists():
            await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    pid = int((tmp_path / "rg.pid").read_text())
    deadline = time.monotonic() + 3
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in (b"Z", b"X")


@pytest.mark.parametrize("engine", [pytest.param(None, id="python"), pytest.param(RG, id="ripgrep", marks=needs_rg)])
def test_a_match_only_across_lines_does_not_list_a_file(call: Call, workspace: Path, engine: str | None) -> None:
    (workspace / "across.txt").write_text("a\nb\n")
    (workspace / "later.txt").write_text("a\nb\nx a b\n")
    (workspace / "ahead.txt").write_text("end\nnext\n")
    assert call(GrepTool(rg_path=engine), pattern=r"a\sb").content == "1 file match 'a\\\\sb':\nlater.txt\n"
    assert call(GrepTool(rg_path=engine), pattern=r"end(?=\n)").content.startswith("No matches")


def test_the_python_engine_searches_a_file_of_short_lines_in_bounded_memory(call: Call, workspace: Path) -> None:
    """Split into lines, a whole file costs ~12x its size; past ``WHOLE_FILE_BYTES`` it is streamed (~2 MB at any size).

    Just over the limit (~4.3 MB, ~50 MB if split whole): the 12 MB measurement is ``bench/bench_bounded_memory.py``.
    """
    from pseudoclaude.tools.grep_search import WHOLE_FILE_BYTES

    (workspace / "many.txt").write_text("x = 1\n" * (WHOLE_FILE_BYTES // 6 + 20_000) + "needle\n")
    tracemalloc.start()
    try:
        out = call(fallback, pattern="needle", output_mode="count")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert out.content == "1 matching line in 1 file:\nmany.txt:1\n"
    assert peak < 12_000_000


@pytest.mark.parametrize("engine", [pytest.param(None, id="python"), pytest.param(RG, id="ripgrep", marks=needs_rg)])
def test_a_large_file_is_checked_block_by_block_and_a_late_match_found(call: Call, workspace: Path, engine: str | None) -> None:
    from pseudoclaude.tools.grep_search import WHOLE_FILE_BYTES

    body = "".join(f"line {i} of the log é\n" for i in range(200_000))
    assert WHOLE_FILE_BYTES < len(body.encode()) < 2 * WHOLE_FILE_BYTES, "over the whole-file limit: several blocks, streamed"
    (workspace / "quiet.log").write_text(body)
    (workspace / "late.log").write_text(body + "the needle\n")
    (workspace / "binary.log").write_text(body + "needle\n\x00\n")
    tool = GrepTool(rg_path=engine)
    assert call(tool, pattern="needle", glob="quiet.log").content.startswith("No matches")
    assert call(tool, pattern="needle", output_mode="count", glob="late.log").content == "1 matching line in 1 file:\nlate.log:1\n"
    out = call(tool, pattern="needle", output_mode="content", glob="late.log")
    assert out.content == "1 matching line in 1 file:\nlate.log:200001:the needle\n"
    assert call(fallback, pattern="needle", glob="binary.log").content.startswith("No matches")


@needs_rg
@pytest.mark.parametrize("mode", ["files_with_matches", "count", "content"])
def test_ripgreps_threads_finish_in_any_order_and_the_result_is_in_path_order(call: Call, workspace: Path, mode: str) -> None:
    """ripgrep runs on all its threads (no ``--sort path``): the answer is ordered after, as the walk orders it."""
    for folder in range(12):
        for name in ("a", "a-b", "a.b", "b"):
            path = workspace / f"d{folder % 4}" / ("a" if folder < 4 else "a-b" if folder < 8 else "z") / f"{name}{folder}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("needle\nhay\nneedle again\n")
    first = call(GrepTool(rg_path=RG), pattern="needle", output_mode=mode)
    assert first == call(fallback, pattern="needle", output_mode=mode)
    assert all(call(GrepTool(rg_path=RG), pattern="needle", output_mode=mode) == first for _ in range(3))
    names = [line.split(":")[0] for line in first.content.splitlines()[1:]]
    assert names == sorted(names, key=lambda name: name.split("/")) and len(set(names)) == 48


@pytest.mark.parametrize("engine", ["rg", "python"])
def test_a_file_with_more_lines_than_any_answer_stops_the_count_and_says_so(call: Call, workspace: Path, engine: str) -> None:
    """Reading every line of a huge result costs seconds for an answer that shows 300: the search stops."""
    from pseudoclaude.tools.grep_search import MAX_FILE_LINES

    (workspace / "huge.txt").write_text("m\n" * (MAX_FILE_LINES + 500))
    tool = GrepTool(rg_path=RG) if engine == "rg" and RG else fallback
    out = call(tool, pattern="m", output_mode="content")
    lines = out.content.splitlines()
    assert lines[0] == f"At least {MAX_FILE_LINES:,} matching lines in 1 file:".replace(",", "")
    assert lines[1:3] == ["huge.txt:1:m", "huge.txt:2:m"] and len(lines) == MAX_CONTENT_LINES + 3
    assert lines[-1].startswith("(note: the search stopped counting after 1 files")
    assert out.summary == f"grep m: at least {MAX_FILE_LINES} lines in 1 file"


@needs_rg
def test_past_the_keep_limit_ripgrep_is_stopped_reaped_and_the_first_lines_are_a_full_runs(call: Call, workspace: Path, tmp_path: Path) -> None:
    """A result past ``KEEP_CHARS`` stops the search: the ripgrep behind it is gone when the tool answers, and what is
    shown is the first by path, the lines a full (Python, path-ordered) run shows first."""
    from pseudoclaude.tools.grep_results import KEEP_CHARS

    line = "needle " + "x" * 93 + "\n"
    (workspace / "a.txt").write_text(line * (KEEP_CHARS // len(line) + 2_000))
    for i in range(30):
        (workspace / f"b{i:02}.txt").write_text(line * 50)
    wrapper = tmp_path / "rg-wrapper"
    wrapper.write_text(f'#!/bin/sh\necho $$ > {tmp_path}/rg.pid\nexec {RG} "$@"\n')
    wrapper.chmod(0o755)
    out = call(GrepTool(rg_path=str(wrapper)), pattern="needle", output_mode="content")
    assert not _alive(int((tmp_path / "rg.pid").read_text()))
    shown, full = _shown(out.content), _shown(call(fallback, pattern="needle", output_mode="content").content)
    assert out.content.startswith("At least ") and "(note: the search stopped counting" in out.content
    assert len(shown) > 20 and shown == full == [f"a.txt:{n}:{line[:-1]}" for n in range(1, len(shown) + 1)]


def _shown(content: str) -> list[str]:
    lines = content.splitlines()[1:]
    return lines[: next(i for i, text in enumerate(lines) if text.startswith("… "))]


@needs_rg
@pytest.mark.parametrize("mode", ["content", "count"])
def test_many_names_with_newlines_read_in_many_blocks_agree_with_the_python_engine(call: Call, workspace: Path, mode: str) -> None:
    """ripgrep's records are split a block at a time, and a name holding a newline may straddle two: likeliest in the
    output of one file larger than a read (its lines all start with its name)."""
    for i in range(300):
        (workspace / f"dir\n{i:04}\nname.txt").write_text(f"needle {i}\n" + "hay\n" * (i % 3) + "needle again\n")
    (workspace / "big\nname.txt").write_text("needle in a long file\n" * 30_000)
    out, python = call(GrepTool(rg_path=RG), pattern="needle", output_mode=mode), call(fallback, pattern="needle", output_mode=mode)
    assert out.full_output is not None and python.full_output is not None
    assert out.content.replace(out.full_output, "") == python.content.replace(python.full_output, "")
    assert Path(out.full_output).read_text() == Path(python.full_output).read_text()
    assert out.content.splitlines()[1].startswith('"big\\nname.txt":') and '"dir\\n0299\\nname.txt"' in Path(out.full_output).read_text()


@needs_rg
def test_ripgreps_note_on_a_binary_file_after_a_match_is_read_past(call: Call, workspace: Path) -> None:
    """ripgrep stops at a NUL met after a match and says so on a line of its own, named after the file: that line is
    skipped (ripgrep's answer, with the match before the NUL), not taken for a failure (the Python engine would answer,
    without it); a name that imitates the note is still read as a name."""
    (workspace / "late.bin").write_bytes(b"needle first\n" + b"x" * 200_000 + b"\n\x00\n")
    (workspace / "late.bin: WARNING: stopped searching binary file after match").write_text("needle odd\n")
    (workspace / "z.txt").write_text("needle z\n")
    assert call(GrepTool(rg_path=RG), pattern="needle", output_mode="content").content.splitlines() == [
        "3 matching lines in 3 files:",
        "late.bin:1:needle first",
        "late.bin: WARNING: stopped searching binary file after match:1:needle odd",
        "z.txt:1:needle z",
    ]
