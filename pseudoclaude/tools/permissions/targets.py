"""Where a path argument of a shell command may point, and what it would destroy.

A word is expanded to every value it may take: ``~`` and ``$HOME`` to the home
directory, ``$PWD`` to the working directory, variables assigned in the same
command line to their values, and unknown variables or substitutions to the
empty string (the classic ``rm -rf "$DIR/"`` with an unset ``DIR`` deletes
``/``). Relative paths are joined with each directory the command may run in.

A path is *protected* when recursively deleting it (or everything a glob in it
matches) would remove the filesystem root, a system directory, the home
directory, the workspace root, or a directory containing one of those.
"""

from __future__ import annotations

import glob
import itertools
import posixpath
import re
import shlex
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Iterator, Mapping

SYSTEM_DIRS = frozenset(
    {
        "/bin",
        "/boot",
        "/dev",
        "/etc",
        "/home",
        "/lib",
        "/lib32",
        "/lib64",
        "/opt",
        "/proc",
        "/root",
        "/sbin",
        "/srv",
        "/sys",
        "/usr",
        "/var",
        "/Applications",
        "/Library",
        "/System",
        "/Users",
    }
)
MAX_CANDIDATES = 32
MAX_GLOB_MATCHES = 512
_GLOB = re.compile(r"[*?\[]")
_BROAD = re.compile(r"[*?.]*\*[*?.]*")


@dataclass(frozen=True)
class Places:
    workspace: str
    home: str
    cwd: str
    variables: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def of(cls, *, workspace: Path, home: Path, cwd: Path, variables: Mapping[str, tuple[str, ...]]) -> "Places":
        return cls(_norm(str(workspace)), _norm(str(home)), _norm(str(cwd)), variables)

    def protected(self) -> dict[str, str]:
        named = {"/": "the filesystem root", **{d: "a system directory" for d in SYSTEM_DIRS}}
        named[self.home] = "your home directory"
        named[self.workspace] = "the workspace root"
        return named


def _norm(path: str) -> str:
    return re.sub(r"^/+", "/", posixpath.normpath(path))


def _components(path: str) -> list[str]:
    return [c for c in path.split("/") if c]


def expand_word(word: str, places: Places, depth: int = 0) -> tuple[str, ...]:
    """Every value ``word`` may expand to (capped at :data:`MAX_CANDIDATES`)."""
    values = [value for braced in _braces(word) for value in _expand_one(braced, places, depth)]
    return tuple(dict.fromkeys(values[:MAX_CANDIDATES])) or ("",)


def _braces(word: str) -> list[str]:
    """Brace expansion of ``{a,b}`` (innermost first, capped)."""
    match = re.search(r"\{([^{}]*,[^{}]*)\}", word)
    if match is None:
        return [word]
    out: list[str] = []
    for choice in match.group(1).split(","):
        out.extend(_braces(word[: match.start()] + choice + word[match.end() :]))
        if len(out) >= MAX_CANDIDATES:
            break
    return out[:MAX_CANDIDATES]


def _expand_one(word: str, places: Places, depth: int) -> tuple[str, ...]:
    segments: list[tuple[str, ...]] = []
    literal: list[str] = []
    index = 0
    if word == "~" or word.startswith("~/"):
        segments.append((places.home,))
        index = 1

    def flush() -> None:
        if literal:
            segments.append(("".join(literal),))
            literal.clear()

    while index < len(word):
        char = word[index]
        if char == "$" and word.startswith("$(", index):
            end, depth_count = index + 1, 0
            while end < len(word):
                depth_count += {"(": 1, ")": -1}.get(word[end], 0)
                if depth_count == 0:
                    break
                end += 1
            flush()
            segments.append(_substitution(word[index + 2 : end]))
            index = end + 1
        elif char == "$" and word.startswith("${", index):
            end = word.find("}", index)
            end = len(word) if end < 0 else end
            flush()
            segments.append(_parameter(word[index + 2 : end], places, depth))
            index = end + 1
        elif char == "$" and index + 1 < len(word) and (word[index + 1].isalnum() or word[index + 1] in "_@*#?!-"):
            match = re.match(r"[A-Za-z_]\w*|.", word[index + 1 :])
            assert match is not None
            flush()
            segments.append(_parameter(match.group(0), places, depth))
            index += 1 + len(match.group(0))
        elif char == "`":
            end = word.find("`", index + 1)
            flush()
            segments.append(("",))
            index = len(word) if end < 0 else end + 1
        else:
            literal.append(char)
            index += 1
    flush()
    values = ("".join(parts) for parts in itertools.product(*segments))
    return tuple(dict.fromkeys(itertools.islice(values, MAX_CANDIDATES))) or ("",)


def _substitution(body: str) -> tuple[str, ...]:
    """What ``$(body)`` may print: known for ``echo``/``printf``/``pwd``, else taken as empty."""
    try:
        words = shlex.split(body)
    except ValueError:
        return ("",)
    if words[:1] == ["pwd"]:
        return (".",)
    if words[:1] in (["echo"], ["printf"]) and len(words) > 1:
        return ("", " ".join(w for w in words[1:] if not re.fullmatch(r"-[neE]+", w)))
    return ("",)


def _parameter(expression: str, places: Places, depth: int) -> tuple[str, ...]:
    match = re.match(r"([A-Za-z_]\w*)(.*)", expression, re.DOTALL)
    if match is None:
        return ("",)
    name, rest = match.groups()
    values = _values_of(name, places, depth)
    operator = re.match(r":?[-=?+]", rest)
    if operator:
        alternative = expand_word(rest[operator.end() :], places, depth + 1) if depth < 3 else ("",)
        if operator.group(0).endswith("+"):
            return tuple(dict.fromkeys(("", *alternative)))
        return tuple(dict.fromkeys((*values, *alternative)))
    return values


def _values_of(name: str, places: Places, depth: int) -> tuple[str, ...]:
    if name == "HOME":
        return (places.home,)
    if name == "PWD":
        return (".",)
    assigned = places.variables.get(name)
    if not assigned or depth >= 3:
        return ("",)
    out: list[str] = []
    for value in assigned:
        out.extend(expand_word(value, places, depth + 1))
    return tuple(dict.fromkeys(out))


def resolve_dirs(dirs: tuple[str | None, ...], places: Places) -> tuple[str | None, ...]:
    """The absolute directories a command may run in; ``None`` for unknown."""
    out: list[str | None] = []
    for raw in dirs:
        if raw is None:
            out.append(None)
            continue
        for value in expand_word(raw, places):
            out.append(_norm(value if value.startswith("/") else posixpath.join(places.cwd, value)))
    return tuple(dict.fromkeys(out))


def destruction(word: str, dirs: tuple[str | None, ...], places: Places) -> str | None:
    """What recursively deleting ``word`` would destroy, if protected; else None."""
    protected = places.protected()
    for candidate in candidates(word, dirs, places):
        if candidate.startswith("?"):
            return f"{candidate[1:]!r} relative to a directory that cannot be known after a `cd`"
        hit = _match_protected(candidate, protected)
        if hit:
            return hit
    return None


def candidates(word: str, dirs: tuple[str | None, ...], places: Places) -> Iterator[str]:
    absolute_dirs = resolve_dirs(dirs, places)
    for value in expand_word(word, places):
        if not value or (value.startswith("~") and not value.startswith("~/")):
            continue
        if value.startswith("/"):
            yield _norm(value)
            continue
        for base in absolute_dirs:
            if base is not None:
                yield _norm(posixpath.join(base, value))
            elif _is_broad_relative(value):
                yield "?" + value


def glob_matches(path: str) -> list[str]:
    """``path`` and, when it is a glob, what bash would expand it to now (``*.py`` may match a link
    the repository ships, ``.gi?/hooks/`` is ``.git/hooks/``); too many matches give ``/``, outside everything."""
    if not _GLOB.search(path):
        return [path]
    matches = list(itertools.islice(glob.iglob(path), MAX_GLOB_MATCHES + 1))
    return [path, *matches] if len(matches) <= MAX_GLOB_MATCHES else ["/"]


def _is_broad_relative(value: str) -> bool:
    normal = posixpath.normpath(value)
    first = _components(normal)[0] if _components(normal) else "."
    return normal == "." or first == ".." or bool(_BROAD.fullmatch(first))


def _match_protected(path: str, protected: Mapping[str, str]) -> str | None:
    pattern = _components(path)
    if pattern and _BROAD.fullmatch(pattern[-1]):
        parent = "/" + "/".join(pattern[:-1])
        if not _GLOB.search(parent) and parent in protected:
            return f"everything inside {parent} ({protected[parent]})"
    for base, label in protected.items():
        parts = _components(base)
        if len(pattern) <= len(parts) and all(fnmatchcase(p, c) for c, p in zip(pattern, parts)):
            if len(pattern) == len(parts):
                what = f"{base} ({label})"
            else:
                what = f"{'/' + '/'.join(parts[: len(pattern)])}, which contains {base} ({label})"
            return f"{path}, which matches {what}" if _GLOB.search(path) else what
    return None
