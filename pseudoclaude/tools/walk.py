"""A ``.gitignore``-aware file walk, in ripgrep's order, that never leaves its root.

Order: depth first, the entries of each folder sorted by name with files and
folders interleaved; this is ``rg --sort path``'s order, so the Python grep
fallback lists results exactly as ripgrep does.

What is skipped: ``.git`` folders; whatever the ``.gitignore`` files say,
those of the walked folders and of their parents up to ``boundary`` (a deeper
file overrides a shallower one, negations included; an ignored folder is not
entered); and every symlink, to a file or to a folder. Skipping symlinks is
also what keeps a walk inside the sandbox: a link pointing out of the
workspace is never followed (ripgrep does the same without ``-L``).

``ignore_base`` names the folder (the workspace) whose ``.pseudoclaudeignore``
applies: gitignore syntax, paths relative to that folder, for what the agent
should not search though git tracks it (vendored code, fixtures, generated
files). Like a file given to ``rg --ignore-file`` it has the lowest
precedence: any ``.gitignore`` rule that speaks about a path wins over it.

``override`` mimics ripgrep's ``--glob``: it sees a path relative to the
walk's root and says include (True, even if ignored), exclude (False), or no
opinion (None).

An ignore file is untrusted content like any other: it is read only when it
is a regular file (opened non-blocking, then ``fstat``: a FIFO committed as
``.gitignore`` would otherwise block every search), and only its first
``MAX_IGNORE_FILE_BYTES``. ``notice`` hears of each one passed over or cut,
so a tool can say why its rules did not apply.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import pathspec

from pseudoclaude.tools.files import file_kind, open_if_regular

Override = Callable[[str, bool], "bool | None"]
Notice = Callable[[Path, str], None]
"""Told of an ignore file that was not read (``path``, why), or read in part."""
IGNORE_FILENAME = ".pseudoclaudeignore"


@dataclass(frozen=True)
class _Rules:
    base: Path
    spec: pathspec.PathSpec[Any]

    @property
    def prefix(self) -> str:
        """``base`` as a string prefix of the paths below it (string slicing: ``Path.relative_to`` was half the walk's time)."""
        text = str(self.base)
        return text if text.endswith(os.sep) else text + os.sep


def walk_files(
    root: Path, *, boundary: Path, override: Override | None = None, ignore_base: Path | None = None, notice: Notice | None = None
) -> Iterator[tuple[str, str]]:
    """Yield ``(path, relative_posix_path)`` for every regular, non-ignored file under ``root``.

    The path is a string: building a ``Path`` per file was a third of a
    25,000-file walk, and most callers keep only a few of them.
    """
    rules = _parent_rules(root, boundary, notice)
    own = ignore_file(root, ignore_base)
    if own is not None:
        extra = _load(own.parent, own.name, notice)
        rules = rules if extra is None else [extra, *rules]
    yield from _walk(root, "", [(rule.prefix, rule.spec) for rule in rules], override, notice)


_Prefixed = list[tuple[str, "pathspec.PathSpec[Any]"]]


def _walk(folder: Path, rel_folder: str, rules: _Prefixed, override: Override | None, notice: Notice | None) -> Iterator[tuple[str, str]]:
    own = _load(folder, notice=notice)
    if own is not None:
        rules = [*rules, (own.prefix, own.spec)]
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_symlink():
                continue
            is_dir = entry.is_dir(follow_symlinks=False)
            if not is_dir and not entry.is_file(follow_symlinks=False):
                continue
        except OSError:
            continue
        if is_dir and entry.name == ".git":
            continue
        rel = f"{rel_folder}/{entry.name}" if rel_folder else entry.name
        verdict = override(rel, is_dir) if override is not None else None
        if verdict is False:
            continue
        if verdict is None and _ignored(entry.path, is_dir, rules):
            continue
        if is_dir:
            yield from _walk(Path(entry.path), rel, rules, override, notice)
        else:
            yield entry.path, rel


def _ignored(path: str, is_dir: bool, rules: _Prefixed) -> bool:
    for prefix, spec in reversed(rules):
        rel = path[len(prefix) :]
        if os.sep != "/":
            rel = rel.replace(os.sep, "/")
        verdict = gitignore_verdict(spec, rel + "/" if is_dir else rel)
        if verdict is not None:
            return verdict
    return False


def gitignore_verdict(spec: pathspec.PathSpec[Any], rel: str) -> bool | None:
    """True (ignored), False (re-included by ``!``) or None for ``rel`` (folders end with ``/``).

    Like git and ripgrep, a pattern matches the path itself, not the files
    below a matching folder (the walk never enters an ignored folder anyway);
    pathspec's own ``check_file`` also matches descendants, which would hide
    the contents of a folder the caller explicitly asked to search.
    """
    verdict: bool | None = None
    for pattern in spec.patterns:
        regex = getattr(pattern, "regex", None)
        if pattern.include is None or regex is None:
            continue
        match = regex.match(rel)
        if match is None:
            continue
        if "ps_d" in regex.groupindex and match.group("ps_d") is not None and match.end() < len(rel):
            continue
        verdict = bool(pattern.include)
    return verdict


def _parent_rules(root: Path, boundary: Path, notice: Notice | None = None) -> list[_Rules]:
    if root == boundary or not root.is_relative_to(boundary):
        return []
    folders = []
    current = root.parent
    while True:
        folders.append(current)
        if current == boundary or current == current.parent:
            break
        current = current.parent
    return [rule for folder in reversed(folders) if (rule := _load(folder, notice=notice)) is not None]


def ignore_file(root: Path, ignore_base: Path | None) -> Path | None:
    """``ignore_base``'s ``.pseudoclaudeignore`` when it applies to a walk of ``root`` (a regular file, under it)."""
    if ignore_base is None or not root.is_relative_to(ignore_base):
        return None
    path = ignore_base / IGNORE_FILENAME
    return path if path.is_file() and not path.is_symlink() else None


MAX_IGNORE_FILE_BYTES = 1 << 20


def _load(folder: Path, name: str = ".gitignore", notice: Notice | None = None) -> _Rules | None:
    """The rules of one ignore file: a regular file only (a FIFO committed as ``.gitignore`` would block the walk), its first MiB."""
    path = folder / name
    try:
        handle = open_if_regular(path)
        if handle is None:
            if notice is not None:
                notice(path, f"{file_kind(os.stat(path).st_mode) or 'not a regular file'}, not read: its rules do not apply")
            return None
        with handle:
            data = handle.read(MAX_IGNORE_FILE_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_IGNORE_FILE_BYTES:
        data = data[:MAX_IGNORE_FILE_BYTES].rsplit(b"\n", 1)[0]
        if notice is not None:
            notice(path, f"over {MAX_IGNORE_FILE_BYTES // (1024 * 1024)} MiB: only the rules in its first MiB apply")
    return _Rules(folder, pathspec.GitIgnoreSpec.from_lines(data.decode("utf-8", errors="replace").splitlines()))


def glob_to_regex(pattern: str) -> str:
    """A regex for a shell-style glob over ``/``-separated relative paths.

    ``*`` and ``?`` stay within one path segment, ``**`` spans segments (``**/``
    also matches no folder at all), ``[...]`` is a character class and ``{a,b}``
    an alternation.
    """
    out: list[str] = []
    i, n, depth = 0, len(pattern), 0
    while i < n:
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "^") else i + 1)
            if end == -1:
                out.append(r"\[")
            else:
                body = pattern[i + 1 : end]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end
        elif c == "{":
            out.append("(?:")
            depth += 1
        elif c == "}" and depth:
            out.append(")")
            depth -= 1
        elif c == "," and depth:
            out.append("|")
        else:
            out.append(_escape(c))
        i += 1
    out.extend(")" * depth)
    return "".join(out)


def _escape(c: str) -> str:
    return "\\" + c if c in ".^$+(){}|\\[]" else c
