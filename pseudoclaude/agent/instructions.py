"""Instruction files: the user's and the project's explicit rules, loaded into the stable system prompt.

What is loaded, in this order (later files are more specific):

1. user level: ``<home>/PSEUDOCLAUDE.md``, ``AGENTS.md``, ``CLAUDE.md`` (home = the PseudoClaude home);
2. every folder from the repository root (nearest ``.git`` above the workspace, else
   the workspace itself) down to the workspace: its ``PSEUDOCLAUDE.md``,
   ``AGENTS.md``, ``CLAUDE.md``, then its untracked ``PSEUDOCLAUDE.local.md``.

A line that is only ``@relative/path`` (outside fenced code blocks) is replaced by
that file's text, resolved from the importing file's folder (``@~/x`` from the
user's home). Imports nest at most ``MAX_IMPORT_DEPTH`` deep, must stay inside the
repository root (the workspace, when that root holds the user's home) or the
PseudoClaude home, and a file already on the import chain
(a cycle) or already included is not included again; every refusal, missing file
or unreadable file is reported in ``Instructions.problems`` and leaves the line
as it was. The repository is untrusted: a project file that is a link out of it
(``CLAUDE.md -> ~/.ssh/id_rsa``) is not loaded, since its text would go to the
model's endpoint, and only the first ``MAX_FILE_CHARS`` characters of a file are read.

Invariant: the rendered text depends only on the files' bytes and paths, in a
fixed order, so it is byte-identical for a whole session and across a resume
while the files do not change (the prompt cache holds). It is read once, at
session start, and lives in the system prompt, never in the messages, so no
compaction can summarize it away. A file changed during the session does not
change the system prompt (that would void the cached prefix of every later
request); ``changed_instructions`` re-reads them at each compaction, and the
pinned block that follows the summary carries the new text, only when it
differs from what the session loaded.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

INSTRUCTION_FILENAMES = ("PSEUDOCLAUDE.md", "AGENTS.md", "CLAUDE.md")
LOCAL_FILENAME = "PSEUDOCLAUDE.local.md"
MAX_IMPORT_DEPTH = 5
MAX_FILE_CHARS = 40_000

Scope = Literal["user", "project", "local", "import"]

_IMPORT_LINE = re.compile(r"^\s*@(\S+)\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")

INSTRUCTIONS_HEADER = (
    "# Instructions from the user and the project\n\n"
    "The instruction files below were loaded at the start of this session. Follow them: "
    "they take precedence over the default behaviour described above."
)

INIT_PROMPT = """Study this repository and write a PSEUDOCLAUDE.md file at its root: the instructions a coding agent should read before working here.

First investigate with the read-only tools: the README, the build and package files (pyproject.toml, package.json, Makefile, Cargo.toml, go.mod...), the CI configuration, the layout of the source and test folders, and any existing AGENTS.md, CLAUDE.md, .cursorrules or contributor guide (fold their useful rules in rather than repeating them).

Then write PSEUDOCLAUDE.md, concise (well under 200 lines), with:
1. What the project is, in two or three sentences.
2. The exact commands to install, build, lint, run the tests and run a single test.
3. The architecture: the main packages or folders and what each owns; where the entry points are.
4. Conventions a newcomer would get wrong: code style, naming, error handling, test style, anything the tooling enforces.
5. Pitfalls and rules: generated files not to edit, slow or flaky tests, required environment variables.

Only write what you verified in the repository; do not invent commands. If PSEUDOCLAUDE.md already exists, improve it instead of replacing what is still true. Finish by saying what you wrote."""


@dataclass(frozen=True)
class InstructionFile:
    """One loaded file: ``size`` in bytes; ``imported_by`` is the file whose ``@`` line pulled it in."""

    path: Path
    size: int
    scope: Scope
    imported_by: Path | None = None


@dataclass(frozen=True)
class Instructions:
    """The rendered text for the system prompt, the files it came from, and what went wrong."""

    text: str = ""
    files: tuple[InstructionFile, ...] = ()
    problems: tuple[str, ...] = ()


def repository_root(workspace: Path) -> Path:
    """The nearest folder at or above ``workspace`` holding ``.git``; the workspace when there is none."""
    workspace = workspace.resolve()
    for folder in (workspace, *workspace.parents):
        if (folder / ".git").exists():
            return folder
    return workspace


def candidate_files(workspace: Path, home: Path) -> list[tuple[Path, Scope]]:
    """Every place an instruction file may be, in load order (existing or not)."""
    workspace = workspace.resolve()
    root = repository_root(workspace)
    folders = [root]
    for part in workspace.relative_to(root).parts:
        folders.append(folders[-1] / part)
    candidates: list[tuple[Path, Scope]] = [(home / name, "user") for name in INSTRUCTION_FILENAMES]
    for folder in folders:
        candidates.extend((folder / name, "project") for name in INSTRUCTION_FILENAMES)
        candidates.append((folder / LOCAL_FILENAME, "local"))
    return candidates


def load_instructions(workspace: Path, home: Path) -> Instructions:
    """Read every instruction file of ``workspace`` (and the user's), expanding imports."""
    project_root = _import_root(workspace)
    loader = _Loader(allowed_roots=(project_root, _real(home)))
    sections: list[str] = []
    for path, scope in candidate_files(workspace, home):
        if not path.is_file() or _real(path) in loader.seen:
            continue
        limit = project_root if _inside(_real(path.parent), (project_root,)) else _real(repository_root(workspace))
        if scope != "user" and not _inside(_real(path), (limit,)):
            loader.problems.append(f"{path}: a link to {_real(path)}, outside the repository, not loaded")
            continue
        body = loader.load(path, scope, chain=(), imported_by=None)
        if body is not None and body.strip():
            sections.append(f"## {path} ({_LABELS[scope]})\n\n{body.strip()}")
    text = "\n\n".join([INSTRUCTIONS_HEADER, *sections]) if sections else ""
    return Instructions(text=text, files=tuple(loader.files), problems=tuple(loader.problems))


INSTRUCTIONS_REMOVED = "(the instruction files loaded at the start of this session were removed or emptied: disregard them)"


def changed_instructions(loaded: Instructions, workspace: Path, home: Path) -> str:
    """The instruction files' current text when it differs from ``loaded`` (what the session started with), else ""."""
    current = load_instructions(workspace, home)
    if current.text == loaded.text:
        return ""
    return current.text or INSTRUCTIONS_REMOVED


_LABELS: dict[Scope, str] = {
    "user": "user instructions, all projects",
    "project": "project instructions",
    "local": "local project instructions, not checked in",
    "import": "imported",
}


def _import_root(workspace: Path) -> Path:
    """The folder project imports must stay in: the repository root, or the workspace when that root
    holds the user's home (a dotfiles ``~/.git`` above a downloaded folder would open the whole home)."""
    root = _real(repository_root(workspace))
    user_home = _real(Path.home())
    return _real(workspace) if user_home == root or root in user_home.parents else root


def _read_bounded(path: Path) -> tuple[bytes, int]:
    """The first bytes of ``path`` that can hold ``MAX_FILE_CHARS`` characters, and its whole size:
    a repository's multi-gigabyte CLAUDE.md must not be read whole at start-up."""
    with open(path, "rb") as stream:
        size = os.fstat(stream.fileno()).st_size
        raw = stream.read(MAX_FILE_CHARS * 4 + 1)
    if len(raw) > MAX_FILE_CHARS * 4:
        for cut in range(4):
            try:
                (raw[: len(raw) - cut]).decode("utf-8")
            except UnicodeDecodeError:
                continue
            return raw[: len(raw) - cut], size
    return raw, size


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _inside(path: Path, roots: tuple[Path, ...]) -> bool:
    return any(path == root or root in path.parents for root in roots)


@dataclass
class _Loader:
    allowed_roots: tuple[Path, ...]
    seen: set[Path] = field(default_factory=set)
    files: list[InstructionFile] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def load(self, path: Path, scope: Scope, *, chain: tuple[Path, ...], imported_by: Path | None) -> str | None:
        real = _real(path)
        try:
            raw, size = _read_bounded(path)
            text = raw.decode("utf-8")
        except (OSError, UnicodeDecodeError) as error:
            self.problems.append(f"{path}: cannot be read as UTF-8 text ({type(error).__name__})")
            return None
        if "\x00" in text:
            self.problems.append(f"{path}: looks binary, not loaded")
            return None
        self.seen.add(real)
        self.files.append(InstructionFile(path=path, size=size, scope=scope, imported_by=imported_by))
        if len(text) > MAX_FILE_CHARS:
            self.problems.append(f"{path}: longer than {MAX_FILE_CHARS} characters, truncated")
            text = text[:MAX_FILE_CHARS] + "\n[... truncated ...]"
        return self._expand(path, text, (*chain, real))

    def _expand(self, path: Path, text: str, chain: tuple[Path, ...]) -> str:
        lines = text.splitlines()
        in_fence = False
        for number, line in enumerate(lines):
            if _FENCE.match(line):
                in_fence = not in_fence
            match = None if in_fence else _IMPORT_LINE.match(line)
            if match is None:
                continue
            body = self._import(path, number + 1, match.group(1), chain)
            if body is not None:
                lines[number] = body.rstrip("\n")
        return "\n".join(lines)

    def _import(self, importer: Path, line: int, target: str, chain: tuple[Path, ...]) -> str | None:
        where = f"{importer}:{line}: @{target}"
        candidate = Path(target).expanduser() if target.startswith("~") else importer.parent / target
        real = _real(candidate)
        if not _inside(real, self.allowed_roots):
            self.problems.append(f"{where}: outside the repository and the PseudoClaude home, not imported")
            return None
        if not real.is_file():
            self.problems.append(f"{where}: file not found")
            return None
        if real in chain:
            cycle = " -> ".join(str(p) for p in (*chain[chain.index(real) :], real))
            self.problems.append(f"{where}: import cycle ({cycle}), not imported again")
            return None
        if real in self.seen:
            return None
        if len(chain) > MAX_IMPORT_DEPTH:
            self.problems.append(f"{where}: imports nest deeper than {MAX_IMPORT_DEPTH} levels, not imported")
            return None
        return self.load(candidate, "import", chain=chain, imported_by=importer)
