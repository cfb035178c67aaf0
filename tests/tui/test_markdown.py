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
        Block("markdown", "- one"),
        Block("markdown", "- two", continued=True),
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
    assert [b.kind for b in done] == ["code", "code"] and [b.continued for b in done] == [False, True]
    assert len(splitter.pending_lines()) == 5
    assert splitter.in_code
    assert splitter.take_code() == [Block("code", "\n".join(f"line {i}" for i in range(CHUNK_LINES * 2, CHUNK_LINES * 2 + 5)), "", True)]
    assert splitter.pending_lines() == [] and splitter.in_code


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


def printed(text: str, step: int = 5, width: int = 60) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    stream = MarkdownStream(console)
    for start in range(0, len(text), step):
        stream.feed(text[start : start + step])
        stream.flush()
    stream.finish()
    return "\n".join(line.rstrip() for line in console.file.getvalue().splitlines())


def test_two_adjacent_code_blocks_stay_two_blocks_and_links_show_their_url() -> None:
    out = printed("```python\na = 1\n```\n```python\nb = 2\n```\nSee [the docs](https://example.com/guide).\n")
    assert "\n\n b = 2" in out.replace(" a = 1\n\n", " a = 1\n\n")
    lines = out.splitlines()
    assert lines[lines.index(" a = 1") + 1] == "" and "b = 2" in lines[lines.index(" a = 1") + 2]
    assert "the docs (https://example.com/guide)" in out


def test_a_long_list_streams_rendered_item_by_item_and_the_tail_is_never_raw_markdown() -> None:
    console = Console(file=io.StringIO(), width=60, color_system=None)
    stream = MarkdownStream(console, tail_lines=4)
    items = "".join(f"- item **{i}**\n" for i in range(30))
    stream.feed(items[: len(items) // 2])
    stream.flush()
    tail = Console(file=io.StringIO(), width=60, color_system=None)
    tail.print(stream.tail())
    assert "**" not in tail.file.getvalue() and "- item" not in tail.file.getvalue()
    assert console.file.getvalue().count("• item") >= 10
    stream.feed(items[len(items) // 2 :])
    stream.finish()
    out = console.file.getvalue()
    assert out.count("• item") == 30 and "\n\n" not in out.strip()


def test_streaming_prints_what_one_print_of_the_whole_answer_shows_whatever_the_delta_size() -> None:
    answer = "# Plan\n\nIntro line.\n\n1. first\n2. second\n\n```sh\nmake\nmake test\n```\nDone.\n"
    assert printed(answer, step=1) == printed(answer, step=len(answer))


def _stream(text: str, draw_every: int, width: int) -> tuple[int, str, str]:
    """``text`` fed 12 characters at a time, the tail (6 lines) drawn every ``draw_every`` deltas; the work done (the
    function calls made, counted by ``cProfile``: CPU time, which these tests once compared, failed on a loaded
    machine), the last tail drawn and what was printed once the stream finished."""
    import cProfile
    import pstats

    out = io.StringIO()
    console = Console(file=out, width=width, height=24, color_system=None)
    stream = MarkdownStream(console, tail_lines=6)
    tail = ""
    profile = cProfile.Profile()
    profile.enable()
    for index in range(0, len(text), 12):
        stream.feed(text[index : index + 12])
        if index // 12 % draw_every == draw_every - 1:
            with console.capture() as captured:
                console.print(stream.tail())
            tail = captured.get()
    profile.disable()
    stream.finish()
    return pstats.Stats(profile).total_calls, tail, out.getvalue()  # type: ignore[attr-defined]


def _stream_one_line(size: int) -> tuple[int, str, str]:
    """A paragraph written as one line of ``size`` characters, the tail drawn every 50 deltas."""
    words = "a paragraph that never ends its line keeps the tail growing ".split()
    return _stream("".join(words[i % len(words)] + " " for i in range(size // 5))[:size], 50, 80)


def test_a_line_without_end_costs_linear_time_and_the_tail_shows_its_end() -> None:
    """Feeding appended to the open line and the tail rendered all of it: a 200 KB line cost 100x a 20 KB one."""
    small = _stream_one_line(4_000)[0]
    large, tail, printed = _stream_one_line(40_000)
    assert large < 30 * small, (small, large)  # linear is 10; the quadratic cost was about 100
    shown = tail.split()
    assert 6 * 8 <= len(shown) and " ".join(shown[-8:]) in " ".join(printed.split())
    assert len(printed.split()) >= 7_000  # the finished paragraph is printed whole


def streamed(text: str, width: int = 60) -> list[str]:
    """What streaming ``text`` a line per tick prints at ``width`` (plain text, trailing blanks cut)."""
    console = Console(file=io.StringIO(), width=width, color_system=None)
    stream = MarkdownStream(console)
    for line in text.splitlines(keepends=True):
        stream.feed(line)
        stream.flush()
    stream.finish()
    return [row.rstrip() for row in console.file.getvalue().splitlines()]  # type: ignore[attr-defined]


def test_an_h1_starts_at_the_left_edge_like_every_other_heading() -> None:
    rows = streamed("# Release notes\n\nText.\n\n## Details\n\nMore.\n")
    assert rows[0] == "Release notes" and "Details" in rows


def test_a_streamed_list_of_twelve_keeps_its_text_in_one_column_past_item_ten() -> None:
    rows = [row for row in streamed("".join(f"{n}. item {n} says something long enough to wrap at forty columns\n" for n in range(1, 13)), width=40) if row]
    starts = {row.index("item") if "item" in row else len(row) - len(row.lstrip()) for row in rows}
    assert len(starts) == 1, rows  # numbers right-aligned; a wrapped line's continuation under its text
    assert [row.split(".")[0].strip() for row in rows if "." in row.split()[0]] == [str(n) for n in range(1, 13)]


def _stream_table(rows: int) -> tuple[int, str]:
    """A table of ``rows`` short rows, the tail drawn every 5 deltas; the work done and the last tail."""
    text = "| name | value | note |\n|---|---|---|\n" + "".join(f"| row {i} | {i * 7} | n{i} |\n" for i in range(rows))
    elapsed, tail, _ = _stream(text, 5, 100)
    return elapsed, tail


def test_a_long_table_costs_linear_time_and_the_tail_shows_its_last_rows() -> None:
    """The tail kept as many characters as twelve wrapped lines hold: for short rows, a hundred rows laid out per draw
    to show the last few (a 300-row table streamed in 24 s of CPU). It keeps twice the rows shown now."""
    small = _stream_table(20)[0]
    large, tail = _stream_table(120)
    assert large < 12 * small, (small, large)  # linear is about 6 (7.5 here); keeping every row that fit the characters was 19
    assert "row 118" in tail
