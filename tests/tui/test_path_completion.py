"""``@path`` completion stays fast on a huge workspace: one folder listed, at most MAX_PATH_COMPLETIONS offered."""

from __future__ import annotations

from pathlib import Path

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from pseudoclaude.tui.input import MAX_PATH_COMPLETIONS, ReplCompleter


def complete(workspace: Path, text: str) -> list[str]:
    completer = ReplCompleter([("/help", "help")], workspace)
    return [c.text for c in completer.get_completions(Document(text), CompleteEvent(completion_requested=True))]


def test_a_huge_folder_offers_a_bounded_number_of_completions(tmp_path: Path) -> None:
    for i in range(3 * MAX_PATH_COMPLETIONS):
        (tmp_path / f"file{i:04}.py").touch()
    assert len(complete(tmp_path, "see @")) == MAX_PATH_COMPLETIONS
    assert complete(tmp_path, "see @file059") == [f"{i}.py" for i in range(10)]


def test_completion_lists_one_folder_and_never_walks_below_it(tmp_path: Path) -> None:
    deep = tmp_path / "src" / "pkg" / "sub"
    deep.mkdir(parents=True)
    (deep / "module.py").touch()
    (tmp_path / "src" / "main.py").touch()
    assert complete(tmp_path, "open @src/") == ["main.py", "pkg/"]
    assert complete(tmp_path, "open @src/pkg/sub/mo") == ["dule.py"]
