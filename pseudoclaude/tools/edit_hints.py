"""What edit_file says when ``old_string`` does not match exactly once.

A failed edit costs a turn; the error should make the next one succeed. The
usual causes, in order: ``old_string`` was copied from a ``read_file`` result
with its line-number prefixes (``     12<TAB>``) still on; its whitespace or
indentation differs; it is not unique. So the hints say which: the prefixes
(and whether the text matches without them), or the closest places in the
file (line numbers and the lines themselves, found with ``difflib``), or the
lines where each occurrence starts. Every hint is bounded: a few candidates of
a few lines, each line cut, whatever the size of the file.
"""

from __future__ import annotations

import difflib
import re

MAX_CANDIDATES = 3
MAX_CANDIDATE_LINES = 6
MAX_LINE_CHARS = 160
MAX_OCCURRENCES = 5
MAX_ANCHOR_LINES = 20_000

_NUMBER_PREFIX = re.compile(r"^ *\d+\t")


def strip_line_numbers(old_string: str) -> str | None:
    """``old_string`` without read_file's ``cat -n`` prefixes, or None when its lines do not all carry one."""
    lines = old_string.split("\n")
    filled = [line for line in lines if line.strip()]
    if not filled or not all(_NUMBER_PREFIX.match(line) for line in filled):
        return None
    return "\n".join(_NUMBER_PREFIX.sub("", line, count=1) for line in lines)


def not_found_hint(text: str, old_string: str) -> str:
    """Why ``old_string`` may not have matched and where the nearest text is; "" when nothing is close."""
    stripped = strip_line_numbers(old_string)
    if stripped is not None:
        where = ""
        if stripped and stripped in text:
            where = f" Without them it matches at line {text.count(chr(10), 0, text.index(stripped)) + 1}."
        return (
            "old_string still carries read_file's line-number prefixes (spaces, the number, a tab): remove them "
            f"from old_string and new_string and send only the file's text.{where}"
        )
    candidates = _nearest(text.split("\n"), old_string.split("\n"))
    if not candidates:
        return ""
    blocks = "\n     ---\n".join(candidates)
    return f"The closest text in the file (line number, tab, text; compare whitespace and indentation):\n{blocks}"


def occurrences_hint(text: str, old_string: str) -> str:
    """The line numbers where the first occurrences of ``old_string`` start."""
    lines: list[int] = []
    at = text.find(old_string)
    while at >= 0 and len(lines) < MAX_OCCURRENCES:
        lines.append(text.count("\n", 0, at) + 1)
        at = text.find(old_string, at + 1)
    more = " and more" if at >= 0 else ""
    return f"It starts at lines {', '.join(str(n) for n in lines)}{more}."


def _nearest(file_lines: list[str], old_lines: list[str]) -> list[str]:
    """Up to ``MAX_CANDIDATES`` numbered blocks of the file most like ``old_lines``, best first."""
    anchor_index = max(range(len(old_lines)), key=lambda i: len(old_lines[i].strip()))
    anchor = old_lines[anchor_index].strip()
    if not anchor:
        return []
    pool = [line.strip() for line in file_lines[:MAX_ANCHOR_LINES]]
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(anchor)
    scored: list[tuple[float, int]] = []
    for number, line in enumerate(pool):
        if not line:
            continue
        matcher.set_seq1(line)
        if matcher.real_quick_ratio() < 0.6 or matcher.quick_ratio() < 0.6:
            continue
        ratio = matcher.ratio()
        if ratio >= 0.6:
            scored.append((ratio, number))
    scored.sort(key=lambda item: (-item[0], item[1]))
    blocks: list[str] = []
    used: set[int] = set()
    span = min(len(old_lines), MAX_CANDIDATE_LINES)
    for _, number in scored:
        start = max(0, number - anchor_index)
        if start in used:
            continue
        used.add(start)
        shown = file_lines[start : start + span]
        rows = [f"{start + i + 1:>6}\t{line[:MAX_LINE_CHARS]}" for i, line in enumerate(shown)]
        if len(old_lines) > span:
            rows.append("     …")
        blocks.append("\n".join(rows))
        if len(blocks) == MAX_CANDIDATES:
            break
    return blocks
