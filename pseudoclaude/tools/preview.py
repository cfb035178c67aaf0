"""The preview of a long output: head, the error-like lines of the omitted middle, a longer tail.

``shape`` turns a finished ``StreamCapture`` into the text the model reads
below the status line, within the capture's inline budget. The tail gets what
the head and the error lines leave (at least ``TAIL_SHARE`` of the budget),
because the end of an output (the failures, the summary, the last error) is
what a model needs most. Line numbers are those of the complete output, so the
spill file can be read at the right place.
"""

from __future__ import annotations

from dataclasses import dataclass

from pseudoclaude.tools.errorlines import ErrorLine, ErrorScanner
from pseudoclaude.tools.output import StreamCapture, utf8_head, utf8_tail

ERROR_SHARE = 0.25
ERROR_MAX_LINES = 40
_MARKERS = 160


@dataclass(frozen=True)
class Preview:
    """The shaped body; ``tail_first_line`` is the number of the first line of the tail (0: a fragment of one line)."""

    text: str
    tail_first_line: int
    tail: str
    error_lines: int


def shape(capture: StreamCapture) -> Preview:
    """Head, numbered error-like lines of the middle and tail of ``capture``, within ``capture.inline_bytes``.

    Call once: it feeds the unshown part of the tail to the capture's scanner.
    """
    scanner = capture.scanner or ErrorScanner(capture.head.count(b"\n"))
    head, tail = bytes(capture.head), bytes(capture.tail)
    error_budget = int(capture.inline_bytes * ERROR_SHARE)
    room = max(0, capture.inline_bytes - _MARKERS - len(head))
    start = _tail_start(tail, room - error_budget, capture.mid_line)
    fragment = start >= len(tail) and bool(tail)
    if fragment:
        start = max(0, len(tail) - max(room - error_budget, 0))
        scanner.feed(tail[:start])
    else:
        scanner.feed(tail[:start])
        scanner.finish()
    head_lines = head.count(b"\n") + (1 if capture.head_cut else 0)
    kept = scanner.kept()
    errors = [line for line in kept if line.number > head_lines]
    first_tail_line = scanner.lines_done + 1
    listed = _error_block(errors, scanner, scanner.found - (len(kept) - len(errors)), error_budget)
    spare = room - len(listed.encode("utf-8"))
    wider = max(0, len(tail) - max(spare, 0)) if fragment else _tail_start(tail, spare, capture.mid_line)
    if wider < start:
        if not fragment:
            first_tail_line -= tail.count(b"\n", wider, start)
            errors = [line for line in errors if line.number < first_tail_line]
            listed = _error_block(errors, scanner, scanner.found - (len(kept) - len(errors)), error_budget)
        start = wider
    lead = 0
    spare = room - len(listed.encode("utf-8")) - (len(tail) - start)
    if not fragment and start > 0 and spare > capture.inline_bytes // 4:
        lead = min(start, spare)
        start -= lead
    head_text = utf8_head(head).decode("utf-8", errors="replace")
    if capture.head_cut:
        head_text += " … [line 1 continues]\n"
    tail_text = utf8_tail(tail[start:]).decode("utf-8", errors="replace")
    omitted_bytes = capture.total_bytes - len(head) - (len(tail) - start)
    first_omitted = head_lines + 1
    marker = f"… [{omitted_bytes:,} bytes omitted"
    if first_tail_line - 1 >= first_omitted:
        marker += f": {_span(first_omitted, first_tail_line - 1)}"
    marker += "; error-like lines among them, numbered:" if errors else ""
    marker += "]\n"
    if fragment:
        tail_note = f"… [the end of line {first_tail_line:,}:]\n"
    elif lead:
        tail_note = f"… [the end of line {first_tail_line - 1:,}, then {_span(first_tail_line, capture.total_lines)}:]\n"
    else:
        tail_note = f"… [{_span(first_tail_line, capture.total_lines)}:]\n"
    text = head_text + marker + listed + tail_note + tail_text
    return Preview(text, 0 if fragment else first_tail_line, tail_text, len(errors))


def _span(first: int, last: int) -> str:
    return f"line {first:,}" if first >= last else f"lines {first:,}-{last:,}"


def _tail_start(tail: bytes, size: int, mid_line: bool) -> int:
    """Where a tail of at most ``size`` bytes starts: at a line start if one is close enough, else ``len(tail)``."""
    cut = max(0, len(tail) - max(size, 0))
    if cut == 0 and not mid_line:
        return 0
    newline = tail.find(b"\n", max(cut - 1, 0))
    if newline < 0 or newline + 1 >= len(tail):
        return len(tail)
    return newline + 1


def _error_block(errors: list[ErrorLine], scanner: ErrorScanner, total: int, budget: int) -> str:
    """The numbered lines (of ``total`` found), first and last ones kept, within ``budget`` bytes and ``ERROR_MAX_LINES`` lines."""
    if not errors:
        return ""
    rows = [f"{line.number}: {line.text}\n" for line in errors]
    keep_first = min(len(rows), ERROR_MAX_LINES // 4)
    chosen = rows[:keep_first]
    later: list[str] = []
    used = sum(len(row.encode("utf-8")) for row in chosen)
    for row in reversed(rows[keep_first:]):
        size = len(row.encode("utf-8"))
        if len(chosen) + len(later) >= ERROR_MAX_LINES or used + size > budget - 80:
            break
        later.append(row)
        used += size
    while chosen and used > budget - 80:
        used -= len(chosen.pop().encode("utf-8"))
    later.reverse()
    left = max(total, len(errors)) - len(chosen) - len(later)
    gap = ""
    if left > 0 or not scanner.exact:
        more = f"{left:,} more error-like lines" if scanner.exact else "more error-like lines (too many to count)"
        gap = f"  … [{more} not listed]\n"
    return "".join(chosen) + gap + "".join(later)
