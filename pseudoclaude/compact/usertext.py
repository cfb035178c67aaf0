"""The user's messages in the pinned block: every one carried, verbatim while they fit, never cut blindly.

A summary is the model's paraphrase; a rule the user stated once ("do not
modify anything under tests/") must reach the model after every compaction
in the user's own words. Each message takes one of these forms, from the
whole text down:

* ``verbatim``: the message as written.
* ``rules`` ("by their instructions"): its instruction-bearing sentences and
  items (``rules.py``), verbatim, after its opening words and a pointer: the
  whole text stays in the session file, and ``recall`` with the query the
  pointer gives returns it.
* ``summarized``: the same with fewer opening words: what is not an
  instruction is summarized away, the instructions stay.
* ``gist``: the opening words and the pointer only (even the rules did not fit).
* a run of such messages ``collapsed`` into one line naming how many there
  were and how to recall them: the last resort; never a silent drop.

``carry`` chooses the forms within ``max_tokens``: all verbatim if they fit;
else the longest messages go to ``rules`` first, while that frees room (a
pasted ticket is what overflows, and its constraints are what must
survive); then the oldest messages are ``summarized``, then reduced to their
``gist``, then runs of them collapse. "Oldest" skips the first message (the
task) and the newest, which go last: they are summarized after the others,
reduced to their gist only after the others collapsed, and never collapse. The heading says how many took each
form (``/context`` shows it), and the result is deterministic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Literal, Sequence

from pseudoclaude.compact.rules import extract_rules

Form = Literal["verbatim", "rules", "summarized", "gist"]
TextCounter = Callable[[str], int]

HEADING = "User messages"
OPENING_CHARS = 160
COLLAPSED_LINE_TOKENS = 30
SHORT_OPENING_CHARS = 48
_HEADING = re.compile(
    r"^User messages \((\d+)(?:, all verbatim|: (\d+) verbatim, (\d+) by their instructions, (\d+) summarized, (\d+) rules pinned"
    r"(?:, (\d+) without their rules)?(?:, (\d+) collapsed)?)"
)


@dataclass(frozen=True)
class Carried:
    """The section's text and what it had to do to fit."""

    text: str
    verbatim: int = 0
    by_rules: int = 0
    summarized: int = 0
    bare: int = 0
    collapsed: int = 0
    rules: int = 0


@dataclass(frozen=True)
class _Message:
    number: int
    text: str
    rules: tuple[str, ...]


def carry(messages: Sequence[str], max_tokens: int, count: TextCounter, *, in_tail: int = 0) -> Carried:
    """The section for ``messages`` (oldest first) within ``max_tokens`` (see the module docstring); "" for none.

    ``in_tail``: how many newer messages the kept tail carries verbatim (named in the heading, not repeated).
    """
    if not messages:
        return Carried("")
    parsed = [_Message(i + 1, text, ()) for i, text in enumerate(messages)]
    forms: list[Form] = ["verbatim"] * len(parsed)
    costs = [count(_show(m, "verbatim")) + 2 for m in parsed]
    rules_of: dict[int, tuple[str, ...]] = {}

    def shown(i: int, form: Form) -> str:
        if form != "verbatim" and i not in rules_of:
            rules_of[i] = extract_rules(parsed[i].text)
        return _show(_Message(parsed[i].number, parsed[i].text, rules_of.get(i, ())), form)

    def reform(i: int, form: Form) -> bool:
        cost = count(shown(i, form)) + 2
        if cost >= costs[i]:
            return False
        forms[i], costs[i] = form, cost
        return True

    budget = max_tokens - count(_heading(len(parsed), 0, 0, 0, 0, 0, 0, in_tail)) - 4
    for i in sorted(range(len(parsed)), key=lambda i: (-costs[i], i)):
        if sum(costs) <= budget:
            break
        reform(i, "rules")
    middle = list(range(1, len(parsed) - 1))
    ends = sorted({0, len(parsed) - 1})
    forms_down: tuple[Form, ...] = ("summarized", "gist")
    for form in forms_down:
        for i in [*middle, *ends] if form == "summarized" else middle:
            if sum(costs) <= budget:
                break
            reform(i, form)
    gone = _collapse(middle, costs, budget, len(parsed))
    for i in ends:
        if sum(c for j, c in enumerate(costs) if j not in gone) + COLLAPSED_LINE_TOKENS * _runs(gone, len(parsed)) > budget:
            reform(i, "gist")
    return _assemble(parsed, forms, shown, gone, in_tail, rules_of)


def _collapse(order: Sequence[int], costs: list[int], budget: int, total: int) -> set[int]:
    """Indices (taken from ``order``) whose lines become one count line per run, until the rest fits ``budget``."""
    gone: set[int] = set()
    for i in order:
        if sum(c for j, c in enumerate(costs) if j not in gone) + COLLAPSED_LINE_TOKENS * _runs(gone, total) <= budget:
            break
        gone.add(i)
    return gone


def _runs(gone: set[int], total: int) -> int:
    return sum(1 for i in range(total) if i in gone and i - 1 not in gone)


def _assemble(
    parsed: Sequence[_Message], forms: Sequence[Form], shown: Callable[[int, Form], str], gone: set[int], in_tail: int, rules_of: dict[int, tuple[str, ...]]
) -> Carried:
    lines: list[str] = []
    i = 0
    while i < len(parsed):
        if i in gone:
            j = i
            while j + 1 < len(parsed) and j + 1 in gone:
                j += 1
            span = f"[{i + 1}]" if i == j else f"[{i + 1}]-[{j + 1}]"
            lines.append(f"{span} {j - i + 1} message{'s' if j > i else ''} left out here for space: the session keeps them whole and recall finds them.")
            i = j + 1
            continue
        lines.append(shown(i, forms[i]))
        i += 1
    kept = [i for i in range(len(parsed)) if i not in gone]
    verbatim, by_rules, summarized, bare = (sum(forms[i] == form for i in kept) for form in ("verbatim", "rules", "summarized", "gist"))
    rules = sum(len(rules_of.get(i, ())) for i in kept if forms[i] in ("rules", "summarized"))
    heading = _heading(len(parsed), verbatim, by_rules, summarized, rules, bare, len(gone), in_tail)
    return Carried("\n".join([heading, *lines]), verbatim, by_rules, summarized, bare, len(gone), rules)


def _heading(total: int, verbatim: int, by_rules: int, summarized: int, rules: int, bare: int, collapsed: int, in_tail: int) -> str:
    tail = f"; the newest {in_tail} follow verbatim after this block" if in_tail else ""
    if verbatim == total:
        return f"{HEADING} ({total}, all verbatim; oldest first{tail}):"
    extra = (f", {bare} without their rules" if bare else "") + (f", {collapsed} collapsed" if collapsed else "")
    return (
        f"{HEADING} ({total}: {verbatim} verbatim, {by_rules} by their instructions, {summarized} summarized, {rules} rules pinned{extra}; oldest first{tail}):"
    )


def _show(message: _Message, form: Form) -> str:
    """One message in ``form``: reduced ones open with their first words, which ``recall`` finds the whole text by."""
    text = message.text
    if form == "verbatim":
        return f"[{message.number}] {text}"
    first = text.strip().splitlines()[0] if text.strip() else ""
    limit = OPENING_CHARS if form == "rules" else SHORT_OPENING_CHARS
    opening = first.split('"')[0].strip()
    if len(opening) > limit:
        cut = opening[:limit]
        opening = cut.rsplit(" ", 1)[0] if " " in cut[limit // 2 :] else cut
    head = (
        f'[{message.number}] "{opening}…" ({len(text):,} chars; recall the quoted words for the whole text)'
        if opening
        else (f"[{message.number}] ({len(text):,} chars, whole in the session: recall finds it by its words)")
    )
    if form == "gist" or not message.rules:
        return head
    return "\n".join([head + (" Its instructions, verbatim:" if form == "rules" else ""), *(f"  - {rule}" for rule in message.rules)])


@dataclass(frozen=True)
class HeadingCounts:
    """What a carried section's heading says (``/context`` reads it back from the block itself)."""

    total: int = 0
    verbatim: int = 0
    by_rules: int = 0
    rules: int = 0
    summarized: int = 0
    bare: int = 0
    collapsed: int = 0


def heading_counts(line: str) -> HeadingCounts | None:
    """The counts in a section heading ``carry`` wrote, or None for any other line."""
    match = _HEADING.match(line)
    if match is None:
        return None
    total, verbatim, by_rules, summarized, rules, bare, collapsed = (int(g) if g is not None else 0 for g in match.groups())
    if match.group(2) is None:
        return HeadingCounts(total, total)
    return HeadingCounts(total, verbatim, by_rules, rules, summarized, bare, collapsed)
