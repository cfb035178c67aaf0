"""See through wrappers and strings to the commands that actually run.

``sudo rm -rf /`` runs ``rm``; ``bash -c "rm -rf /"``, ``eval "rm -rf /"``,
``echo "rm -rf /" | sh`` and ``sh <<< "rm -rf /"`` run a string that is parsed
again. :func:`analyze` returns both views of a command line:

* ``written``: the simple commands as typed (substitutions included). Allow
  rules must match every one of them.
* ``effective``: ``written`` plus everything derived by stripping prefixes
  (``sudo``, ``env``, ``xargs``, ``timeout``, ``watch``...), re-parsing strings,
  resolving computed command names the line itself determines (``t=rm; $t``,
  ``$(echo rm)``, ``{rm,-rf,x}``), git aliases defined by ``git -c alias.x=...``
  and the substitutions bashlex does not descend into (``${X:-$(...)}``,
  unquoted heredoc bodies, see :mod:`hidden`), to a depth of :data:`MAX_DEPTH`. The hard-deny list and deny rules look at all of
  them. Deeper nesting raises :class:`ShellParseError` (deny in doubt).
"""

from __future__ import annotations

import functools
import posixpath
import re
from dataclasses import dataclass, field, replace
from typing import Mapping

from pseudoclaude.tools.permissions.hidden import git_subcommand, non_literal_name, substitution_bodies
from pseudoclaude.tools.permissions.targets import Places, expand_word
from pseudoclaude.tools.permissions.shell_parse import (
    FunctionDef,
    ShellParseError,
    SimpleCommand,
    parse_script,
)

MAX_DEPTH = 4

_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "ash", "mksh"})
# wrapper -> options that take a separate argument
_WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "--user", "--group", "--host", "--prompt", "--chdir"}),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "--unset", "--chdir"}),
    "xargs": frozenset({"-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a", "--max-args", "--max-procs", "--delimiter", "--arg-file"}),
    "nohup": frozenset(),
    "nice": frozenset({"-n", "--adjustment"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset({"-a"}),
    "time": frozenset({"-f", "-o", "--format", "--output"}),
    "busybox": frozenset(),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "ionice": frozenset({"-c", "-n", "-p"}),
    "setsid": frozenset(),
    "chronic": frozenset(),
    "unbuffer": frozenset(),
    "flock": frozenset({"-w", "--timeout", "-E", "--conflict-exit-code"}),
    "chroot": frozenset({"--userspec", "--groups"}),
    "strace": frozenset({"-o", "-e", "-p", "-s", "-u", "-E", "-P", "-I", "-a", "-b", "-X"}),
    "ltrace": frozenset({"-o", "-e", "-p", "-s", "-u", "-n", "-a"}),
    "caffeinate": frozenset({"-t", "-w"}),
    "torsocks": frozenset({"-a", "-P", "-u", "-p"}),
    "proxychains": frozenset({"-f"}),
    "proxychains4": frozenset({"-f"}),
    "firejail": frozenset(),
    "unshare": frozenset({"-S", "-G", "--setuid", "--setgid", "-R", "--root", "-w", "--wd"}),
    "taskset": frozenset(),
    "chrt": frozenset({"-T", "-P", "-D", "--sched-runtime", "--sched-period", "--sched-deadline"}),
    "coproc": frozenset(),
    "pkexec": frozenset({"--user"}),
    "runuser": frozenset({"-u", "-g", "-G", "--user", "--group", "--supp-group"}),
    "nsenter": frozenset({"-t", "--target", "-S", "--setuid", "-G", "--setgid"}),
    "cpulimit": frozenset({"-l", "--limit", "-p", "--pid", "-e", "--exe"}),
    "prlimit": frozenset({"-p", "--pid"}),
    "numactl": frozenset({"-C", "-N", "-m", "-i", "-p", "--physcpubind", "--cpunodebind", "--membind", "--interleave", "--preferred"}),
    "systemd-run": frozenset({"-p", "--property", "-u", "--unit", "-E", "--setenv", "--uid", "--gid", "-M", "--machine"}),
}
# wrappers whose first operand is not the command (a duration, a lock file, a new root)
_SKIP_FIRST = frozenset({"timeout", "flock", "chroot", "taskset", "chrt"})


@dataclass(frozen=True)
class CommandLine:
    source: str
    written: tuple[SimpleCommand, ...]
    effective: tuple[SimpleCommand, ...]
    functions: tuple[FunctionDef, ...] = ()
    variables: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    parser: str = "bashlex"


@functools.lru_cache(maxsize=256)
def analyze(command: str) -> CommandLine:
    """Both views of ``command``; raises :class:`ShellParseError` when it cannot be judged."""
    script = parse_script(command)
    effective: list[SimpleCommand] = []
    functions = list(script.functions)
    variables = {k: list(v) for k, v in script.variables.items()}
    for cmd in script.commands:
        _expand(cmd, 0, effective, functions, variables)
    for body in substitution_bodies(command):
        try:
            nested = parse_script(body)
        except ShellParseError:
            continue  # the line itself parsed; a garbled fragment of it adds nothing to check
        for sub in nested.commands:
            _expand(sub, 1, effective, functions, variables)
    frozen = {k: tuple(dict.fromkeys(v)) for k, v in variables.items()}
    return CommandLine(command, script.commands, tuple(effective), tuple(functions), frozen, script.parser)


def _expand(
    cmd: SimpleCommand,
    depth: int,
    out: list[SimpleCommand],
    functions: list[FunctionDef],
    variables: dict[str, list[str]],
) -> None:
    out.append(cmd)
    if cmd.assignments and cmd.words:
        out.append(replace(cmd, assignments=()))
    for resolved in _resolved_names(cmd, variables):
        _expand(resolved, depth, out, functions, variables)
    inner = _unwrapped(cmd)
    if inner is not None:
        _expand(inner, depth, out, functions, variables)
    for aliased in _git_aliases(cmd):
        _expand(aliased, depth, out, functions, variables)
    for executed in _find_exec(cmd):
        _expand(executed, depth, out, functions, variables)
    for source in _strings_run_by(cmd):
        if depth + 1 > MAX_DEPTH:
            raise ShellParseError(f"commands nested more than {MAX_DEPTH} levels deep")
        nested = parse_script(source)
        functions.extend(nested.functions)
        for name, values in nested.variables.items():
            variables.setdefault(name, []).extend(values)
        for sub in nested.commands:
            _expand(_rebase(sub, cmd), depth + 1, out, functions, variables)


def _rebase(sub: SimpleCommand, outer: SimpleCommand) -> SimpleCommand:
    dirs: list[str | None] = []
    for base in outer.dirs:
        for d in sub.dirs:
            if base is None or d is None:
                dirs.append(None)
            elif d.startswith(("/", "~", "$")):
                dirs.append(d)
            else:
                dirs.append(posixpath.join(base, d))
    return replace(sub, dirs=tuple(dict.fromkeys(dirs)))


def _unwrapped(cmd: SimpleCommand) -> SimpleCommand | None:
    """The command a prefix like ``sudo``/``env``/``xargs`` runs, or None."""
    name = cmd.name
    if name not in _WRAPPERS:
        return None
    args = list(cmd.args)
    takes_value = _WRAPPERS[name]
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--":
            index += 1
            break
        if name == "env" and "=" in arg and not arg.startswith("-"):
            index += 1
            continue
        if not arg.startswith("-") or arg == "-":
            break
        if name == "command" and arg in ("-v", "-V"):
            return None
        index += 2 if arg in takes_value else 1
    rest = args[index:]
    if name in _SKIP_FIRST and rest:
        rest = rest[1:]
    if name == "coproc":
        rest = rest[1:] if len(rest) > 1 and rest[1] in ("{", "(") else rest  # coproc NAME { cmd; }
        rest = [word for word in rest if word not in ("{", "}", "(", ")")]
    if name == "xargs":
        if not rest:
            rest = ["echo"]
        rest = [*rest, *(cmd.stdin_words or ())]
    if not rest:
        return None
    return SimpleCommand(tuple(rest), (), cmd.redirects, cmd.dirs, cmd.stdin_words if name != "xargs" else None)


def _resolved_names(cmd: SimpleCommand, variables: Mapping[str, list[str]]) -> list[SimpleCommand]:
    """``$t x`` with ``t=touch`` assigned in the line, ``{rm,-rf,v1}`` and ``$(echo rm)``: the commands they become.

    Values are those the line assigns (:func:`targets.expand_word`); what cannot be
    known expands to nothing, so this only ever adds commands for deny rules to see.
    """
    if not non_literal_name(cmd):
        return []
    braces = re.fullmatch(r"\{([^{}$`]*,[^{}$`]*)\}", cmd.words[0])
    if braces:
        return [replace(cmd, words=(*braces.group(1).split(","), *cmd.words[1:]))]
    places = Places("/", "/", "/", {k: tuple(v) for k, v in variables.items()})
    out: list[SimpleCommand] = []
    for value in expand_word(cmd.words[0], places):
        words = tuple(value.split()) if value.strip() else ()
        if words and not non_literal_name(SimpleCommand(words)):
            out.append(replace(cmd, words=(*words, *cmd.words[1:])))
    return out[:8]


def _git_aliases(cmd: SimpleCommand) -> list[SimpleCommand]:
    """What ``git -c alias.t='!touch X' t`` runs: the shell command, or the git command the alias names."""
    if cmd.name != "git":
        return []
    index, options = git_subcommand(cmd.args)
    aliases: dict[str, str] = {}
    for position, option in enumerate(options):
        value = options[position + 1] if option == "-c" and position + 1 < len(options) else option[2:] if option.startswith("-c") else ""
        match = re.match(r"alias\.([^=]+)=(.*)", value, re.DOTALL)
        if match:
            aliases[match.group(1).lower()] = match.group(2)
    if index >= len(cmd.args) or cmd.args[index].lower() not in aliases:
        return []
    body, rest = aliases[cmd.args[index].lower()], cmd.args[index + 1 :]
    if body.startswith("!"):
        return [replace(sub, dirs=cmd.dirs) for sub in parse_script(body[1:] + " " + " ".join(rest)).commands]
    return [replace(cmd, words=("git", *options, *body.split(), *rest))]


def _find_exec(cmd: SimpleCommand) -> list[SimpleCommand]:
    """The commands ``find ... -exec CMD {} ;``, ``fd -x CMD`` and ``rg --pre CMD`` run (``{}`` left as is)."""
    if cmd.name == "rg":
        args = list(cmd.args)
        programs = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "--pre"] + [a.split("=", 1)[1] for a in args if a.startswith("--pre=")]
        return [SimpleCommand((program,), (), (), cmd.dirs) for program in programs if program]
    if cmd.name in ("fd", "fdfind"):
        args = list(cmd.args)
        start = next((i for i, a in enumerate(args) if a in ("-x", "--exec", "-X", "--exec-batch")), None)
        if start is None or start + 1 >= len(args):
            return []
        end = next((j for j in range(start + 1, len(args)) if args[j] == ";"), len(args))
        return [SimpleCommand(tuple(args[start + 1 : end]), (), (), cmd.dirs)] if end > start + 1 else []
    if cmd.name != "find":
        return []
    found: list[SimpleCommand] = []
    args = list(cmd.args)
    for index, arg in enumerate(args):
        if arg in ("-exec", "-execdir", "-ok", "-okdir"):
            end = next((j for j in range(index + 1, len(args)) if args[j] in (";", "+")), len(args))
            if end > index + 1:
                found.append(SimpleCommand(tuple(args[index + 1 : end]), (), (), cmd.dirs))
    return found


def _strings_run_by(cmd: SimpleCommand) -> list[str]:
    """Command strings that ``cmd`` hands to a shell parser."""
    name, args = cmd.name, list(cmd.args)
    if name == "eval":
        return [" ".join(args)] if args else []
    if name == "trap":
        return [args[0]] if args and not args[0].startswith("-") else []
    if name in ("su", "runuser", "script", "sg"):
        return [args[i + 1] for i, a in enumerate(args[:-1]) if a == "--command" or re.fullmatch(r"-[A-Za-z]*c", a)] + [
            a.split("=", 1)[1] for a in args if a.startswith("--command=")
        ]
    if name == "watch":
        words, index = list(args), 0
        while index < len(words) and words[index].startswith("-"):
            index += 2 if words[index] in ("-n", "--interval", "-q", "--equexit") else 1
        return [" ".join(words[index:])] if words[index:] else []
    if name == "env":
        return [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-S", "--split-string")] + [
            a.split("=", 1)[1] for a in args if a.startswith("--split-string=")
        ]
    if name not in _SHELLS:
        return []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg.startswith("-") and not arg.startswith("--") and "c" in arg[1:]:
            return [args[index + 1]] if index + 1 < len(args) else []
        if not arg.startswith(("-", "+")):
            return []  # a script file: its contents are not ours to see
        index += 2 if arg in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file") else 1
    strings = [r.target for r in cmd.redirects if r.op == "<<<"]
    strings += [r.heredoc for r in cmd.redirects if r.heredoc is not None]
    if cmd.stdin_words is not None:
        words = list(cmd.stdin_words)
        while words and words[0].startswith("-") and set(words[0][1:]) <= set("neE"):
            words.pop(0)
        strings.append(" ".join(words))
    return strings
