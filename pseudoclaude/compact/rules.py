"""The instruction-bearing parts of a long user message: what the pinned block keeps when the message cannot fit whole.

Users paste tickets: background, then constraints ("do not modify anything
under tests/", "keep every public function name"), then acceptance notes. A
message too long for the pinned block's budget is not cut in its middle
(that is where the constraints sit); it stays whole in the session file
(``recall`` finds it) and the block carries these parts of it, in order.

How ``extract_rules`` finds them, line by line:

1. Fenced code (```` ``` ````) and what reads as machine output is skipped:
   a Python traceback (its indented frames and the exception line after them),
   stack-trace frames (``File "...", line N``, ``at x.y(...)``, ``#3 0x...``),
   ``Traceback``, pytest's ``E   `` lines and log lines that open with a
   timestamp or a level (``ERROR``, ``WARN``...). A constraint is written by a
   person, not printed by a program.
2. A list item (``-``, ``*``, ``•``, ``1.``, ``2)``, ``[ ]``, ``AC1:``) is one
   unit; any other line is split into sentences (at ``.``, ``!`` or ``?``
   followed by a space and a capital or a quote).
3. A unit is kept when it carries a constraint word (``must``, ``never``,
   ``always``, ``only``, ``do not``/``don't``, ``should``, ``shall``,
   ``need to``, ``required``, ``make sure``, ``ensure``, ``keep``, ``avoid``,
   ``without``, ``not allowed``, ``forbidden``, ``prefer``, ``at most``, ``at least``),
   or opens with an imperative verb (``Add``, ``Fix``, ``Rename``,
   ``Leave``...), or is a list item under a heading that names rules
   (``Constraints``, ``Requirements``, ``Acceptance criteria``, ``Rules``,
   ``Definition of done``, ``Notes``, ``Out of scope``): every numbered
   acceptance criterion is kept whatever its wording (bullets and check
   boxes are dropped from the kept text, numbers are not; the heading is
   kept before the first of its items, since "the CLI flags" means nothing
   without "Out of scope:").
4. Each unit is kept whole up to ``RULE_MAX_CHARS`` (a longer one keeps its
   head to a word boundary and says so); repeats are dropped.

Deterministic and pure: the same text always gives the same rules, so a
resumed session rebuilds the same pinned block.
"""

from __future__ import annotations

import re

RULE_MAX_CHARS = 400

_CONSTRAINT = re.compile(
    r"\b(must|mustn't|never|always|only|do not|don't|dont|does not|doesn't|should|shouldn't|shall|need to|needs to|"
    r"required?|requires|make sure|ensure|keep|avoid|without|not allowed|forbidden|prefer|at most|at least|no more than|"
    r"do NOT|under no circumstances)\b",
    re.IGNORECASE,
)
_IMPERATIVE = frozenset(
    "add fix make use keep remove rename return run write update change leave preserve avoid ensure implement handle move "
    "replace raise log put test check support stop prefer limit cap do don't never always only delete drop skip create "
    "document bump pin split merge convert migrate validate reject accept print emit store cache retry wrap mark".split()
)
_RULE_HEADING = re.compile(
    r"^\W*(constraints?|requirements?|acceptance( criteria| notes| tests)?|rules?|definition of done|"
    r"notes?|must[- ]haves?|do(?:n't| not)s?|guidelines?|restrictions?|out of scope|non[- ]goals?|scope|limits?)\b",
    re.IGNORECASE,
)
_ITEM = re.compile(r"^\s*(?:[-*•+]|\d+[.)]|\[[ xX]\]|[A-Z]{1,4}-?\d+[:.)])\s+")
_BULLET = re.compile(r"^(?:[-*•+]\s+)?(?:\[[ xX]\]\s+)?")
_FENCE = re.compile(r"^\s*(```|~~~)")
_MACHINE = re.compile(
    r"^\s*(File \"[^\"]+\", line \d+|at [\w$.<>]+\(|#\d+\s+0x[0-9a-f]+|Traceback \(most recent call last\)|E {2,}|"
    r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d|\[?(ERROR|WARN(ING)?|INFO|DEBUG|TRACE|FATAL)\]?[: ]|\$ |>>> |\w+(\.\w+)+Error: |\w*Error: )"
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'`(\[])")


def extract_rules(text: str) -> tuple[str, ...]:
    """The instruction-bearing sentences and items of ``text``, in order (see the module docstring)."""
    rules: list[str] = []
    seen: set[str] = set()
    in_fence = in_trace = under_heading = False
    heading = ""
    for raw in text.splitlines():
        if _FENCE.match(raw):
            in_fence = not in_fence
            continue
        line = raw.strip()
        if in_trace:
            in_trace = raw[:1].isspace()  # a frame or its source line; the first line back at the margin is the exception
            continue
        if raw.lstrip().startswith("Traceback (most recent call last)"):
            in_trace = True
            continue
        if in_fence or not line or _MACHINE.match(raw):
            continue
        item = _ITEM.match(raw) is not None
        if not item and _is_heading(line):
            under_heading = _RULE_HEADING.match(line) is not None
            heading = line.lstrip("#").strip() if under_heading else ""
            if _CONSTRAINT.search(line) is None or under_heading:
                continue
        units = [_BULLET.sub("", line)] if item else _SENTENCE_END.split(line)
        for unit in units:
            unit = unit.strip()
            if unit and (item and under_heading or _is_rule(unit)) and unit.lower() not in seen:
                if item and under_heading and heading:
                    rules.append(heading)  # "Out of scope:" gives its items their sense
                    heading = ""
                seen.add(unit.lower())
                rules.append(_capped(unit))
    return tuple(rules)


def _is_heading(line: str) -> bool:
    """A short line that introduces what follows: ``## Constraints``, ``Acceptance criteria:``, ``NOTES``."""
    bare = line.lstrip("#").strip()
    return line.startswith("#") or (len(bare) <= 60 and (bare.endswith(":") or (bare.isupper() and len(bare) > 2)))


def _is_rule(unit: str) -> bool:
    if _CONSTRAINT.search(unit):
        return True
    words = _ITEM.sub("", unit).split()
    return bool(words) and words[0].strip("*_`").lower().rstrip(":,") in _IMPERATIVE and len(words) >= 3


def _capped(unit: str) -> str:
    if len(unit) <= RULE_MAX_CHARS:
        return unit
    head = unit[:RULE_MAX_CHARS].rsplit(" ", 1)[0]
    return f"{head} [... rest of the sentence in the full message]"
