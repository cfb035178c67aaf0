"""StreamCapture and binary sniffing."""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

from pseudoclaude.tools.output import (
    StreamCapture,
    guess_type,
    looks_binary,
    utf8_head,
    utf8_tail,
)


def _opener(tmp_path: Path) -> tuple[Path, BinaryIO]:
    path = tmp_path / "spill.txt"
    return path, open(path, "wb")


def test_small_stream_is_kept_whole_without_spilling(tmp_path: Path) -> None:
    capture = StreamCapture(head_limit=10, tail_limit=10, open_spill=lambda: _opener(tmp_path))
    for chunk in (b"hello ", b"world"):
        capture.feed(chunk)
    capture.close()
    assert capture.text() == "hello world"
    assert capture.spill_path is None and not capture.truncated


def test_overflow_keeps_head_and_tail_and_spills_the_whole_stream(tmp_path: Path) -> None:
    capture = StreamCapture(head_limit=4, tail_limit=4, open_spill=lambda: _opener(tmp_path))
    data = b"".join(bytes([65 + i % 26]) for i in range(100))
    for i in range(0, 100, 7):
        capture.feed(data[i : i + 7])
    capture.close()
    assert capture.total_bytes == 100
    assert capture.text() == f"ABCD\n\n… [92 bytes omitted] …\n\n{data[-4:].decode()}"
    assert capture.spill_complete
    assert (tmp_path / "spill.txt").read_bytes() == data


def test_spill_file_stops_at_its_limit_but_the_count_goes_on(tmp_path: Path) -> None:
    capture = StreamCapture(head_limit=2, tail_limit=2, open_spill=lambda: _opener(tmp_path), spill_limit=10)
    capture.feed(b"x" * 50)
    capture.close()
    assert capture.total_bytes == 50
    assert not capture.spill_complete
    assert (tmp_path / "spill.txt").stat().st_size == 10


def test_cut_utf8_sequences_are_trimmed_at_the_edges() -> None:
    snowman = "☃".encode()
    assert utf8_head(b"ab" + snowman[:2]) == b"ab"
    assert utf8_head(b"ab" + snowman) == b"ab" + snowman
    assert utf8_tail(snowman[1:] + b"cd") == b"cd"


def test_binary_sniffing() -> None:
    assert looks_binary(b"text\x00more")
    assert looks_binary(b"\xff\xfe\xfd")
    assert not looks_binary("plain ünïcode\n".encode())
    assert not looks_binary(b"a" * 8191 + "é".encode())
    assert guess_type(b"%PDF-1.7") == "PDF document"
    assert guess_type(b"\x7fELF\x02") == "ELF executable"
    assert guess_type(b"\x00\x01") == "binary data"


def test_capture_memory_is_bounded() -> None:
    capture = StreamCapture(head_limit=100, tail_limit=100)
    for _ in range(1000):
        capture.feed(b"y" * 1000)
    assert capture.total_bytes == 1_000_000
    assert len(capture.text()) < 300
    assert len(capture.sample()) == 100
