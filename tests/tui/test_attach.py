"""``@path`` attaches the file's content within the read budget (head and tail of a large file)."""

from __future__ import annotations

import os
from pathlib import Path

from pseudoclaude.agent import AgentStatus
from pseudoclaude.tui.attach import attach_files
from pseudoclaude.tui.prompt_text import build_prompt


def page(window: int = 0) -> int:
    """The read budget the REPL passes: the agent's status view at ``window`` (0: not known yet)."""
    return AgentStatus("m", 0, window, 0).read_page_bytes


def test_a_mentioned_file_is_attached_whole_when_it_fits(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("def main():\n    return 42\n")
    prompt = build_prompt("why does @app.py return 42?", tmp_path, page_bytes=page())
    assert prompt == (
        'why does @app.py return 42?\n\nFiles the user attached (current content):\n<file path="app.py" bytes="26">\ndef main():\n    return 42\n</file>'
    )


def test_a_large_file_keeps_its_head_and_tail_within_the_budget(tmp_path: Path) -> None:
    lines = [f"line {n:05d}" for n in range(20_000)]
    (tmp_path / "big.log").write_text("\n".join(lines) + "\n")
    [attached] = attach_files(["big.log"], tmp_path, budget_bytes=6000)
    assert attached.text.startswith("line 00000\n")
    assert attached.text.rstrip().endswith("line 19999")
    assert "bytes cut ..." in attached.text and attached.cut_bytes > 200_000
    assert len(attached.text.encode()) <= 6100
    assert 'cut="' in attached.render()


def test_files_share_the_budget_and_binary_or_special_files_are_only_named(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a" * 5000)
    (tmp_path / "b.txt").write_text("b" * 5000)
    (tmp_path / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    os.mkfifo(tmp_path / "pipe")
    a, b, img, pipe = attach_files(["a.txt", "b.txt", "img.png", "pipe"], tmp_path, budget_bytes=6000)
    assert len(a.text) + len(b.text) <= 6000 and a.cut_bytes and b.cut_bytes
    assert img.text == "" and "binary" in img.render()
    assert pipe.text == "" and "not a regular file" in pipe.render()


def test_a_mention_outside_the_workspace_attaches_nothing(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (tmp_path / "secret.txt").write_text("top secret")
    (workspace / "link.txt").symlink_to(tmp_path / "secret.txt")
    prompt = build_prompt("see @../secret.txt and @link.txt", workspace, page_bytes=page())
    assert "top secret" not in prompt


def test_the_budget_shrinks_with_a_small_context_window(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("y" * 200_000)
    large = build_prompt("@big.txt", tmp_path, page_bytes=page(200_000))
    small = build_prompt("@big.txt", tmp_path, page_bytes=page(8_000))
    assert len(small) < len(large) <= 70_000
