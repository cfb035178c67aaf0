"""The hard-deny list: shell commands refused in every mode, bypass included.

Every *effective* simple command of a ``run_command`` line (see
:mod:`unwrap`: chains, subshells, substitutions, ``sudo``/``env``/``xargs``
prefixes, ``bash -c``/``eval`` strings) is checked against:

* recursive ``rm`` of ``/``, a system directory, the home directory, the
  workspace root, a directory containing one of them, or everything inside
  one of them (globs, ``~``, ``$HOME``, ``.`` relative to the possible working
  directories, unset variables taken as empty);
* ``mkfs*``/``mke2fs``/``wipefs``; ``dd of=/dev/...``; redirections, ``tee`` or
  ``cp`` writing to a disk device;
* fork bombs: a function calling itself in a pipeline or in the background;
* ``chmod``/``chown``/``chgrp -R`` on ``/`` or a system directory;
* ``shutdown``, ``reboot``, ``halt``, ``poweroff``, ``init 0|6``,
  ``systemctl poweroff|reboot|halt|kexec``.

A command line that cannot be parsed is refused too: it cannot be checked.
Code computed while the line runs (``eval "$(curl ...)"``, ``python -c``) is
not on this list: no reading of the line can see it. The list stops the
visible accident; what computed code may touch is the sandbox's to confine.
The returned reason names the refused simple command and the reason, so the
model can choose a safer command.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from pseudoclaude.tools.permissions.shell_parse import ShellParseError, SimpleCommand
from pseudoclaude.tools.permissions.targets import (
    SYSTEM_DIRS,
    Places,
    candidates,
    destruction,
    expand_word,
)
from pseudoclaude.tools.permissions.unwrap import analyze

_DISK = re.compile(r"/dev/(sd[a-z]|nvme\d|hd[a-z]|vd[a-z]|xvd[a-z]|mmcblk\d|disk\d|rdisk\d|disk/)")
_HARMLESS_DEVICES = frozenset({"/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/random", "/dev/urandom"})
_WRITE_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})
_DEVICE_WRITERS = frozenset({"tee", "cp", "shred", "blkdiscard", "cat"})
_POWER = frozenset({"shutdown", "reboot", "halt", "poweroff"})
_SYSTEMCTL_POWER = frozenset({"poweroff", "reboot", "halt", "kexec"})

Check = Callable[[SimpleCommand, Places], "str | None"]


def hard_deny_reason(command: str, *, workspace: Path, home: Path, cwd: Path | None = None) -> str | None:
    """Why ``command`` must never run, or None when the hard-deny list has no objection."""
    try:
        line = analyze(command)
    except ShellParseError as exc:
        return _refused(f"the command cannot be parsed reliably ({exc}), so it cannot be checked; use plainer shell syntax")
    for function in line.functions:
        if function.forks_itself:
            return _refused(f"`{function.name}` is a fork bomb: a function that calls itself in a pipe or in the background")
    places = Places.of(workspace=workspace, home=home, cwd=cwd or workspace, variables=line.variables)
    for cmd in line.effective:
        for check in _CHECKS:
            why = check(cmd, places)
            if why:
                return _refused(why)
    return None


def _refused(why: str) -> str:
    return f"Refused by the hard-deny list (applies in every permission mode, bypass included): {why}."


def _options_and_operands(args: tuple[str, ...]) -> tuple[list[str], list[str]]:
    options: list[str] = []
    operands: list[str] = []
    ended = False
    for arg in args:
        if ended or arg == "-" or not arg.startswith("-"):
            operands.append(arg)
        elif arg == "--":
            ended = True
        else:
            options.append(arg)
    return options, operands


def _recursive(options: list[str]) -> bool:
    return any(o == "--recursive" or (not o.startswith("--") and bool(set(o[1:]) & {"r", "R"})) for o in options)


def _unknown_program(cmd: SimpleCommand) -> bool:
    return bool(cmd.words) and ("$" in cmd.words[0] or "`" in cmd.words[0])


def _rm(cmd: SimpleCommand, places: Places) -> str | None:
    if cmd.name != "rm" and not _unknown_program(cmd):
        return None
    options, operands = _options_and_operands(cmd.args)
    if not _recursive(options):
        return None
    for operand in operands:
        what = destruction(operand, cmd.dirs, places)
        if what:
            if cmd.name != "rm":
                return f"`{cmd.text}` runs a program named by a variable; if it is `rm`, it recursively deletes {what}"
            return f"`{cmd.text}` recursively deletes {what}"
    return None


_FIND_FILTERS = frozenset(
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -type -newer -mtime -mmin -atime -amin -ctime "
    "-cmin -size -empty -user -group -perm -links -inum -samefile -lname -ilname".split()
)


def _find_delete(cmd: SimpleCommand, places: Places) -> str | None:
    """``find PATH -delete`` (or ``-exec rm``) with no filter deletes a tree as surely as ``rm -rf PATH``.

    A filtered delete (``find . -name '*.pyc' -delete``) is ordinary cleanup,
    except from ``/``, which no cleanup needs.
    """
    if cmd.name != "find":
        return None
    args = list(cmd.args)
    deleting = "-delete" in args or any(
        args[i] in ("-exec", "-execdir", "-ok", "-okdir") and i + 1 < len(args) and args[i + 1] == "rm" for i in range(len(args))
    )
    if not deleting:
        return None
    starts: list[str] = []
    for arg in args:
        if arg.startswith("-") or arg in ("(", "!", ")"):
            break
        starts.append(arg)
    filtered = any(arg in _FIND_FILTERS for arg in args)
    for start in starts or ["."]:
        what = destruction(start, cmd.dirs, places)
        if what and (not filtered or "/" in set(candidates(start, cmd.dirs, places))):
            return f"`{cmd.text}` deletes everything it finds under {what}"
    return None


def _chmod(cmd: SimpleCommand, places: Places) -> str | None:
    if cmd.name not in ("chmod", "chown", "chgrp"):
        return None
    options, operands = _options_and_operands(cmd.args)
    if not any(o == "--recursive" or (not o.startswith("--") and "R" in o) for o in options):
        return None
    for operand in operands:
        for path in candidates(operand, cmd.dirs, places):
            if path == "/" or path in SYSTEM_DIRS or re.fullmatch(r"/[*?.]*\*[*?.]*", path):
                return f"`{cmd.text}` recursively changes ownership or permissions of {path}"
    return None


def _format(cmd: SimpleCommand, places: Places) -> str | None:
    if cmd.name.startswith("mkfs") or cmd.name in ("mke2fs", "wipefs"):
        return f"`{cmd.text}` formats or wipes a filesystem"
    return None


def _is_disk(word: str, places: Places) -> str | None:
    for value in expand_word(word, places):
        if _DISK.match(value):
            return value
    return None


def _device_writes(cmd: SimpleCommand, places: Places) -> str | None:
    for redirect in cmd.redirects:
        disk = _is_disk(redirect.target, places) if redirect.op in _WRITE_REDIRECTS else None
        if disk:
            return f"`{cmd.text} {redirect.op} {redirect.target}` writes straight to the disk device {disk}"
    if cmd.name == "dd":
        for arg in cmd.args:
            if arg.startswith("of="):
                for value in expand_word(arg[3:], places):
                    if value.startswith("/dev/") and value not in _HARMLESS_DEVICES and not value.startswith("/dev/fd/"):
                        return f"`{cmd.text}` writes raw data to the device {value}"
    if cmd.name in _DEVICE_WRITERS and cmd.name != "cat":
        for arg in cmd.args:
            disk = _is_disk(arg, places)
            if disk:
                return f"`{cmd.text}` writes to the disk device {disk}"
    return None


def _power(cmd: SimpleCommand, places: Places) -> str | None:
    name = cmd.name
    _, operands = _options_and_operands(cmd.args)
    if name in _POWER:
        return f"`{cmd.text}` shuts down or restarts the machine"
    if name in ("init", "telinit") and operands[:1] in (["0"], ["6"]):
        return f"`{cmd.text}` shuts down or restarts the machine"
    if name == "systemctl" and operands[:1] and operands[0] in _SYSTEMCTL_POWER:
        return f"`{cmd.text}` shuts down or restarts the machine"
    return None


_CHECKS: tuple[Check, ...] = (_rm, _find_delete, _chmod, _format, _device_writes, _power)
