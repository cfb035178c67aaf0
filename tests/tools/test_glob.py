"""glob: ** patterns, newest first, .gitignore and .git skipped, capped."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from pseudoclaude.tools import ToolError
from pseudoclaude.tools.glob_tool import MAX_RESULTS, GlobTool
from pseudoclaude.tools.walk import glob_to_regex

from .conftest import Call

glob = GlobTool()


def _touch(path: Path, mtime: int, text: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.utime(path, (mtime, mtime))


def test_results_are_newest_first(call: Call, workspace: Path) -> None:
    _touch(workspace / "old.py", 1_000)
    _touch(workspace / "src/new.py", 3_000)
    _touch(workspace / "src/deep/mid.py", 2_000)
    assert call(glob, pattern="**/*.py").content.splitlines() == ["src/new.py", "src/deep/mid.py", "old.py"]


def test_single_star_stays_in_one_folder(call: Call, workspace: Path) -> None:
    _touch(workspace / "top.py", 1)
    _touch(workspace / "sub/inner.py", 2)
    assert call(glob, pattern="*.py").content.splitlines() == ["top.py"]


def test_gitignore_and_git_folder_are_skipped(call: Call, workspace: Path) -> None:
    (workspace / ".gitignore").write_text("build/\n*.log\n!keep.log\n")
    _touch(workspace / "build/out.txt", 1)
    _touch(workspace / "a.log", 1)
    _touch(workspace / "keep.log", 1)
    _touch(workspace / ".git/config", 1)
    _touch(workspace / "src/x.txt", 1)
    names = set(call(glob, pattern="**/*").content.splitlines())
    assert names == {".gitignore", "keep.log", "src/x.txt"}


def test_nested_gitignore_applies_to_its_folder(call: Call, workspace: Path) -> None:
    (workspace / "pkg").mkdir()
    (workspace / "pkg/.gitignore").write_text("*.tmp\n")
    _touch(workspace / "pkg/a.tmp", 1)
    _touch(workspace / "b.tmp", 1)
    assert call(glob, pattern="**/*.tmp").content.splitlines() == ["b.tmp"]


def test_path_argument_limits_the_search(call: Call, workspace: Path) -> None:
    _touch(workspace / "a/x.md", 1)
    _touch(workspace / "b/y.md", 1)
    assert call(glob, pattern="*.md", path="b").content.splitlines() == ["b/y.md"]


def test_braces_and_literal_prefix(call: Call, workspace: Path) -> None:
    _touch(workspace / "src/a.ts", 2)
    _touch(workspace / "src/b.tsx", 1)
    _touch(workspace / "lib/c.ts", 3)
    assert call(glob, pattern="src/*.{ts,tsx}").content.splitlines() == ["src/a.ts", "src/b.tsx"]


def test_symlinks_pointing_out_are_not_followed(call: Call, workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    _touch(outside / "secret.py", 1)
    (workspace / "link").symlink_to(outside, target_is_directory=True)
    assert "No files match" in call(glob, pattern="**/*.py").content
    assert "No files match" in call(glob, pattern="link/*.py").content


def test_results_are_capped_with_a_count(call: Call, workspace: Path) -> None:
    for i in range(MAX_RESULTS + 5):
        _touch(workspace / f"f{i:03}.txt", 1)
    out = call(glob, pattern="*.txt")
    assert len(out.content.splitlines()) == MAX_RESULTS + 1
    assert out.content.splitlines()[-1].startswith("… 5 more not shown")


def test_absolute_pattern_is_refused(call: Call) -> None:
    with pytest.raises(ToolError, match="relative"):
        call(glob, pattern="/etc/*")


def test_path_outside_is_refused(call: Call) -> None:
    with pytest.raises(ToolError, match="outside the workspace"):
        call(glob, pattern="*", path="/etc")


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("**/*.py", "a.py", True),
        ("**/*.py", "x/y/a.py", True),
        ("*.py", "x/a.py", False),
        ("src/**", "src/a/b", True),
        ("a?c", "abc", True),
        ("[ab]x", "bx", True),
        ("[!ab]x", "cx", True),
        ("*.{js,ts}", "m.ts", True),
        ("a.b", "axb", False),
    ],
)
def test_glob_to_regex(pattern: str, path: str, matches: bool) -> None:
    import re

    assert bool(re.fullmatch(glob_to_regex(pattern), path)) is matches


@pytest.mark.parametrize("engine", [pytest.param(None, id="python"), pytest.param("auto", id="ripgrep")])
def test_both_engines_keep_only_the_newest_and_count_the_rest(call: Call, workspace: Path, engine: str | None) -> None:
    total = MAX_RESULTS + 57
    for i in range(total):
        _touch(workspace / f"d{i % 7}/f{i:04}.txt", 10_000 + i)
    _touch(workspace / "d0/other.md", 99_999)
    out = call(GlobTool(rg_path=engine), pattern="**/*.txt")
    lines = out.content.splitlines()
    assert lines[:2] == [f"d{(total - 1) % 7}/f{total - 1:04}.txt", f"d{(total - 2) % 7}/f{total - 2:04}.txt"]
    assert len(lines) == MAX_RESULTS + 1 and lines[-1].startswith("… 57 more not shown (older)")
    assert out.display == {"count": total, "shown": MAX_RESULTS}


@pytest.mark.parametrize("engine", [pytest.param(None, id="python"), pytest.param("auto", id="ripgrep")])
def test_a_tie_at_the_cut_is_ordered_by_path_whatever_the_engine(call: Call, workspace: Path, engine: str | None) -> None:
    names = [f"d{i % 5}/t{(i * 37) % 300:03}.txt" for i in range(300)]
    for name in names:
        _touch(workspace / name, 50_000)
    for i in range(20):
        _touch(workspace / f"new{i:02}.txt", 60_000 + i)
    _touch(workspace / "old.txt", 1_000)
    lines = call(GlobTool(rg_path=engine), pattern="**/*.txt").content.splitlines()
    newest = [f"new{i:02}.txt" for i in reversed(range(20))]
    assert lines[:MAX_RESULTS] == newest + sorted(names)[: MAX_RESULTS - 20]
    assert lines[MAX_RESULTS].startswith(f"… {300 + 20 + 1 - MAX_RESULTS} more not shown (older)")


def test_a_missing_ripgrep_falls_back_to_the_walk(call: Call, workspace: Path, tmp_path: Path) -> None:
    _touch(workspace / "a.py", 1)
    assert call(GlobTool(rg_path=str(tmp_path / "no-such-rg")), pattern="*.py").content == "a.py\n"


def test_a_failing_ripgrep_falls_back_to_the_walk(call: Call, workspace: Path, tmp_path: Path) -> None:
    failing = tmp_path / "fake-rg"
    failing.write_text("#!/bin/sh\necho 'error: unknown flag' >&2\nexit 2\n")
    failing.chmod(0o755)
    _touch(workspace / "a.py", 1)
    assert call(GlobTool(rg_path=str(failing)), pattern="*.py").content == "a.py\n"


@pytest.mark.slow
def test_a_fifo_committed_as_gitignore_does_not_block_the_listing(call: Call, workspace: Path) -> None:
    """A hostile repository's .gitignore that is a named pipe blocks ripgrep for ever; after RG_STALL_S the Python walk lists."""
    (workspace / "sub").mkdir()
    os.mkfifo(workspace / "sub" / ".gitignore")
    (workspace / "sub" / "kept.py").write_text("x = 1\n")
    (workspace / ".gitignore").write_text("*.log\n")
    (workspace / "noise.log").write_text("")
    started = time.monotonic()
    out = call(GlobTool(), pattern="**/*").content
    assert time.monotonic() - started < 8
    assert sorted(out.splitlines()) == ["(note: sub/.gitignore: a FIFO (named pipe), not read: its rules do not apply)", ".gitignore", "sub/kept.py"]


@pytest.mark.parametrize("engine", ["rg", None])
def test_a_name_glob_handed_to_ripgrep_never_brings_back_an_ignored_file(call: Call, workspace: Path, engine: str | None) -> None:
    """ripgrep is told the pattern's last part as a file type (``--glob`` would list ignored files it matches)."""
    (workspace / ".gitignore").write_text("*.log\n")
    _touch(workspace / "a.log", 1)
    _touch(workspace / "sub/b.log", 2)
    _touch(workspace / "sub/c.txt", 3)
    _touch(workspace / "sub/d.py", 4)
    _touch(workspace / "e.txt", 5)
    tool = GlobTool() if engine else GlobTool(rg_path=None)
    assert call(tool, pattern="**/*.{log,txt}").content.splitlines() == ["e.txt", "sub/c.txt"]
    assert call(tool, pattern="sub/[bcd].*").content.splitlines() == ["sub/d.py", "sub/c.txt"]
    assert call(tool, pattern="**/?.py").content.splitlines() == ["sub/d.py"]
