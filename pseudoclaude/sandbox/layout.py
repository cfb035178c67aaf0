"""Which paths a confined command may write, which stay read-only, which it may not read at all.

Computed afresh for every command (a command may create a ``.env`` the next
one must not read) from a ``SandboxConfig`` and the workspace as it is now.

The workspace is untrusted input: a repository can hold symlinks aimed at
anything. So every path that becomes a mount target is resolved first, and a
target that resolves outside the workspace (or, for the user's own writable
roots, anywhere other than where it was configured) is refused: a repository
must not be able to turn ``.git/hooks -> /`` into a mount over ``/`` or make a
writable root point at ``~/.ssh``. Refusals are listed in ``Layout.refused``.

Masks come from the path patterns of ``Read(...)`` deny rules, with the rule
matcher's meaning (gitignore syntax; ``~/`` from the home, ``//`` from the
root, otherwise from the workspace). They are expanded with a walk that does
NOT honour ``.gitignore`` (an ignored ``.env`` is the usual secret) and does
not follow symlinked folders; it stops after ``MAX_WALK_ENTRIES`` entries, and
says so in ``Layout.truncated``. A folder whose every entry a pattern matches
is masked whole (``--tmpfs``), a file is covered by an empty one.
"""

from __future__ import annotations

import functools
import os
import re
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from pseudoclaude.sandbox.seam import SandboxConfig

MAX_WALK_ENTRIES = 50_000
PROTECTED_FOLDERS = (".pseudoclaude", ".claude")
GIT_PROTECTED = ("hooks", "config")
_GLOB_CHARS = frozenset("*?[]!\\")
_PROBE = "pseudoclaude-probe-\u2603"


@dataclass(frozen=True)
class Mask:
    path: Path
    is_dir: bool


@dataclass(frozen=True)
class Layout:
    """What one command's mounts are made of; every path absolute and resolved."""

    workspace: Path
    writable: tuple[Path, ...]
    pinned: tuple[Path, ...]
    read_only: tuple[Path, ...]
    masks: tuple[Mask, ...]
    refused: tuple[str, ...] = ()
    truncated: bool = False


def plan_layout(config: SandboxConfig, workspace: Path, *, temp_dir: Path, home: Path, tree: TreeCache | None = None) -> Layout:
    """The mounts for one command in ``workspace`` under ``config`` (``read-only`` mode: nothing writable)."""
    workspace = Path(os.path.realpath(workspace))
    refused: list[str] = []
    writable: list[Path] = []
    if config.mode == "workspace-write":
        writable = [workspace, Path(os.path.realpath(temp_dir))]
        for root in config.writable_roots:
            kept = _writable_root(root, workspace, refused)
            if kept is not None:
                writable.append(kept)
    pinned, read_only = _protected(config, workspace, refused) if writable else ([], [])
    if writable:
        writable += linked_worktree(workspace)
    read_only = [path for path in read_only if any(_inside(path, root) for root in writable)]
    masks, truncated = expand_masks(config.masked_patterns, workspace, home, refused, tree)
    return Layout(workspace, tuple(dict.fromkeys(writable)), tuple(dict.fromkeys(pinned)), tuple(dict.fromkeys(read_only)), masks, tuple(refused), truncated)


def _writable_root(root: Path, workspace: Path, refused: list[str]) -> Path | None:
    """A configured writable root, resolved; refused when a link moved it (a command may have replaced it)."""
    given = Path(os.path.normpath(root.expanduser()))
    if not given.is_absolute():
        given = Path(os.path.normpath(workspace / given))
    real = Path(os.path.realpath(given))
    if not real.is_dir():
        refused.append(f"writable root {given} is not a folder")
        return None
    if real != given and (_inside(given, workspace) or _inside(real, workspace) != _inside(given, workspace)):
        refused.append(f"writable root {given} is a link to {real}")
        return None
    return real


def linked_worktree(workspace: Path) -> list[Path]:
    """What ``git commit`` writes outside a linked worktree (``git worktree add``): its own folder in the main
    repository's ``.git/worktrees/`` and the shared objects, refs and logs; never hooks or config.

    The ``.git`` file comes with the workspace, so it is believed only when git's own back-link agrees: the folder it
    names says, in its ``gitdir`` file, that this workspace's ``.git`` is its worktree, and it sits in
    ``<common>/worktrees/``. A repository that ships ``gitdir: /etc`` gets nothing.
    """
    dot_git = workspace / ".git"
    try:
        if not dot_git.is_file() or dot_git.is_symlink():
            return []
        named = dot_git.read_text(encoding="utf-8", errors="replace").strip()
        if not named.startswith("gitdir:"):
            return []
        gitdir = Path(os.path.realpath(workspace / named[len("gitdir:") :].strip()))
        backlink = Path(os.path.realpath((gitdir / "gitdir").read_text(encoding="utf-8").strip()))
        common = Path(os.path.realpath(gitdir / (gitdir / "commondir").read_text(encoding="utf-8").strip()))
    except (OSError, ValueError):
        return []
    if backlink != Path(os.path.realpath(dot_git)) or gitdir.parent != common / "worktrees" or not (common / "objects").is_dir():
        return []
    shared = [common / name for name in ("objects", "refs", "logs") if (common / name).is_dir() and not (common / name).is_symlink()]
    return [gitdir, *shared]


def _protected(config: SandboxConfig, workspace: Path, refused: list[str]) -> tuple[list[Path], list[Path]]:
    """The paths pinned (a writable mount onto itself, so it cannot be renamed away and replaced) and the paths kept
    read-only inside the workspace: .git's hooks and config, the agent's folders, the instruction files.

    A ``.git`` whose hooks or config lead out of the workspace is made read-only whole: a link there could be
    removed and replaced by a real folder, which a mount on the link's target would not prevent.
    """
    pinned: list[Path] = []
    found: list[Path] = []
    git = workspace / ".git"
    if git.is_dir() and not git.is_symlink():
        hooks = git / "hooks"
        if not os.path.lexists(hooks):
            try:
                hooks.mkdir()
            except OSError:
                pass
        inner = [git / name for name in GIT_PROTECTED if os.path.lexists(git / name)]
        if all(_inside(Path(os.path.realpath(path)), git) for path in inner):
            pinned.append(git)
            found += [Path(os.path.realpath(path)) for path in inner]
        else:
            found.append(git)
        candidates = []
    else:
        candidates = [git]
    candidates += [workspace / name for name in (*PROTECTED_FOLDERS, *config.protected_names)]
    for candidate in candidates:
        if not os.path.lexists(candidate):
            continue
        real = Path(os.path.realpath(candidate))
        if not _inside(real, workspace):
            refused.append(f"{candidate.relative_to(workspace)} points outside the workspace")
            continue
        found.append(real)
    extra = [Path(os.path.realpath(p)) for p in config.protected_paths if os.path.lexists(p)]
    return pinned, found + extra


def expand_masks(patterns: tuple[str, ...], workspace: Path, home: Path, refused: list[str], tree: TreeCache | None = None) -> tuple[tuple[Mask, ...], bool]:
    """Every existing path the deny patterns match, as masks (see the module docstring)."""
    masks: dict[Path, Mask] = {}
    budget = [MAX_WALK_ENTRIES]
    tree = tree if tree is not None else TreeCache()
    for pattern in patterns:
        base, relative = _anchor(pattern, workspace, home)
        start = base / _literal_prefix(relative)
        matcher = _matcher(relative)
        if matcher is None or not os.path.lexists(start):
            continue
        for path, is_dir in _matches(matcher, base, start, budget, tree):
            real = Path(os.path.realpath(path))
            if base == workspace and not _inside(real, workspace):
                refused.append(f"{path.relative_to(workspace)} (masked) points outside the workspace")
                continue
            if real != path and not os.path.lexists(real):
                continue
            masks.setdefault(real, Mask(real, is_dir or real.is_dir()))
    return _outermost(masks.values()), budget[0] <= 0


class TreeCache:
    """Folder listings kept between commands, reused while a folder's mtime says nothing changed in it.

    A listing taken within ``RACY_NS`` of the folder's last change is not reused (timestamps are coarse: a change
    in the same tick would not move the mtime), as git does with its racily clean index entries.
    """

    RACY_NS = 200_000_000

    def __init__(self) -> None:
        self._listings: dict[str, tuple[int, int, Listing]] = {}

    def listing(self, folder: str) -> Listing | None:
        """The files and real (not linked) folders of ``folder``; None when it cannot be read."""
        try:
            mtime = os.lstat(folder).st_mtime_ns
        except OSError:
            return None
        cached = self._listings.get(folder)
        if cached is not None and cached[0] == mtime and mtime < cached[1] - self.RACY_NS:
            return cached[2]
        scanned = time.time_ns()
        files: list[str] = []
        folders: list[str] = []
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    (folders if _real_folder(entry) else files).append(entry.name)
        except OSError:
            return None
        listing = Listing(frozenset(files), tuple(folders))
        self._listings[folder] = (mtime, scanned, listing)
        return listing


@dataclass(frozen=True)
class Listing:
    files: frozenset[str]
    folders: tuple[str, ...]


@dataclass(frozen=True)
class _Matcher:
    regex: re.Pattern[str]
    name: str | None
    """The file name every match ends in (``**/.env``: ``.env``), when the pattern fixes it."""

    def folder(self, relative: str) -> bool:
        """The folder matches, or everything in it does (``secrets/**``)."""
        return self.regex.match(relative + "/") is not None or self.regex.match(f"{relative}/{_PROBE}") is not None


@functools.lru_cache(maxsize=256)
def _matcher(pattern: str) -> _Matcher | None:
    import pathspec

    regexes = [p.regex for p in pathspec.PathSpec.from_lines("gitignore", [pattern]).patterns if p.include]
    regex = next((r for r in regexes if r is not None), None)
    if regex is None:
        return None
    last = pattern.rstrip("/").rsplit("/", 1)[-1]
    return _Matcher(re.compile(regex.pattern), None if _GLOB_CHARS & set(last) else last)


def _anchor(pattern: str, workspace: Path, home: Path) -> tuple[Path, str]:
    if pattern.startswith("~/"):
        return Path(os.path.realpath(home)), pattern[2:]
    if pattern.startswith("//"):
        return Path("/"), pattern[2:]
    return workspace, pattern


def _literal_prefix(pattern: str) -> str:
    """The leading folders of an anchored pattern that hold no glob character (where its walk can start)."""
    if "/" not in pattern.rstrip("/") or pattern.startswith("**"):
        return ""
    parts = pattern.lstrip("/").split("/")[:-1]
    literal: list[str] = []
    for part in parts:
        if _GLOB_CHARS & set(part):
            break
        literal.append(part)
    return "/".join(literal)


def _matches(matcher: _Matcher, base: Path, start: Path, budget: list[int], tree: TreeCache) -> Iterator[tuple[Path, bool]]:
    """Matching paths under ``start`` (itself included), relative names tested from ``base``; folder links not
    followed, ``.git/objects`` not entered (compressed, never a readable secret)."""
    base_text = str(base).rstrip("/") + "/"
    stack = [str(start)]
    while stack and budget[0] > 0:
        folder = stack.pop()
        relative = folder[len(base_text) :] if folder.startswith(base_text) else ""
        if relative and matcher.folder(relative):
            yield Path(folder), True
            continue
        listing = tree.listing(folder)
        if listing is None:
            continue
        budget[0] -= len(listing.files) + len(listing.folders)
        prefix = relative + "/" if relative else ""
        skip = "objects" if folder.endswith("/.git") else None
        stack.extend(f"{folder}/{name}" for name in listing.folders if name != skip)
        names = (matcher.name,) if matcher.name is not None and matcher.name in listing.files else listing.files if matcher.name is None else ()
        for name in names:
            if matcher.regex.match(prefix + name) is not None:
                path = f"{folder}/{name}"
                yield Path(path), _is_dir_target(path)


def _real_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _is_dir_target(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except OSError:
        return False


SOCKET_ROOTS = (("/run", 4), ("/var/run", 4), ("/tmp", 2))
MAX_SOCKET_ENTRIES = 5_000


def socket_masks(roots: tuple[tuple[str, int], ...] = SOCKET_ROOTS) -> tuple[Mask, ...]:
    """The unix sockets under the usual places (docker, systemd, the system bus, X11, ssh and tmux agents), as masks.

    For the one mode that cannot refuse unix sockets with seccomp (``network: allowed``, whose forwarder needs one):
    a bounded look, ``depth`` folders down from each root, symlinks not followed.
    """
    found: dict[str, Mask] = {}
    budget = MAX_SOCKET_ENTRIES
    for root, depth in roots:
        stack = [(os.path.realpath(root), depth)]
        while stack and budget > 0:
            folder, left = stack.pop()
            try:
                with os.scandir(folder) as listing:
                    entries = list(listing)
            except OSError:
                continue
            budget -= len(entries)
            for entry in entries:
                try:
                    mode = entry.stat(follow_symlinks=False).st_mode
                except OSError:
                    continue
                if stat.S_ISSOCK(mode):
                    found.setdefault(entry.path, Mask(Path(entry.path), False))
                elif stat.S_ISDIR(mode) and left > 1:
                    stack.append((entry.path, left - 1))
    return tuple(found.values())


def _outermost(masks: Any) -> tuple[Mask, ...]:
    """The masks without those inside a masked folder (mounting in a tmpfs would recreate them)."""
    ordered = sorted(masks, key=lambda m: len(m.path.parts))
    kept: list[Mask] = []
    for mask in ordered:
        if not any(k.is_dir and _inside(mask.path, k.path) for k in kept):
            kept.append(mask)
    return tuple(kept)


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or path.is_relative_to(folder)
