"""Which files the in-process tools may read: the ``Read(...)`` deny rules, asked for every file touched.

The permission policy judges a call by its path argument, but a search reads
files no argument names: ``grep(pattern="KEY", path=".")`` would print a
denied ``.env`` although ``read_file(.env)`` is refused. So the reading tools
(``read_file``, ``grep``, ``glob``, ``list_dir``) ask ``ToolContext.read_guard``
about every candidate file before they open, list or print it. The decision is
the rules' (``agent.read_denials`` builds the guard from the policy's deny rules
on reading tools, with the policy's own matcher); this module only declares
the seam and what the tools do with it.

A path is denied when ANY of its spellings matches a rule: as given (normalized,
``..`` folded), resolved (every symlink followed), and each of those relative
to the workspace as configured or as resolved. A link ``notes -> .env`` is
``.env``; a walk below ``link/`` (a symlinked folder the model named) is also
judged by the ``link/...`` spelling (``GuardedRoot``). A hard link is a second
name the rules cannot see; the OS sandbox's masks have the same limit.

ripgrep is given the rule patterns as ``--glob '!pattern'`` (``rg_exclude_globs``)
so it never opens a denied file, AND its results are filtered by the guard,
because a glob can be spelled around (a symlinked root, a pattern ripgrep
cannot anchor the way the rule does, which is then left out rather than guessed).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

_GLOB_META = re.compile(r"[*?\[\]{}\\!]")


class ReadGuard(Protocol):
    """The read deny rules as the tools ask them; ``agent.read_denials.DeniedReads`` implements it."""

    @property
    def patterns(self) -> tuple[str, ...]:
        """The denying rules' path patterns (gitignore syntax, relative to the workspace; ``~/`` home, ``//`` root)."""
        ...

    def denied(self, path: Path) -> str | None:
        """The rule (as written, e.g. ``read_file(.env)``) denying reads of ``path`` in any of its spellings, or None."""
        ...


@dataclass(frozen=True)
class OpenReads:
    """The guard of a context with no read deny rules: everything the path checks allow is readable."""

    patterns: tuple[str, ...] = ()

    def denied(self, path: Path) -> str | None:
        return None


NO_DENIED_READS = OpenReads()


class GuardedContext(Protocol):
    """What a guarded read needs of its ``ToolContext`` (which holds the guard): its workspace and its guard."""

    @property
    def workspace(self) -> Path: ...

    @property
    def read_guard(self) -> ReadGuard: ...


def denial_message(shown: str, rule: str) -> str:
    """Why a tool refuses to read ``shown``: the rule, and that no mode lifts it."""
    return f"refused: reading {shown} is denied by the permission rule `{rule}` in the settings (applies in every mode, to every tool)"


def given_path(ctx: GuardedContext, raw: str) -> Path:
    """``raw`` as the model spelled it, absolute and normalized, symlinks NOT followed (``paths.resolve_path`` follows them)."""
    text = raw.strip()
    expanded = os.path.expanduser(text) if text.startswith("~") else text
    return Path(os.path.normpath(ctx.workspace / expanded))


@dataclass(frozen=True)
class GuardedRoot:
    """The guard for a walk below ``real`` (the resolved folder), reached through the spelling ``given``."""

    guard: ReadGuard
    real: Path
    given: Path
    workspace: Path

    @classmethod
    def of(cls, ctx: GuardedContext, raw: str, real: Path) -> GuardedRoot:
        return cls(ctx.read_guard, real, given_path(ctx, raw), ctx.workspace)

    def rg_globs(self, cwd: Path) -> list[str]:
        """ripgrep's exclude ``--glob`` arguments for a search run in ``cwd`` (see ``rg_exclude_globs``)."""
        return rg_exclude_globs(self.guard.patterns, workspace=self.workspace, cwd=cwd)

    def denied(self, path: Path | str) -> str | None:
        """The rule denying ``path`` (a file found below ``real``), by its own spellings or by the one through ``given``."""
        if not self.guard.patterns:
            return None
        path = Path(path)
        rule = self.guard.denied(path)
        if rule is None and self.given != self.real and path.is_relative_to(self.real):
            rule = self.guard.denied(self.given / path.relative_to(self.real))
        return rule


def rg_exclude_globs(patterns: tuple[str, ...], *, workspace: Path, cwd: Path) -> list[str]:
    """``--glob`` arguments excluding what ``patterns`` deny, for ripgrep running in ``cwd``.

    ripgrep anchors a glob with a ``/`` at its working folder, the rules at the
    workspace: an anchored pattern is rebased when ``cwd`` is the workspace or a
    folder its literal prefix names, and left out otherwise (the guard still
    filters ripgrep's results). Home- and root-anchored patterns are left out too.
    """
    real_workspace = Path(os.path.realpath(workspace))
    if not cwd.is_relative_to(real_workspace):
        return []
    below = cwd.relative_to(real_workspace).as_posix()
    out: list[str] = []
    for pattern in patterns:
        if pattern.startswith(("~/", "//", "!")) or "\\" in pattern:
            continue
        body = pattern.rstrip("/")
        if pattern.startswith("**/") or ("/" not in body):
            out += ["--glob", "!" + pattern]
            continue
        anchored = pattern.lstrip("/")
        if below == ".":
            out += ["--glob", "!/" + anchored]
        elif anchored.startswith(below + "/") and not _GLOB_META.search(below):
            out += ["--glob", "!/" + anchored[len(below) + 1 :]]
    return out
