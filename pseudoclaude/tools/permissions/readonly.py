"""Commands that only read, which run without asking in default mode (as in Claude Code).

A line is read-only when every simple command in it (pipeline stages, list
members, subshells, function bodies) is one of :data:`READERS` used without
its writing or code-running options, nothing is redirected into a file, no
variable is assigned (``PATH=. ls``, ``GIT_EXTERNAL_DIFF=sh git diff``), every
command name is a bare literal word (``./ls`` is a workspace file, not ``ls``)
and :mod:`hidden` finds nothing computed. Every word that may be a path must
stay inside the workspace, symlinks resolved, as ``read_file``'s sandbox does:
``cat ~/.ssh/id_rsa``, ``ls /`` and ``cd .. && ls`` ask. ``cat x | sh``, ``ls > f``,
``find . -delete``, ``git log --output=x`` and ``echo $(rm x)`` are not.

Some readers have a writing or executing option, refused here by name:
``find -exec/-delete/-fprint``, ``git ... --output``, ``rg --pre``,
``fd --exec``, ``sort -o``/``--compress-program``, ``tree -o``, ``date -s``,
``git grep -O``; git's long options may be abbreviated (``--out=x``), so any
prefix of ``--output`` counts. ``git branch`` is read-only only as a listing.
Options that follow symbolic links while walking a tree (``grep -R``, ``rg -L``,
``fd -L``, ``find -L``/``-follow``, ``tree -l``, ``ls -L``, ``du -L``) ask: a link the
repository ships may point anywhere, and only the words of the line are checked.
"""

from __future__ import annotations

import itertools
import os
import re
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Callable

from pseudoclaude.tools.permissions.hidden import git_subcommand, hidden_reason
from pseudoclaude.tools.permissions.shell_model import SimpleCommand
from pseudoclaude.tools.permissions.targets import Places, candidates, glob_matches, resolve_dirs
from pseudoclaude.tools.permissions.unwrap import CommandLine

FIND_WRITERS = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"})
_HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
_PLAIN = frozenset(
    """cat head tail wc grep egrep fgrep ls pwd echo printf true false basename dirname realpath readlink stat file
    du df cut tr nl od cmp comm diff tac rev fold fmt expand unexpand strings seq md5sum sha1sum sha256sum sha512sum
    b2sum cksum column jq find [[ whoami id groups uname nproc arch which type test [ rg fd tree sort uniq xxd date hostname
    cd""".split()
)
_MAX_MODULE_CONFIGS = 64
_GLOB_CHARS = re.compile(r"[*?\[]")
_RISKY_GIT_CONFIG = re.compile(
    r"fsmonitor|textconv|external|command|process|clean|smudge|include|pager|hookspath|program|helper|askpass|!",
    re.IGNORECASE,
)
_NO_PATHS = frozenset(
    {"echo", "printf", "seq", "true", "false", "pwd", "whoami", "id", "groups", "uname", "nproc", "arch", "hostname", "which", "type", "basename", "dirname"}
)
_GIT_READERS = frozenset(
    {
        "status",
        "diff",
        "log",
        "show",
        "branch",
        "rev-parse",
        "ls-files",
        "blame",
        "describe",
        "shortlog",
        "grep",
        "ls-tree",
        "cat-file",
        "show-ref",
        "merge-base",
        "rev-list",
    }
)
_BRANCH_LIST = frozenset(
    {
        "-a",
        "--all",
        "-r",
        "--remotes",
        "-l",
        "--list",
        "-v",
        "-vv",
        "--verbose",
        "--show-current",
        "--merged",
        "--no-merged",
        "--contains",
        "--no-contains",
        "--no-color",
        "--color",
        "--column",
        "--no-column",
        "-i",
        "--ignore-case",
        "--omit-empty",
    }
)
_BRANCH_LIST_PREFIXES = (
    "--format=",
    "--sort=",
    "--points-at",
    "--merged=",
    "--no-merged=",
    "--contains=",
    "--no-contains=",
    "--color=",
    "--column=",
    "--abbrev",
)


def is_read_only(line: CommandLine, *, workspace: Path, home: Path, cwd: Path) -> bool:
    """Whether every command of ``line`` only reads, inside the workspace, with nothing hidden and nothing written."""
    if not line.written or line.functions:
        return False
    if hidden_reason(line.source, line.effective) is not None:
        return False
    places = Places.of(workspace=workspace, home=home, cwd=cwd, variables=line.variables)
    root = os.path.realpath(workspace)
    for cmd in line.effective:
        if not _reads_only(cmd) or not (cmd.name in _NO_PATHS or _stays_inside(cmd, places, root)):
            return False
        if git_runs_repository_code(cmd, places):
            return False
    return True


def read_paths(line: CommandLine, *, workspace: Path, home: Path, cwd: Path) -> list[Path]:
    """The absolute paths the words of ``line``'s readers name (as written and with links resolved),
    so that a deny rule on reading a file (``read_file(.env)``) also stops ``cat .env``."""
    places = Places.of(workspace=workspace, home=home, cwd=cwd, variables=line.variables)
    out: list[Path] = []
    for cmd in line.effective:
        if cmd.name in _NO_PATHS:
            continue
        words = [r.target for r in cmd.redirects if r.op == "<"]
        words += [a.split("=", 1)[1] if a.startswith("--") and "=" in a else a for a in cmd.args if not a.startswith("-") or "=" in a]
        for word in words:
            for path in candidates(word, cmd.dirs, places):
                if not path.startswith("?"):
                    out.extend(dict.fromkeys((Path(path), Path(os.path.realpath(path)))))
    return out


def git_runs_repository_code(cmd: SimpleCommand, places: Places) -> bool:
    """Whether ``cmd`` is git run in a repository (or a folder that cannot be known) whose config or hooks run code."""
    return cmd.name == "git" and any(d is None or git_config_runs_code(Path(d)) for d in _git_dirs(cmd, places))


def git_config_runs_code(start: Path) -> bool:
    """Whether the repository ``start`` is in has a config that can make even ``git status`` run a program.

    A repository unpacked from an archive brings its own ``.git/config``: a
    ``core.fsmonitor``, a diff ``textconv``/``command``, a filter or an
    ``include`` there runs code on the next reading git command, and so does
    one in a submodule's config (``git status`` recurses into submodules) and
    a ``hooks/post-index-change`` (``git status`` refreshes the index). Such a
    repository's git commands ask; unreadable configs count as risky.
    """
    try:
        for directory in (start, *start.parents):
            dotgit = directory / ".git"
            if dotgit.is_dir():
                gitdir = dotgit
            elif dotgit.is_file():
                match = re.match(r"gitdir:\s*(.+)", dotgit.read_text(errors="replace").strip())
                if match is None:
                    return True
                gitdir = (directory / match.group(1).strip()).resolve()
            elif _looks_like_git_dir(directory):
                gitdir = directory
            else:
                continue
            dirs = [gitdir]
            if (gitdir / "commondir").is_file():
                dirs.append((gitdir / (gitdir / "commondir").read_text().strip()).resolve())
            configs = [d / name for d in dirs for name in ("config", "config.worktree")]
            configs += [config for d in dirs for config in itertools.islice((d / "modules").rglob("config"), _MAX_MODULE_CONFIGS + 1)]
            if len(configs) > 2 * len(dirs) + _MAX_MODULE_CONFIGS or any((d / "hooks" / "post-index-change").exists() for d in dirs):
                return True
            return any(c.is_file() and _RISKY_GIT_CONFIG.search(c.read_text(errors="replace")) for c in configs)
    except OSError:
        return True
    return False


def _looks_like_git_dir(directory: Path) -> bool:
    """Whether git would take ``directory`` itself for a (bare) repository, as its discovery does after ``.git``.

    Such a folder can be committed in an ordinary repository (``vendor/lib/HEAD``, ``objects/``,
    ``refs/``, ``config``): a git command run inside it then reads that config, fsmonitor and all.
    """
    return (directory / "HEAD").is_file() and ((directory / "objects").is_dir() or (directory / "refs").is_dir() or (directory / "commondir").is_file())


def _git_dirs(cmd: SimpleCommand, places: Places) -> list[str | None]:
    index, options = git_subcommand(cmd.args)
    dirs = list(resolve_dirs(cmd.dirs, places))
    for position, option in enumerate(options[:-1]):
        if option == "-C":
            dirs = [None if d is None else os.path.normpath(os.path.join(d, options[position + 1])) for d in dirs]
    return dirs


def _stays_inside(cmd: SimpleCommand, places: Places, root: str) -> bool:
    """Every word that may be a path resolves inside the workspace (``cat ~/.ssh/id_rsa`` asks, as ``read_file`` refuses it).

    Option words count too (``--file=/x``, ``-f/x``), and so do input
    redirections; ``~user`` and a glob that may match ``..`` (``.*``) count as outside. So does a
    folder the line cannot know (after ``cd -``/``popd``, or ``cd`` to a relative name while
    ``CDPATH`` is set) and a variable the line does not set: ``$OLDPWD`` and ``cd -`` are the
    terminal's previous folder, often the home.
    """
    if any(d is None or _unknown_variable(d, places) for d in cmd.dirs) or _cdpath_lookup(cmd):
        return False
    words = [r.target for r in cmd.redirects if r.op == "<"]
    for word in cmd.args:
        if word.startswith("--") and "=" in word:
            words.append(word.split("=", 1)[1])
        elif word.startswith("-"):
            words.extend(word[i:] for i in {word.find("/"), word.find("~"), 2 if len(word) > 2 else -1} if i >= 0)
        else:
            words.append(word)
    for word in words:
        if not word or word in _HARMLESS_TARGETS:
            continue
        if _unknown_variable(word, places) or re.match(r"~[^/]", word) or any(_GLOB_CHARS.search(c) and fnmatchcase("..", c) for c in word.split("/")):
            return False
        for path in candidates(word, cmd.dirs, places):
            if path.startswith("?"):
                return False
            if not all(_inside(os.path.realpath(match), root) for match in glob_matches(path)):
                return False
    return True


def _inside(real: str, root: str) -> bool:
    return real == root or real.startswith(root.rstrip("/") + "/")


_VARIABLE_USE = re.compile(r"\$\{?[#!]?([A-Za-z_]\w*|[0-9@*#?$!-])")


def _unknown_variable(word: str, places: Places) -> bool:
    """Whether ``word`` expands a variable whose value the line does not show (the environment's)."""
    return any(name not in ("HOME", "PWD") and name not in places.variables for name in _VARIABLE_USE.findall(word))


def _cdpath_lookup(cmd: SimpleCommand) -> bool:
    """``cd name`` with ``CDPATH`` set in the environment the commands inherit: bash tries CDPATH's folders first."""
    if cmd.name not in ("cd", "pushd") or not os.environ.get("CDPATH"):
        return False
    targets = [a for a in cmd.args if not a.startswith("-")]
    return bool(targets) and not targets[0].startswith(("/", "./", "../", "~")) and targets[0] not in (".", "..")


def writing_options(cmd: SimpleCommand) -> tuple[str, ...]:
    """The words of ``cmd`` that make a reader write or run code (``-delete``, ``--output=x``)."""
    name, args = cmd.name, cmd.args
    if name == "find":
        return tuple(a for a in args if a in FIND_WRITERS)
    if name == "git":
        index, _ = git_subcommand(args)
        return tuple(a for a in args[index + 1 :] if _git_output(a) or _short_o(a) or a.startswith("--open-files-in-pager"))
    return ()


def _short_o(arg: str) -> bool:
    """``-o``/``-O`` alone, or ``-O`` in a cluster or with its value attached: ``git grep -Ovim``/``-iO'sh -c x'``
    runs a program (a lower-case ``o`` in a cluster is another option: ``git status -uno``)."""
    return arg in ("-o", "-O") or re.match(r"-[^-]*O", arg) is not None


def _git_output(arg: str) -> bool:
    key = arg.split("=", 1)[0]
    return len(key) >= 4 and (key.startswith("--output") or "--output".startswith(key) or "--output-directory".startswith(key))


def _reads_only(cmd: SimpleCommand) -> bool:
    if cmd.assignments or not cmd.words:
        return False
    if "/" in cmd.words[0] or "\\" in cmd.words[0] or cmd.words[0] != cmd.name:
        return False
    if any(_writes(r.op, r.target) for r in cmd.redirects):
        return False
    if cmd.name == "git":
        return _git_reads_only(cmd.args)
    if cmd.name not in _PLAIN:
        return False
    check = _OPTION_CHECKS.get(cmd.name)
    return check is None or check(cmd.args)


def _writes(op: str, target: str) -> bool:
    if op in ("<<", "<<-", "<<<", "<"):
        return False
    if op in (">&", "<&") and (target.isdigit() or target == "-"):
        return False
    return target not in _HARMLESS_TARGETS


def _git_reads_only(args: tuple[str, ...]) -> bool:
    index, options = git_subcommand(args)
    if index >= len(args) or any(o not in ("-C", "--no-pager", "-P") and not _follows(options, o, "-C") for o in options):
        return False
    sub, rest = args[index], args[index + 1 :]
    if sub not in _GIT_READERS or any(_git_output(a) or _short_o(a) or a.startswith(("--open-files-in-pager", "--ext-diff", "--textconv")) for a in rest):
        return False
    if sub == "branch":
        listing = "-l" in rest or "--list" in rest
        for arg in rest:
            if arg.startswith("-") and arg not in _BRANCH_LIST and not arg.startswith(_BRANCH_LIST_PREFIXES):
                return False
            if not arg.startswith("-") and not listing and not _after_value_option(rest, arg):
                return False
    return True


def _follows(options: tuple[str, ...], word: str, option: str) -> bool:
    position = options.index(word)
    return position > 0 and options[position - 1] == option


def _after_value_option(args: tuple[str, ...], word: str) -> bool:
    position = args.index(word)
    return position > 0 and args[position - 1] in ("--merged", "--no-merged", "--contains", "--no-contains", "--points-at", "--sort", "--format")


def _without(*bad: str, prefixes: tuple[str, ...] = ()) -> Callable[[tuple[str, ...]], bool]:
    def check(args: tuple[str, ...]) -> bool:
        return not any(a in bad or a.startswith(prefixes) for a in args) if prefixes else not any(a in bad for a in args)

    return check


def _find(args: tuple[str, ...]) -> bool:
    return not any(a in FIND_WRITERS for a in args)


def _at_most_one_operand(*bad: str) -> Callable[[tuple[str, ...]], bool]:
    def check(args: tuple[str, ...]) -> bool:
        return sum(1 for a in args if not a.startswith("-")) <= 1 and not any(a in bad for a in args)

    return check


def _sort(args: tuple[str, ...]) -> bool:
    return not any(a == "-o" or re.match(r"-[a-zA-Z]*o", a) or a.startswith(("--output", "--compress-program", "--temporary-directory", "-T")) for a in args)


def _no_follow(letter: str, *long: str) -> Callable[[tuple[str, ...]], bool]:
    """Refuses the option that follows symbolic links while walking a tree (``grep -R``, ``rg -L``):
    a link the repository ships (``docs -> ~/.ssh``) would be read as if it were inside."""
    short = re.compile(rf"-[A-Za-z0-9]*{letter}")

    def check(args: tuple[str, ...]) -> bool:
        return not any((not a.startswith("--") and short.match(a)) or a in long for a in args)

    return check


def _all(*checks: Callable[[tuple[str, ...]], bool]) -> Callable[[tuple[str, ...]], bool]:
    return lambda args: all(check(args) for check in checks)


_GREP = _no_follow("R", "--dereference-recursive")
_OPTION_CHECKS: dict[str, Callable[[tuple[str, ...]], bool]] = {
    "grep": _GREP,
    "egrep": _GREP,
    "fgrep": _GREP,
    "ls": _no_follow("L", "--dereference"),
    "du": _no_follow("L", "--dereference"),
    "find": _all(_find, lambda args: not any(a in ("-L", "-follow") for a in args)),
    "rg": _all(_without(prefixes=("--pre", "--hostname-bin")), _no_follow("L", "--follow")),
    "fd": _all(_without("-x", "-X", prefixes=("--exec",)), _no_follow("L", "--follow")),
    "sort": _sort,
    "tree": _all(_without("-o", "-R"), _no_follow("l")),
    "date": _without("-s", prefixes=("--set",)),
    "hostname": lambda args: all(a.startswith("-") and a not in ("-F", "--file", "-b", "--boot") for a in args),
    "uniq": _at_most_one_operand(),
    "xxd": _at_most_one_operand("-r", "-revert"),
    "file": _without("-C", "--compile"),
    "jq": lambda args: not any("env" in a or "$__loc__" in a or "input_filename" in a for a in args),
}
