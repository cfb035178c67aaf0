"""Finding the lines that look like errors in a stream too large to keep, with their line numbers.

A command's preview shows a head and a tail; what matters in the omitted
middle are the failures (a traceback, ``FAILED``, ``error:``, a compiler
diagnostic, a ``N failed`` summary). ``ErrorScanner`` is fed that middle as
it streams past and keeps, with each one's line number in the complete
output, the first ``FIRST_KEPT`` and the last ``LAST_KEPT`` of them: memory
does not depend on the size of the output or of its lines.

Speed matters as much as memory (a command may print gigabytes): a block is
searched for a few literal keywords with ``bytes.find`` (C speed), and only a
line holding one is checked against the full pattern. Once the first lines
are kept, a block is searched backwards for its last ones only, so an output
made of nothing but error lines costs a bounded amount of work per block.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

FIRST_KEPT = 20
LAST_KEPT = 60
LINE_KEEP_BYTES = 300
_MATCH_BYTES = 2000
_CARRY_BYTES = 4096
_CANDIDATES_PER_BLOCK = 2000

_KEYWORDS: tuple[bytes, ...] = (
    b"Traceback",
    b'File "',
    b"FAIL",
    b"ERR",
    b"rror",
    b"panicked",
    b"Exception",
    b"failed",
    b"\nE ",
)

_ERROR_LINE = re.compile(
    rb"""
      Traceback\ \(most\ recent\ call
    | ^\s*File\ ".*",\ line\ \d+
    | \bFAIL(?:ED|URES?)?\b
    | \bERROR\b
    | npm\ ERR!
    | \berror(?:\[E\d+\])?:
    | ^\S+:\d+(?::\d+)?:\s*(?:fatal\ )?error\b
    | \w*Error:
    | ^[A-Za-z_][\w.]*(?:Error|Exception)\b
    | \w*Exception\b
    | \bpanicked\b
    | \b[1-9]\d*\ (?:failed|errors?)\b
    | ^E\s{2,}\S
    """,
    re.VERBOSE,
)


@dataclass(frozen=True)
class ErrorLine:
    """One error-like line: its 1-based number in the complete output and its text (cut to ``LINE_KEEP_BYTES``)."""

    number: int
    text: str


def is_error_line(line: bytes) -> bool:
    """True when ``line`` (one line, without its newline) looks like part of a failure."""
    return _ERROR_LINE.search(line[:_MATCH_BYTES].rstrip(b"\r")) is not None


class ErrorScanner:
    """Error-like lines of a byte stream, first and last ones kept, numbered from ``start_line`` + 1."""

    def __init__(self, start_line: int = 0) -> None:
        self.lines_done = start_line
        self.first: list[ErrorLine] = []
        self.last: deque[ErrorLine] = deque(maxlen=LAST_KEPT)
        self.found = 0
        self.exact = True
        self._carry = bytearray()
        self._carry_long = False

    @property
    def in_line(self) -> bool:
        """True when the bytes fed so far end in the middle of a line."""
        return bool(self._carry) or self._carry_long

    def feed(self, data: bytes) -> None:
        last_nl = data.rfind(b"\n")
        if last_nl < 0:
            self._grow_carry(data)
            return
        first_nl = data.find(b"\n")
        if self._carry_long:
            region = b"\n" + bytes(self._carry) + data[first_nl : last_nl + 1]
        else:
            region = b"\n" + bytes(self._carry) + data[: last_nl + 1]
        self._scan(region)
        self.lines_done += data.count(b"\n", first_nl, last_nl + 1)
        self._carry = bytearray()
        self._carry_long = False
        self._grow_carry(data[last_nl + 1 :])

    def finish(self) -> None:
        """The stream ended (or stops here): an unterminated last line counts as a line."""
        if self.in_line:
            self._scan(b"\n" + bytes(self._carry) + b"\n")
            self.lines_done += 1
            self._carry = bytearray()
            self._carry_long = False

    def kept(self) -> list[ErrorLine]:
        """The kept lines in order, without duplicates."""
        seen = {line.number for line in self.first}
        return self.first + [line for line in self.last if line.number not in seen]

    def _grow_carry(self, data: bytes) -> None:
        if self._carry_long or not data:
            return
        room = _CARRY_BYTES - len(self._carry)
        self._carry += data[:room]
        self._carry_long = len(data) > room

    def _record(self, region: bytes, start: int, end: int, number: int) -> bool:
        line = region[start : min(end, start + _MATCH_BYTES)]
        if not is_error_line(line):
            return False
        text = line[:LINE_KEEP_BYTES].rstrip(b"\r").decode("utf-8", errors="replace")
        if end - start > LINE_KEEP_BYTES:
            text = text.rstrip("\ufffd") + " … [line cut]"
        self.found += 1
        entry = ErrorLine(number, text)
        if len(self.first) < FIRST_KEPT:
            self.first.append(entry)
        else:
            self.last.append(entry)
        return True

    def _scan(self, region: bytes) -> None:
        """``region`` is a newline, then complete lines each ending in a newline."""
        base = self.lines_done
        budget = _CANDIDATES_PER_BLOCK
        pos, counted_to, number = 1, 1, base + 1
        ahead = {keyword: -2 for keyword in _KEYWORDS}
        while len(self.first) < FIRST_KEPT:
            hit = _next_hit(region, ahead, pos)
            if hit is None:
                return
            start, end = hit
            number += region.count(b"\n", counted_to, start)
            counted_to = start
            self._record(region, start, end, number)
            pos = end + 1
            budget -= 1
            if budget <= 0:
                self.exact = False
                return
        floor = pos
        total_lines = base + region.count(b"\n", 1)
        behind = {keyword: -2 for keyword in _KEYWORDS}
        limit, after, kept = len(region), 0, 0
        backwards: list[tuple[int, int, int]] = []
        while (hit := _previous_hit(region, behind, limit, floor)) is not None:
            if kept >= LAST_KEPT or budget <= 0:
                self.exact = False
                break
            start, end = hit
            after += region.count(b"\n", start, limit)
            backwards.append((start, end, total_lines - after + 1))
            limit = start
            kept += is_error_line(region[start : min(end, start + _MATCH_BYTES)])
            budget -= 1
        for start, end, line_number in reversed(backwards):
            self._record(region, start, end, line_number)


def _line_of(region: bytes, keyword: bytes, found: int) -> tuple[int, int]:
    at = found + 1 if keyword.startswith(b"\n") else found
    start = region.rfind(b"\n", 0, at) + 1
    end = region.find(b"\n", at)
    return start, end


def _next_hit(region: bytes, ahead: dict[bytes, int], pos: int) -> tuple[int, int] | None:
    """The first line at or after ``pos`` holding a keyword (``ahead`` caches each keyword's next position)."""
    best: tuple[int, int] | None = None
    for keyword, found in ahead.items():
        if found != -1 and found < pos - (1 if keyword.startswith(b"\n") else 0):
            found = region.find(keyword, pos - 1 if keyword.startswith(b"\n") else pos)
            ahead[keyword] = found
        if found >= 0:
            line = _line_of(region, keyword, found)
            if best is None or line[0] < best[0]:
                best = line
    return best


def _previous_hit(region: bytes, behind: dict[bytes, int], limit: int, floor: int) -> tuple[int, int] | None:
    """The last line starting in ``[floor, limit)`` that holds a keyword (``behind`` caches each keyword's last position)."""
    best: tuple[int, int] | None = None
    for keyword, found in behind.items():
        newline = keyword.startswith(b"\n")
        if found == -2 or found >= (limit - 1 if newline else limit):
            found = region.rfind(keyword, floor - 1, limit)
            behind[keyword] = found
        if found >= 0:
            line = _line_of(region, keyword, found)
            if line[0] >= floor and (best is None or line[0] > best[0]):
                best = line
    return best
