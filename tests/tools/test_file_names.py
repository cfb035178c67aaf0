"""File names with newlines or escape sequences cannot inject lines or terminal escapes into a tool's output.

A name with control characters is shown as a JSON string literal; the model
passes it back exactly so (it is JSON in the tool call) and reaches the file.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from pseudoclaude.tools import Tool, ToolContext, ToolError, ToolOutput
from pseudoclaude.tools.edit_file import EditFileTool
from pseudoclaude.tools.glob_tool import GlobTool
from pseudoclaude.tools.grep import GrepTool
from pseudoclaude.tools.list_dir import ListDirTool
from pseudoclaude.tools.read_file import ReadFileTool

NEWLINE = "notes\napp.py:1:fake hit.txt"
ESCAPE = "\x1b]52;c;cGF5bG9hZA==\x07.txt"
NEWLINE_SHOWN = '"notes\\napp.py:1:fake hit.txt"'
ESCAPE_SHOWN = '"\\u001b]52;c;cGF5bG9hZA==\\u0007.txt"'
ENGINES = [pytest.param(None, id="python"), pytest.param("auto", id="ripgrep")]


def run(tool: Tool, ctx: ToolContext, **args: Any) -> ToolOutput:
    return asyncio.run(tool.run(args, ctx))


@pytest.fixture
def crafted(workspace: Path) -> Path:
    (workspace / NEWLINE).write_text("needle one\n")
    (workspace / ESCAPE).write_text("needle two\n")
    (workspace / "plain.txt").write_text("needle three\n")
    return workspace


def _clean(text: str) -> None:
    assert "\x1b" not in text and "\x07" not in text
    assert "fake hit.txt\n" not in text.replace('fake hit.txt"', "")


def test_list_dir_quotes_crafted_names_and_says_how_to_use_them(ctx: ToolContext, crafted: Path) -> None:
    out = run(ListDirTool(), ctx)
    _clean(out.content)
    lines = out.content.splitlines()
    assert f"  {NEWLINE_SHOWN}  (11 B)" in lines and f"  {ESCAPE_SHOWN}  (11 B)" in lines and "  plain.txt  (13 B)" in lines
    assert "JSON string" in lines[-1]


def test_list_dir_quotes_a_crafted_symlink_target(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "link").symlink_to("target\x1b[2J")
    assert '  link -> "target\\u001b[2J"' in run(ListDirTool(), ctx).content


def test_glob_quotes_crafted_names(ctx: ToolContext, crafted: Path) -> None:
    out = run(GlobTool(), ctx, pattern="*")
    _clean(out.content)
    assert set(out.content.splitlines()[:3]) == {NEWLINE_SHOWN, ESCAPE_SHOWN, "plain.txt"}
    assert "JSON string" in out.content.splitlines()[-1]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("mode", ["files_with_matches", "content", "count"])
def test_grep_quotes_crafted_names_in_every_mode(ctx: ToolContext, crafted: Path, engine: str | None, mode: str) -> None:
    out = run(GrepTool(rg_path=engine), ctx, pattern="needle", output_mode=mode)
    _clean(out.content)
    lines = out.content.splitlines()
    assert len(lines) == 5
    assert any(line.startswith(NEWLINE_SHOWN) for line in lines) and any(line.startswith(ESCAPE_SHOWN) for line in lines)
    assert "JSON string" in lines[-1]


def test_plain_names_bring_no_note(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "a.txt").write_text("x\n")
    assert run(ListDirTool(), ctx).content.endswith("  a.txt  (2 B)\n")
    assert run(GlobTool(), ctx, pattern="*").content == "a.txt\n"


@pytest.mark.parametrize(("name", "shown"), [(NEWLINE, NEWLINE_SHOWN), (ESCAPE, ESCAPE_SHOWN)])
def test_the_model_reads_and_edits_a_file_by_the_name_it_was_shown(ctx: ToolContext, crafted: Path, name: str, shown: str) -> None:
    listed = run(ListDirTool(), ctx).content
    assert shown in listed
    path = json.loads(shown)
    read = run(ReadFileTool(), ctx, path=path)
    assert "needle" in read.content and read.summary.startswith(f"Read {shown} ")
    edited = run(EditFileTool(), ctx, path=path, old_string="needle", new_string="pin")
    assert edited.content.startswith(f"Edited {shown}:")
    assert (crafted / name).read_text().startswith("pin ")


def test_read_file_errors_quote_the_name(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "bad\x1b[31m.bin").write_bytes(b"\x00\x01")
    (workspace / "near\x07.py").write_text("x\n")
    with pytest.raises(ToolError) as binary:
        run(ReadFileTool(), ctx, path="bad\x1b[31m.bin")
    assert str(binary.value).startswith('"bad\\u001b[31m.bin" is a binary file')
    with pytest.raises(ToolError) as missing:
        run(ReadFileTool(), ctx, path="near\x07.txt")
    assert '"near\\u0007.txt" does not exist; did you mean "near\\u0007.py"?' == str(missing.value)
