"""The working set's files after compaction: every path read, edited, searched or listed, grouped, never capped."""

from __future__ import annotations

import asyncio
import json
from typing import Sequence

from pseudoclaude.compact import BytesEstimator, ContextState, PinnedTool, WorkingSet, force_compact
from pseudoclaude.compact.reattach import FileText
from pseudoclaude.llm.messages import Message, ToolCall
from tests.compact.listing import names_path
from tests.compact.support import SummaryProvider

TOOLS = {
    "read_file": PinnedTool("read", "path"),
    "edit_file": PinnedTool("edit", "path"),
    "run_command": PinnedTool("execute", "command"),
    "grep": PinnedTool("search", "path", pattern="pattern", default="."),
    "glob": PinnedTool("search", "path", pattern="pattern", default="."),
    "list_dir": PinnedTool("list", "path", default="."),
}
SUMMARY = "<summary>the model's own words about the work</summary>"


def _call(call_id: str, tool: str, content: str, **arguments: object) -> list[Message]:
    return [Message.assistant(f"using {tool}", [ToolCall(call_id, tool, json.dumps(arguments))]), Message.tool(call_id, content)]


def _read(call_id: str, path: str, last: int = 30, total: int = 120) -> list[Message]:
    body = "".join(f"{n}\t{path} line {n}\n" for n in range(1, last + 1))
    return _call(call_id, "read_file", body + f"… lines 1-{last} of {total}\n", path=path)


def _outside_summary(conversation: Sequence[Message]) -> str:
    return "\n".join([m.text for m in conversation[1:]] + [m.tool_result.content for m in conversation if m.tool_result is not None])


def _sixty() -> tuple[list[Message], list[str]]:
    """A session touching 60 paths in six directories: reads, edits, greps, globs and listings."""
    messages: list[Message] = [Message.user("Find why the totals are off and fix it.")]
    paths: list[str] = []
    folders = ["src/shop", "src/shop/api", "src/shop/models", "tests/shop", "docs", "scripts"]
    for n in range(60):
        folder = folders[n % len(folders)]
        path = f"{folder}/part_{n:02d}.py"
        if n % 10 == 3:
            messages += _call(f"g{n}", "grep", f"{path}:3: total\n", pattern=f"total_{n}", path=path)
        elif n % 10 == 7:
            path = f"{folder}/sub_{n:02d}"
            messages += _call(f"l{n}", "list_dir", "a.py\nb.py\n", path=path)
        elif n % 10 == 9:
            messages += _call(f"e{n}", "edit_file", "edited", path=path, old_string="a", new_string="b")
        else:
            messages += _read(f"r{n}", path)
        paths.append(path)
    messages += _call("g99", "glob", "src/a.py\n", pattern="**/*.py")
    return [*messages, Message.assistant("looked everywhere"), Message.user("go on")], paths


def test_sixty_touched_paths_all_appear_after_a_compaction_at_32k() -> None:
    messages, paths = _sixty()
    state = ContextState(model="m", context_window=32_000, estimator=BytesEstimator(), working_set=WorkingSet(TOOLS))
    compacted = asyncio.run(force_compact(messages, state, SummaryProvider([SUMMARY]))).conversation
    kept = _outside_summary(compacted)
    assert [path for path in paths if not names_path(kept, path)] == []
    assert "- ./: . (searched '**/*.py')" in kept, "a glob over the workspace"
    assert "part_03.py (searched 'total_3')" in kept and "sub_07/ (listed)" in kept
    parts = state.status(compacted).pinned
    assert parts.files == 61 and parts.files_tokens <= state.budget.pinned_max_tokens


def test_when_room_is_short_the_list_names_each_path_in_a_third_of_the_room_one_line_per_path_took() -> None:
    messages, paths = _sixty()
    working = WorkingSet(TOOLS)
    working.ingest(messages)
    count = BytesEstimator().count
    block = working.render(600, lambda text: count([Message.user(text)]))
    listed = "\n".join(line for line in block.splitlines() if line.startswith("- ") or line.startswith("Files "))
    one_per_line = "\n".join(f"- {path} (read lines 1-30 of 120)" for path in paths)
    assert all(names_path(listed, path) for path in paths)
    assert "- src/shop/: read part_00.py, part_06.py," in listed and "; searched part_13.py, part_43.py; listed sub_07/, sub_37/" in listed
    assert len(listed) < 0.4 * len(one_per_line)


def test_edited_files_and_those_the_last_failure_names_come_first_then_the_rest_most_recent_last() -> None:
    working = WorkingSet(TOOLS)
    failure = "Traceback:\n  src/shop/tax.py:12 in rate\nAssertionError\n[exit code 1]"
    working.ingest(
        [
            Message.user("fix it"),
            *_read("r1", "src/shop/cart.py"),
            *_read("r2", "src/shop/tax.py"),
            *_read("r3", "lib/util.py"),
            *_call("e1", "edit_file", "edited", path="src/shop/cart.py", old_string="a", new_string="b"),
            *_read("r4", "src/shop/models.py"),
            *_read("r5", "lib/util.py", 60),
            *_call("c1", "run_command", failure, command="pytest tests/"),
        ]
    )
    block = working.render(2_000, lambda text: BytesEstimator().count([Message.user(text)]))
    files = block[block.index("Files edited") : block.index("Last failing command")]
    assert files == (
        "Files edited or in the last failure (by directory, most recent last):\n"
        "- src/shop/: tax.py (read 1-30 of 120), cart.py (edited; read 1-30 of 120)\n"
        "Files read, searched or listed (by directory, most recent last):\n"
        "- src/shop/: models.py (read 1-30 of 120)\n"
        "- lib/: util.py (read 1-60 of 120)\n"
    )


def test_a_path_touched_again_moves_to_the_end_of_its_part() -> None:
    working = WorkingSet(TOOLS)
    working.ingest([Message.user("look"), *_read("r1", "a/one.py"), *_read("r2", "b/two.py"), *_read("r3", "a/three.py"), *_read("r4", "b/two.py", 40)])
    block = working.render(2_000, lambda text: BytesEstimator().count([Message.user(text)]))
    assert "- a/: one.py (read 1-30 of 120), three.py (read 1-30 of 120)\n- b/: two.py (read 1-40 of 120)" in block


def test_the_last_failure_keeps_its_last_twelve_lines() -> None:
    working = WorkingSet(TOOLS)
    output = "".join(f"output line {n:02d}\n" for n in range(1, 31)) + "[exit code 1]"
    working.ingest([Message.user("run"), *_call("c1", "run_command", output, command="make test")])
    block = working.render(2_000, lambda text: BytesEstimator().count([Message.user(text)]))
    tail = "".join(f"output line {n:02d}\n" for n in range(19, 31)).rstrip()
    assert f"Last failing command: $ make test\n[exit code 1]\n{tail}\n" in block
    assert "output line 18" not in block


def test_when_even_the_names_do_not_fit_the_oldest_directories_become_counts() -> None:
    working = WorkingSet(TOOLS)
    messages: list[Message] = [Message.user("survey the tree")]
    for folder in range(20):
        for n in range(20):
            messages += _read(f"r{folder}-{n}", f"pkg/area_{folder:02d}/module_with_a_long_name_{n:02d}.py")
    working.ingest(messages)
    count = BytesEstimator().count
    block = working.render(1_200, lambda text: count([Message.user(text)]))
    assert "- pkg/area_00/: 20 entries read, searched or listed (recall path=pkg/area_00/<name> finds them)" in block
    assert names_path(block, "pkg/area_19/module_with_a_long_name_19.py"), "the newest directories keep their names"
    assert all(f"pkg/area_{folder:02d}/" in block for folder in range(20)), "every directory is named"


class Disk:
    """A ``PinnedSource`` over a dict of file texts (the workspace seam)."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def current_file(self, path: str, max_chars: int) -> FileText | None:
        text = self.files.get(path)
        if text is None:
            return None
        lines = text.splitlines()
        return FileText("".join(f"{n:6}\t{line}\n" for n, line in enumerate(lines, 1))[:max_chars], len(lines))

    def changed_instructions(self) -> str:
        return ""

    def planning(self) -> bool:
        return False


def test_file_text_comes_back_only_for_files_edited_or_read_in_the_last_rounds() -> None:
    disk = Disk({path: f"text of {path}\n" for path in ("old_read.py", "old_edit.py", "new_read.py")})
    working = WorkingSet(TOOLS, disk)
    messages = [Message.user("go"), *_read("r1", "old_read.py"), *_call("e1", "edit_file", "edited", path="old_edit.py", old_string="a", new_string="b")]
    for n in range(6):
        messages += _call(f"c{n}", "run_command", "ok\n[exit code 0]", command=f"step {n}")
    messages += _read("r2", "new_read.py")
    working.ingest(messages)
    block = working.render(2_000, lambda text: BytesEstimator().count([Message.user(text)]), window=60_000)
    attached = [line for line in block.splitlines() if line.startswith("<file ")]
    assert attached == ['<file path="old_edit.py" lines="1">', '<file path="new_read.py" lines="1">']
    assert names_path(block, "old_read.py"), "still listed, only its text is not re-attached"


def test_a_user_message_takes_the_file_text_budget_before_any_file_does() -> None:
    disk = Disk({"big.py": "x = 1\n" * 3_000})
    working = WorkingSet(TOOLS, disk)
    ticket = "Please do the migration. " + "Background sentence about the legacy system. " * 260 + "Never drop the audit table."
    working.ingest([Message.user(ticket), *_call("e1", "edit_file", "edited", path="big.py", old_string="a", new_string="b")])
    count = BytesEstimator().count
    roomy = working.render(4_000, lambda text: count([Message.user(text)]), window=60_000)
    squeezed = working.render(1_000, lambda text: count([Message.user(text)]), window=32_000)
    alone = WorkingSet(TOOLS, disk)
    alone.ingest([Message.user("Please do the migration."), *_call("e1", "edit_file", "edited", path="big.py", old_string="a", new_string="b")])
    unsqueezed = alone.render(1_000, lambda text: count([Message.user(text)]), window=32_000)

    def file_text(block: str) -> str:
        return block[block.index('<file path="big.py"') : block.index("</file>")]

    assert ticket in roomy and ticket in squeezed, "the message stays whole, borrowing the files' budget"
    assert len(file_text(squeezed)) < len(file_text(unsqueezed)) / 2, "the file gets what the message left"
