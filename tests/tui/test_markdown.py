"""Streaming markdown: blocks finish once, the tail stays small."""

from __future__ import annotations

import io

from rich.console import Console

from pseudoclaude.tui.markdown import CHUNK_LINES, Block, BlockSplitter, MarkdownStream

ANSWER = "# Title\n\nA paragraph\nthat wraps.\n\n- one\n- two\n\n```python\nprint('hi')\n```\nAfter the code.\n"


def blocks_of(text: str, step: int) -> list[Block]:
    splitter = BlockSplitter()
    blocks: list[Block] = []
    for start in range(0, len(text), step):
        blocks += splitter.feed(text[start : start + step])
    return blocks + splitter.finish()


def test_blocks_are_the_same_whatever_the_delta_size() -> None:
    expected = [
        Block("markdown", "# Title"),
        Block("markdown", "A paragraph\nthat wraps."),
        Block("markdown", "- one\n- two"),
        Block("code", "print('hi')", "python"),
        Block("markdown", "After the code."),
    ]
    assert blocks_of(ANSWER, 1) == expected
    assert blocks_of(ANSWER, 7) == expected
    assert blocks_of(ANSWER, len(ANSWER)) == expected


def test_a_paragraph_is_not_finished_until_an_unindented_line_follows_the_blank() -> None:
    splitter = BlockSplitter()
    assert splitter.feed("1. first item\n\n") == []
    assert splitter.feed("   continued inside the item\n\n") == []
    assert splitter.feed("Next paragraph") == [Block("markdown", "1. first item\n\n   continued inside the item")]
    assert splitter.pending_lines() == ["Next paragraph"]


def test_a_long_code_block_is_emitted_in_chunks_so_the_tail_stays_bounded() -> None:
    splitter = BlockSplitter()
    done = splitter.feed("```\n" + "".join(f"line {i}\n" for i in range(CHUNK_LINES * 2 + 5)))
    assert [b.kind for b in done] == ["code", "code"]
    assert len(splitter.pending_lines()) == 5
    assert splitter.in_code


def test_finished_blocks_are_printed_once_and_the_tail_is_not_printed() -> None:
    console = Console(file=io.StringIO(), width=80, color_system=None)
    stream = MarkdownStream(console)
    for char in "First paragraph.\n\nSecond, still growing":
        stream.feed(char)
    stream.flush()
    stream.flush()
    printed = console.file.getvalue()
    assert printed.count("First paragraph.") == 1 and "Second" not in printed
    assert stream.tail() is not None
    stream.finish()
    assert console.file.getvalue().count("Second, still growing") == 1
