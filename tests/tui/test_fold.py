"""Folding and expanding tool blocks, through the ``TurnView`` a turn renders with (fixed-width console).

Which tools fold is what they declare (``ToolTraits.explores``), so the calls
here are picked from the built-in registry by that fact, not named by hand.
"""

from __future__ import annotations

import json
import re
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from pseudoclaude.agent import Event, TextDelta, ToolCallFinished, ToolCallStarted
from pseudoclaude.llm import Message, ToolCall
from pseudoclaude.tools import ToolTraits, builtin_registry
from pseudoclaude.tui.blocks import BlockLog, explore_kinds
from pseudoclaude.tui.fit import shorten_middle
from pseudoclaude.tui.render import TurnView
from pseudoclaude.tui.toolview import tool_block
from pseudoclaude.tui.transcript_pager import Pager, transcript_lines
from pseudoclaude.tui.transcript_view import render_transcript

REGISTRY = builtin_registry()
KINDS = REGISTRY.explore_kinds()
READER = next(name for name, kind in KINDS.items() if kind == "file")
SEARCHER = next(name for name, kind in KINDS.items() if kind == "pattern")
NOT_EXPLORING = [tool.name for tool in REGISTRY if tool.traits.read_only and tool.traits.explores is None]


def _key(name: str) -> str:
    return REGISTRY.display_keys()[name]


class Turn:
    def __init__(self, width: int = 80) -> None:
        self.out = StringIO()
        self.console = Console(file=self.out, width=width, color_system=None)
        self.blocks = BlockLog()
        self.view = TurnView(self.console, blocks=self.blocks)
        self.calls = 0

    def call(self, name: str, argument: str, *, content: str = "ok", is_error: bool = False, display: dict[str, Any] | None = None) -> None:
        self.calls += 1
        call_id = f"c{self.calls}"
        self.view.handle(ToolCallStarted(call_id, name, {_key(name): argument} if name in REGISTRY.display_keys() else {}))
        self.view.handle(ToolCallFinished(call_id, name, is_error, "failed" if is_error else "done", display or {}, content))

    def event(self, event: Event) -> None:
        self.view.handle(event)

    def printed(self) -> str:
        return self.out.getvalue()

    def live(self) -> str:
        probe = Console(file=StringIO(), width=self.console.width, color_system=None)
        probe.print(self.view)
        return probe.file.getvalue()  # type: ignore[attr-defined]


def test_the_registry_declares_reads_searches_and_listings_as_explore_calls() -> None:
    assert set(KINDS.values()) >= {"file", "pattern", "directory"}
    assert all(REGISTRY.get(name).traits.read_only for name in KINDS)  # type: ignore[union-attr]
    with pytest.raises(ValueError):
        ToolTraits(kind="edit", clearable=True, path_arguments=("path",), explores="file")


def test_three_reads_in_a_row_print_as_one_line_naming_the_files() -> None:
    turn = Turn()
    for path in ("src/shop/cart.py", "tests/test_cart.py", "README.md"):
        turn.call(READER, path)
    assert turn.printed() == ""  # the run stays live while it may grow
    assert "Read 3 files (ctrl+o to expand)" in turn.live()
    turn.event(TextDelta("Done."))
    printed = turn.printed()
    assert printed.splitlines()[:2] == ["● Read 3 files (ctrl+o to expand)", "  ⎿ src/shop/cart.py, tests/test_cart.py, README.md"]
    assert f"{READER}(" not in printed
    assert len(turn.blocks.blocks) == 1 and len(turn.blocks.blocks[0].calls) == 3


def test_concurrent_reads_that_finish_out_of_order_are_named_in_the_order_they_were_asked_for() -> None:
    turn = Turn()
    paths = ("src/shop/cart.py", "tests/test_cart.py", "README.md")
    for number, path in enumerate(paths, 1):
        turn.event(ToolCallStarted(f"c{number}", READER, {_key(READER): path}))
    for number in (3, 1, 2):
        turn.event(ToolCallFinished(f"c{number}", READER, False, "done", {}, "ok"))
    turn.event(TextDelta("Done."))
    assert turn.printed().splitlines()[1] == "  ⎿ " + ", ".join(paths)


def test_reads_and_searches_are_counted_each_and_the_names_fit_the_width() -> None:
    turn = Turn(width=40)
    for path in ("src/shop/cart.py", "tests/test_cart.py"):
        turn.call(READER, path)
    turn.call(SEARCHER, "def total")
    turn.call(SEARCHER, "TODO")
    turn.view.finish()
    lines = turn.printed().splitlines()
    assert lines[0].startswith("● Read 2 files, searched for 2 patterns")
    names = next(line for line in lines if line.startswith("  ⎿ "))
    assert names.startswith("  ⎿ src/shop/cart.py") and names.endswith(" +3") and len(names) <= 40


def test_text_or_another_tool_ends_a_run_and_one_call_keeps_its_own_block() -> None:
    turn = Turn()
    turn.call(READER, "a.py")
    turn.event(TextDelta("Now the other one."))
    turn.call(READER, "b.py")
    turn.call(READER, "c.py")
    turn.call(NOT_EXPLORING[0], "x")
    turn.view.finish()
    printed = turn.printed()
    assert f"● {READER}(a.py)" in printed and "Read 2 files" in printed
    assert printed.index("Read 2 files") < printed.index(f"● {NOT_EXPLORING[0]}")
    assert len(turn.blocks.blocks) == 3


def test_a_failed_read_is_not_folded_and_read_only_tools_that_do_not_explore_never_fold() -> None:
    turn = Turn()
    turn.call(READER, "a.py")
    turn.call(READER, "missing.py", is_error=True)
    turn.call(READER, "b.py")
    for name in NOT_EXPLORING:
        turn.call(name, "x")
    turn.view.finish()
    printed = turn.printed()
    assert "Read " not in printed.replace(f"{READER}(", "")
    assert printed.count("● ") == 3 + len(NOT_EXPLORING)


def test_ctrl_o_prints_every_call_of_the_last_block_with_its_whole_output_then_folds_it_back(tmp_path: Path) -> None:
    turn = Turn()
    turn.call(READER, "a.py", content="alpha line\n")
    turn.call(READER, "b.py", content="beta line\n")
    turn.view.finish()
    expanded = Console(file=StringIO(), width=80, color_system=None)
    expanded.print(turn.blocks.toggle_last())
    shown = expanded.file.getvalue()  # type: ignore[attr-defined]
    assert f"● {READER}(a.py)" in shown and "    alpha line" in shown and "    beta line" in shown
    again = Console(file=StringIO(), width=80, color_system=None)
    again.print(turn.blocks.toggle_last())
    assert "alpha line" not in again.file.getvalue() and "Read 2 files" in again.file.getvalue()  # type: ignore[attr-defined]


def test_the_expanded_block_of_a_spilled_command_reads_its_saved_output(tmp_path: Path) -> None:
    saved = tmp_path / "spill" / "run.txt"
    saved.parent.mkdir()
    saved.write_text("".join(f"line {n}\n" for n in range(1, 101)))
    turn = Turn()
    turn.call("run_command", "make", content="line 1\n… preview …\nline 100\n", display={"tail": "line 100\n", "output_lines": 100, "output_path": str(saved)})
    turn.view.finish()
    console = Console(file=StringIO(), width=80, color_system=None)
    console.print(turn.blocks.toggle_last())
    shown = console.file.getvalue()  # type: ignore[attr-defined]
    assert all(f"    line {n}\n" in shown for n in range(1, 101))


def test_a_long_path_is_shortened_in_the_middle_keeping_the_file_name() -> None:
    path = "/home/user/projects/shop/src/shop/deeply/nested/package/module_with_a_name.py"
    short = shorten_middle(path, 40)
    assert len(short) == 40 and short.endswith("/module_with_a_name.py") and short.startswith("/home/") and "…" in short
    assert shorten_middle("short.py", 40) == "short.py"


def test_at_60_columns_the_title_fits_and_the_saved_path_and_tail_keep_the_indent() -> None:
    path = "src/" + "/".join(f"level_{n}_directory" for n in range(6)) + "/leaf_module.py"
    display = {
        "tail": "x" * 150 + "\nlast\n",
        "output_lines": 5000,
        "output_path": "/tmp/home/sessions/" + "a" * 40 + "/spill/run_command-" + "b" * 32 + ".txt",
    }
    console = Console(file=StringIO(), width=60, color_system=None)
    console.print(tool_block(READER, {_key(READER): path}, is_error=False, summary=f"Read {path} lines 1-3", display={}))
    console.print(tool_block("run_command", {"command": "make"}, is_error=False, summary="$ make (exit 0)", display=display))
    lines = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
    assert all(len(line) <= 60 for line in lines)
    assert lines[0].startswith(f"● {READER}(src/") and lines[0].endswith("/leaf_module.py)") and "…" in lines[0]
    assert lines[1].startswith("  ⎿ Read src/") and lines[1].endswith("leaf_module.py lines 1-3")
    assert all(line.startswith(("● ", "  ⎿ ", "    ")) for line in lines)
    assert any(".txt" in line and "…" in line for line in lines)


def test_the_transcript_pager_lists_every_message_and_block_with_its_result() -> None:
    calls = (ToolCall("c1", READER, json.dumps({_key(READER): "a.py"})), ToolCall("c2", SEARCHER, json.dumps({_key(SEARCHER): "def f"})))
    conversation = [
        Message.user("look"),
        Message.assistant("Looking.", tool_calls=calls),
        Message.tool("c1", "alpha = 1\n"),
        Message.tool("c2", "a.py:3: def f():\n"),
        Message.assistant("Found it."),
    ]
    text = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(transcript_lines(conversation, 80)))
    for shown in ("❯ look", "Looking.", f"{READER}(a.py)", "alpha = 1", f"{SEARCHER}(def f)", "a.py:3: def f():", "Found it."):
        assert shown in text
    pager = Pager([f"row {n}" for n in range(50)], rows=10)
    assert pager.page().splitlines()[-1] == "row 49"  # opens at the newest
    pager.scroll(-100)
    assert pager.page().splitlines()[0] == "row 0" and pager.position() == " lines 1-10 of 50 "


def test_ctrl_o_during_a_turn_ends_the_open_run_and_prints_it_in_full() -> None:
    turn = Turn()
    assert turn.view.expand_last() is False
    turn.call(READER, "a.py", content="alpha line\n")
    turn.call(READER, "b.py", content="beta line\n")
    assert turn.view.expand_last() is True
    printed = turn.printed()
    assert printed.index("Read 2 files (ctrl+o to expand)") < printed.index("    alpha line") < printed.index("    beta line")
    assert turn.live().count("Read 2 files") == 0  # no longer live: printed once, then expanded


def test_a_resumed_session_draws_a_run_of_reads_folded_as_it_was_live() -> None:
    paths = ("src/shop/cart.py", "tests/test_cart.py", "README.md")
    calls = tuple(ToolCall(f"c{n}", READER, json.dumps({_key(READER): path})) for n, path in enumerate(paths))
    conversation = [
        Message.user("look"),
        Message.assistant("", tool_calls=calls),
        *(Message.tool(f"c{n}", f"line of {path}\n") for n, path in enumerate(paths)),
    ]
    out = StringIO()
    render_transcript(Console(file=out, width=80, height=24, color_system=None), "s1", conversation)
    screen = out.getvalue()
    assert "● Read 3 files (ctrl+o to expand)\n  ⎿ src/shop/cart.py, tests/test_cart.py, README.md\n" in screen
    assert f"{READER}(" not in screen


def test_a_command_line_is_cut_in_the_middle_not_at_its_last_slash() -> None:
    command = "cd /srv/app && python -m pytest -q tests/unit tests/integration --maxfail=1 -k 'cart and not slow'"
    short = shorten_middle(command, 40)
    assert len(short) == 40 and short.startswith("cd /srv/app") and short.endswith("not slow'")


def test_a_sessions_explore_kinds_come_from_its_tools_traits() -> None:
    traits = {tool.name: tool.traits for tool in REGISTRY}
    assert explore_kinds(traits) == KINDS
    assert explore_kinds({"mcp__docs__read": ToolTraits(kind="read", clearable=True, explores="resource")}) == {"mcp__docs__read": "resource"}
