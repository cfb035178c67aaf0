"""The data a parsed shell command line is made of, shared by both parsers.

Working directories are tracked as a set of *possible* directories: a
``cd X`` narrows the set only for the commands joined to it by ``&&``; after
``;``, ``||`` or ``&`` the next command may run where the ``cd`` failed, so
the old directories join the set again (see :func:`union_dirs`).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Mapping

MAX_DIRS = 8
ECHOES = frozenset({"echo", "printf"})


class ShellParseError(Exception):
    """Neither parser could make sense of the command line."""


@dataclass(frozen=True)
class Redirect:
    op: str
    target: str
    heredoc: str | None = None


@dataclass(frozen=True)
class SimpleCommand:
    """One command as the shell would run it, after quote removal.

    ``dirs`` are the directories it may run in, as raw words relative to the
    starting directory (``"."``); ``None`` stands for a directory that cannot be
    known. ``stdin_words`` are the arguments of an ``echo``/``printf`` piped
    straight into it (what ``xargs`` or ``sh`` would read).
    """

    words: tuple[str, ...]
    assignments: tuple[str, ...] = ()
    redirects: tuple[Redirect, ...] = ()
    dirs: tuple[str | None, ...] = (".",)
    stdin_words: tuple[str, ...] | None = None

    @property
    def name(self) -> str:
        if not self.words:
            return ""
        return posixpath.basename(self.words[0].replace("\\", "")) or self.words[0]

    @property
    def args(self) -> tuple[str, ...]:
        return self.words[1:]

    @property
    def text(self) -> str:
        return " ".join((*self.assignments, *self.words))


@dataclass(frozen=True)
class FunctionDef:
    """A shell function; ``forks_itself`` means it calls itself in a pipeline or in the background."""

    name: str
    forks_itself: bool


@dataclass(frozen=True)
class ShellScript:
    commands: tuple[SimpleCommand, ...]
    functions: tuple[FunctionDef, ...] = ()
    variables: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    parser: str = "bashlex"


def union_dirs(a: tuple[str | None, ...], b: tuple[str | None, ...]) -> tuple[str | None, ...]:
    merged = tuple(dict.fromkeys((*a, *b)))
    if len(merged) > MAX_DIRS:
        return (*merged[: MAX_DIRS - 1], None)
    return merged


def change_dir(words: tuple[str, ...], dirs: tuple[str | None, ...]) -> tuple[str | None, ...]:
    """The directories after ``cd``/``pushd``/``popd`` with ``words``."""
    name, args = words[0], [w for w in words[1:] if w not in ("-L", "-P", "-e", "-@", "--")]
    target: str | None
    if name == "popd" or (name == "pushd" and not args):
        target = None
    elif not args:
        target = "~"
    else:
        target = None if args[0] == "-" or re.fullmatch(r"[+-]\d+", args[0]) else args[0]
    out: list[str | None] = []
    for d in dirs:
        if d is None or target is None:
            out.append(None)
        elif target.startswith(("/", "~", "$")):
            out.append(target)
        else:
            out.append(posixpath.join(d, target))
    return union_dirs((), tuple(out))


def is_cd(words: tuple[str, ...]) -> bool:
    return bool(words) and words[0] in ("cd", "pushd", "popd")


def freeze(variables: Mapping[str, list[str]]) -> dict[str, tuple[str, ...]]:
    return {name: tuple(dict.fromkeys(values)) for name, values in variables.items()}


def record_assignment(variables: dict[str, list[str]], word: str) -> None:
    match = re.match(r"([A-Za-z_]\w*)\+?=(.*)", word, re.DOTALL)
    if match:
        variables.setdefault(match.group(1), []).append(match.group(2))
