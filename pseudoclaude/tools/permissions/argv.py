"""Deny rules compare what a command means, not how it is spelled.

``rm -rf v1``, ``rm -fr v1``, ``rm -r -f v1``, ``rm -Rf v1``, ``rm --recursive
--force v1``, ``rm -rf ./v1/`` and ``rm -rf -- v1`` are one command. For the
commands whose options are known (:data:`SPECS`: ``rm``, ``cp``, ``mv``, ``ln``,
``chmod``, ``chown``, ``chgrp``, ``mkdir``, ``touch`` and the common ``git``
subcommands), short option clusters are split, long options mapped to one
name, ``--`` dropped and operands normalized as paths (relative to the
directory the command runs in, absolute paths inside the workspace made
relative). ``git``'s own options before the subcommand (``-C .``,
``--no-pager``, ``-c k=v``) are set aside, so ``git -C . push --force origin``
is a ``git push``; a ``+refspec`` counts as ``--force``.

A deny rule then hits a command when it names the same command, its options
(less those that do not change what is done: ``-v``, ``-q``, and ``rm``'s
``-f``/``-i``) are a subset of the command's and its operands are among the command's (in
order, as a prefix, for commands where order matters). This only ever makes a
deny rule hit *more*; allow rules keep comparing words exactly, so
normalization never lets a command through that the words would not.
"""

from __future__ import annotations

import posixpath
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from pseudoclaude.tools.permissions.hidden import git_subcommand
from pseudoclaude.tools.permissions.shell_model import SimpleCommand
from pseudoclaude.tools.permissions.targets import Places, expand_word


@dataclass(frozen=True)
class Spec:
    short: Mapping[str, str]
    long: Mapping[str, str] = field(default_factory=dict)
    with_value: frozenset[str] = frozenset()
    ordered: bool = False
    noise: frozenset[str] = frozenset({"verbose", "quiet"})


def _spec(short: str, long: str = "", values: str = "", *, ordered: bool = False, noise: str = "") -> Spec:
    """``short``: ``"f=force r=recursive R=recursive"``; ``long``: ``"no-clobber=n"`` aliases (others map to themselves)."""
    shorts = dict(pair.split("=") for pair in short.split())
    longs = {name: name for name in shorts.values()}
    for pair in long.split():
        key, _, value = pair.partition("=")
        longs[key] = value or key
    return Spec(shorts, longs, frozenset(values.split()), ordered, frozenset({"verbose", "quiet", *noise.split()}))


SPECS: dict[tuple[str, ...], Spec] = {
    ("rm",): _spec(
        "f=force r=recursive R=recursive i=interactive I=interactive-once d=dir v=verbose",
        "no-preserve-root preserve-root one-file-system",
        noise="force interactive interactive-once",
    ),
    ("chmod",): _spec("R=recursive v=verbose c=changes f=silent", "quiet=silent reference", "reference"),
    ("chown",): _spec("R=recursive v=verbose c=changes f=silent h=no-dereference", "quiet=silent reference from dereference", "reference from"),
    ("chgrp",): _spec("R=recursive v=verbose c=changes f=silent h=no-dereference", "quiet=silent reference dereference", "reference"),
    ("cp",): _spec(
        "r=recursive R=recursive f=force a=archive p=preserve i=interactive n=no-clobber v=verbose u=update l=link s=symbolic-link "
        "b=backup t=target-directory T=no-target-directory d=no-dereference x=one-file-system L=dereference P=no-dereference H=H",
        "parents remove-destination",
        "target-directory",
        ordered=True,
    ),
    ("mv",): _spec(
        "f=force i=interactive n=no-clobber u=update v=verbose b=backup t=target-directory T=no-target-directory", "", "target-directory", ordered=True
    ),
    ("ln",): _spec(
        "s=symbolic f=force n=no-dereference v=verbose b=backup i=interactive r=relative t=target-directory T=no-target-directory",
        "",
        "target-directory",
        ordered=True,
    ),
    ("mkdir",): _spec("p=parents v=verbose m=mode", "", "mode"),
    ("touch",): _spec("a=a c=no-create m=m h=no-dereference d=date r=reference t=t", "", "date reference t"),
    ("git", "push"): _spec(
        "f=force u=set-upstream d=delete n=dry-run v=verbose q=quiet o=push-option 4=ipv4 6=ipv6",
        "all mirror tags follow-tags force-with-lease force-if-includes no-verify atomic prune porcelain repo receive-pack exec signed",
        "push-option repo receive-pack exec",
        ordered=True,
    ),
    ("git", "reset"): _spec("q=quiet p=patch", "hard soft mixed keep merge", ordered=True),
    ("git", "clean"): _spec("f=force d=d x=x X=X n=dry-run i=interactive q=quiet e=exclude", "", "exclude"),
    ("git", "branch"): _spec("d=delete D=delete+force f=force m=move M=move+force c=copy C=copy+force r=remotes a=all l=list v=verbose", "", ordered=True),
    ("git", "checkout"): _spec("f=force q=quiet p=patch b=b B=B", "", "b B", ordered=True),
    ("git", "commit"): _spec("a=all m=message F=file n=no-verify v=verbose q=quiet s=signoff", "amend no-edit", "message file", ordered=True),
    ("git", "rm"): _spec("r=recursive f=force n=dry-run q=quiet", "cached"),
    ("git", "rebase"): _spec("i=interactive f=force-rebase q=quiet", "onto root abort continue", "onto", ordered=True),
    ("git", "stash"): _spec("q=quiet", "", ordered=True),
}


@dataclass(frozen=True)
class Argv:
    """A command as a deny rule compares it; each operand is the set of values it may take."""

    head: tuple[str, ...]
    flags: frozenset[str]
    values: frozenset[tuple[str, str]]
    operands: tuple[frozenset[str], ...]
    spec: Spec | None


def normalize(words: tuple[str, ...], *, dirs: tuple[str | None, ...] = (".",), places: Places | None = None) -> Argv:
    """``words`` (a simple command) as an :class:`Argv`."""
    name = posixpath.basename(words[0]) if words else ""
    args = words[1:]
    head: tuple[str, ...] = (name,)
    if name == "git":
        index, _ = git_subcommand(args)
        if index < len(args):
            head, args = ("git", args[index]), args[index + 1 :]
    spec = SPECS.get(head)
    flags: set[str] = set()
    values: set[tuple[str, str]] = set()
    operands: list[str] = []
    index, ended = 0, False
    while index < len(args):
        arg = args[index]
        index += 1
        if ended or arg == "-" or not arg.startswith("-") or spec is None:
            if spec is None and arg == "--" and not ended:
                ended = True
                continue
            if head == ("git", "push") and arg.startswith("+") and len(arg) > 1:
                flags.add("force")
                arg = arg[1:]
            operands.append(arg)
            continue
        if arg == "--":
            ended = True
        elif arg.startswith("--"):
            key, eq, value = arg[2:].partition("=")
            canonical = spec.long.get(key, key)
            flags.update(canonical.split("+"))
            if canonical in spec.with_value:
                value = value if eq else (args[index] if index < len(args) else "")
                index += 0 if eq else 1
                values.add((canonical, value))
        elif all(letter in spec.short for letter in arg[1:]):
            for position, letter in enumerate(arg[1:], start=1):
                canonical = spec.short[letter]
                flags.update(canonical.split("+"))
                if canonical in spec.with_value:
                    value = arg[position + 1 :] or (args[index] if index < len(args) else "")
                    index += 0 if arg[position + 1 :] else 1
                    values.add((canonical, value))
                    break
        else:
            operands.append(arg)  # chmod -w, an option we do not know: kept as written
    expanded = tuple(_operand_values(op, dirs, places) for op in operands)
    return Argv(head, frozenset(flags), frozenset(values), expanded, spec)


def deny_hits(pattern: str, cmd: SimpleCommand, *, workspace: Path, home: Path, variables: Mapping[str, tuple[str, ...]]) -> bool:
    """Whether the deny rule pattern ``pattern`` (``rm -rf v1``, ``git push:*``) hits ``cmd`` by meaning."""
    prefix = pattern.endswith(":*")
    try:
        rule_words = tuple(shlex.split(pattern[:-2] if prefix else pattern))
    except ValueError:
        return False
    if not rule_words or not cmd.words:
        return False
    places = Places.of(workspace=workspace, home=home, cwd=workspace, variables=variables)
    rule = normalize(rule_words, places=places)
    form = normalize(cmd.words, dirs=cmd.dirs, places=places)
    if form.head[: len(rule.head)] != rule.head:
        return False
    if len(rule.head) < len(form.head):
        bare = not rule.flags and not rule.operands
        return bare and prefix
    noise = rule.spec.noise if rule.spec is not None else frozenset()
    if not (rule.flags - noise <= form.flags and rule.values <= form.values):
        return False
    ordered = rule.spec is None or rule.spec.ordered
    if not ordered:
        everything = frozenset().union(*form.operands) if form.operands else frozenset()
        return all(op & everything for op in rule.operands)
    if len(rule.operands) > len(form.operands) or (not prefix and len(rule.operands) != len(form.operands)):
        return False
    return all(r & f for r, f in zip(rule.operands, form.operands))


def _operand_values(word: str, dirs: tuple[str | None, ...], places: Places | None) -> frozenset[str]:
    raw = expand_word(word, places) if places is not None and any(c in word for c in "${~") else (word,)
    out: set[str] = set()
    for value in raw:
        out.add(_path(value, None, places))
        for base in dirs:
            out.add(_path(value, base, places))
    return frozenset(out)


def _path(value: str, base: str | None, places: Places | None) -> str:
    if not value or "://" in value:
        return value
    joined = value if base is None or value.startswith("/") else posixpath.join(base, value)
    normal = posixpath.normpath(joined)
    if places is not None and normal.startswith("/"):
        workspace = places.workspace.rstrip("/") + "/"
        if normal.startswith(workspace):
            return normal[len(workspace) :]
        if normal == places.workspace:
            return "."
    return normal
