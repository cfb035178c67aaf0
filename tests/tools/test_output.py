"""StreamCapture, error-like lines, the preview, and binary sniffing."""

from __future__ import annotations

import re
from pathlib import Path
from typing import BinaryIO

import pytest

from pseudoclaude.tools.errorlines import FIRST_KEPT, LAST_KEPT, ErrorScanner, is_error_line
from pseudoclaude.tools.output import (
    StreamCapture,
    guess_type,
    looks_binary,
    utf8_head,
    utf8_tail,
)
from pseudoclaude.tools.preview import shape


def _opener(tmp_path: Path) -> tuple[Path, BinaryIO]:
    path = tmp_path / "spill.txt"
    return path, open(path, "wb")


def test_small_stream_is_kept_whole_without_spilling(tmp_path: Path) -> None:
    capture = StreamCapture(inline_bytes=100, open_spill=lambda: _opener(tmp_path))
    for chunk in (b"hello ", b"world"):
        capture.feed(chunk)
    capture.close()
    assert bytes(capture.head) + bytes(capture.tail) == b"hello world"
    assert capture.total_lines == 1
    assert capture.spill_path is None and not capture.truncated


def test_overflow_spills_the_whole_stream(tmp_path: Path) -> None:
    capture = StreamCapture(inline_bytes=100, open_spill=lambda: _opener(tmp_path))
    data = b"".join(f"line {i}\n".encode() for i in range(1000))
    for i in range(0, len(data), 7):
        capture.feed(data[i : i + 7])
    capture.close()
    assert capture.total_bytes == len(data) and capture.total_lines == 1000
    assert capture.spill_complete
    assert (tmp_path / "spill.txt").read_bytes() == data


def test_spill_file_stops_at_its_limit_but_the_count_goes_on(tmp_path: Path) -> None:
    capture = StreamCapture(inline_bytes=20, open_spill=lambda: _opener(tmp_path), spill_limit=10)
    capture.feed(b"x" * 50)
    capture.close()
    assert capture.total_bytes == 50
    assert not capture.spill_complete
    assert (tmp_path / "spill.txt").stat().st_size == 10


def test_a_spill_on_a_full_disk_is_removed_and_explained(tmp_path: Path) -> None:
    path = tmp_path / "spill.txt"
    path.write_bytes(b"")

    def full_disk() -> tuple[Path, BinaryIO]:
        return path, open("/dev/full", "wb")

    capture = StreamCapture(inline_bytes=100, open_spill=full_disk)
    for _ in range(100):
        capture.feed(b"y" * 1000 + b"\n")
    capture.close()
    assert capture.spill_path is None and not path.exists()
    assert capture.spill_error == "the complete output could not be saved: No space left on device"
    assert capture.total_bytes == 100_100


def test_preview_numbers_the_error_lines_of_the_middle_and_keeps_the_end() -> None:
    capture = StreamCapture(inline_bytes=2000)
    for i in range(1, 5001):
        capture.feed(b"Traceback (most recent call last):\n" if i == 2500 else f"ok {i}\n".encode())
    capture.feed(b"1 failed, 4999 passed")
    preview = shape(capture)
    assert "2500: Traceback (most recent call last):\n" in preview.text
    assert preview.text.endswith("ok 5000\n1 failed, 4999 passed")
    assert len(preview.text.encode()) <= 2000
    assert preview.text.startswith("ok 1\nok 2\n")


def test_preview_counts_the_error_lines_it_does_not_list() -> None:
    capture = StreamCapture(inline_bytes=2000)
    for i in range(1, 5001):
        capture.feed(f"error: number {i}\n".encode() if i % 50 == 0 else f"ok {i}\n".encode())
    text = shape(capture).text
    first_tail = int(re.search(r"… \[lines ([\d,]+)-5,000:\]", text).group(1).replace(",", ""))  # type: ignore[union-attr]
    listed = re.findall(r"^(\d+): error: number \d+$", text, re.MULTILINE)
    more = int(re.search(r"… \[(\d+) more error-like lines not listed\]", text).group(1))  # type: ignore[union-attr]
    assert len(listed) + more == len([n for n in range(50, first_tail, 50)])
    assert all(int(n) % 50 == 0 for n in listed)


def test_scanner_keeps_first_and_last_error_lines_of_a_flood() -> None:
    scanner = ErrorScanner(start_line=10)
    for _ in range(100):
        scanner.feed(b"error: x\n" * 1000)
    scanner.finish()
    kept = scanner.kept()
    assert [line.number for line in kept[:2]] == [11, 12]
    assert kept[-1].number == 100_010
    assert len(kept) == FIRST_KEPT + LAST_KEPT
    assert not scanner.exact


@pytest.mark.parametrize(
    "line",
    [
        "Traceback (most recent call last):",
        '  File "a.py", line 3, in f',
        "ValueError: boom",
        "FAILED tests/test_a.py::test_b - assert 1 == 2",
        "src/main.c:12:5: error: expected ';'",
        "error[E0308]: mismatched types",
        "thread 'main' panicked at src/main.rs:2:5:",
        "npm ERR! code ELIFECYCLE",
        "=== 3 failed, 10 passed in 1.2s ===",
        "E       assert 1 == 2",
        "java.lang.IllegalStateException: nope",
    ],
)
def test_error_like_lines(line: str) -> None:
    assert is_error_line(line.encode())


@pytest.mark.parametrize("line", ["all good", "0 failed, 3 passed", "mirror the errors later", "PASSED tests/test_a.py"])
def test_ordinary_lines(line: str) -> None:
    assert not is_error_line(line.encode())


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
    capture = StreamCapture(inline_bytes=1000)
    for _ in range(1000):
        capture.feed(b"y" * 1000)
    assert capture.total_bytes == 1_000_000
    assert len(capture.head) + len(capture.tail) <= 3000
    assert len(shape(capture).text.encode()) <= 1000
