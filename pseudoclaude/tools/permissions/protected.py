"""Paths the agent must never write without the user seeing that exact write.

Writing any of these raises the agent's own permissions or runs code later,
outside every check: a ``.git/hooks/pre-commit`` or a ``core.fsmonitor`` in
``.git/config`` runs on the next ``git`` command, an allow rule or hook in
``.pseudoclaude/settings.local.json`` takes effect next session, a line in
``~/.bashrc`` runs in the user's next shell. So, in every mode but a
user-chosen bypass, a write to one asks (and is denied headless), and no allow
rule or earlier "always" answer covers it. A command a sandbox confines is not
judged here: the sandbox mounts ``.git`` hooks and config, the agent's folders
and everything outside the workspace read-only, whatever the line says. The paths:

* anything inside a ``.git`` directory (or a ``.git`` file), at any depth
  (``vendor/sub/.git/hooks/x`` too);
* the agent's settings and hooks: any ``.pseudoclaude/`` directory, ``.claude/`` but
  its ``agents/`` (settings, hook scripts, commands whose ``allowed-tools`` skip
  approval; a sub-agent gets no permission of its own), ``.mcp.json``, the workspace's ``.env`` (it can
  redirect API keys), and the user's PseudoClaude directory (``~/.pseudoclaude``
  or ``$PSEUDOCLAUDE_HOME``);
* shell and tool start-up files in the home: ``~/.bashrc``, ``~/.zshrc``,
  ``~/.profile``, ``~/.bash_profile``... ``~/.gitconfig``, ``~/.config/git/``,
  ``~/.config/fish/``, ``~/.ssh/``, and the folders whose programs run later
  without a question: ``~/.local/bin/`` and ``~/bin/`` (early on ``PATH``),
  ``~/.config/autostart/``, ``~/.config/systemd/``.

Names compare after dropping the zero-width and direction characters macOS's
file system ignores (``.g\u200cit`` is ``.git`` there).

Names compare case-insensitively (``.GIT/hooks`` on macOS is ``.git/hooks``).
For commands, the written paths are those :func:`command_writes` can extract:
redirections, ``tee``, ``cp``/``mv``/``ln``/``install``/``rsync`` operands,
``touch``/``rm``/``mkdir``/``chmod``... operands, ``sed -i``, ``dd of=`` and
``git config`` (which writes ``.git/config``), ``git init/clone --template``
(which fills ``.git/hooks``). What an archive or a program writes (``tar -x``,
``python -c``) cannot be read off the line.
"""

from __future__ import annotations

import os
import posixpath
import re
import unicodedata
from pathlib import Path
from typing import Iterable

from pseudoclaude.tools.permissions.targets import Places, candidates, glob_matches
from pseudoclaude.tools.permissions.unwrap import CommandLine

HOME_STARTUP = frozenset(
    """.bashrc .bash_profile .bash_login .bash_logout .profile .zshrc .zshenv .zprofile .zlogin .zlogout .kshrc .mkshrc
    .cshrc .tcshrc .login .gitconfig .bash_aliases .xprofile .xsessionrc .xinitrc .pam_environment""".split()
)
HOME_DIRS = (".ssh", ".config/git", ".config/fish", ".local/bin", ".config/autostart", ".config/systemd", ".config/environment.d", "bin")
_IGNORABLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u206a-\u206f\ufeff]")
_WRITE_OPS = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})
_OPERAND_WRITERS = frozenset(
    {"tee", "cp", "mv", "ln", "install", "rsync", "touch", "rm", "rmdir", "mkdir", "chmod", "chown", "chgrp", "truncate", "shred", "unlink", "patch"}
)
_GIT_CONFIG_READS = frozenset({"--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch", "--show-origin", "--name-only"})


def protected_reason(path: Path, *, workspace: Path, home: Path, config_dir: Path) -> str | None:
    """Why writing ``path`` (absolute) needs the user's eyes, or None."""
    text = _IGNORABLE.sub("", unicodedata.normalize("NFC", posixpath.normpath(str(path))))
    parts = [p.lower() for p in text.split("/") if p]
    if ".git" in parts:
        return "it is inside a .git directory (hooks and config there run code on the next git command)"
    if ".pseudoclaude" in parts:
        return "it is PseudoClaude's own settings or hooks"
    if parts and parts[-1] == ".mcp.json":
        return "it is an agent's settings file (rules, hooks, servers)"
    if ".claude" in parts and parts[parts.index(".claude") + 1 : parts.index(".claude") + 2] != ["agents"]:
        return "it is in a .claude folder (settings, hooks, and commands whose allowed-tools skip approval)"
    for base, why in (
        (config_dir, "it is in your PseudoClaude configuration directory"),
        (workspace / ".env", "it is the workspace's .env (it can redirect API keys)"),
    ):
        if _inside(text, str(base)):
            return why
    if _inside(posixpath.dirname(text), str(home)) and posixpath.basename(text).lower() in HOME_STARTUP:
        return "it is a start-up file in your home directory (it runs in your next shell or git command)"
    for name in HOME_DIRS:
        if _inside(text, str(home / name)):
            return f"it is in ~/{name}"
    return None


def first_protected(paths: Iterable[Path], *, workspace: Path, home: Path, config_dir: Path) -> tuple[Path, str] | None:
    for path in paths:
        why = protected_reason(path, workspace=workspace, home=home, config_dir=config_dir)
        if why:
            return path, why
    return None


def command_writes(line: CommandLine, *, workspace: Path, home: Path, cwd: Path) -> list[Path]:
    """The absolute paths the commands of ``line`` may write, as far as they can be extracted."""
    places = Places.of(workspace=workspace, home=home, cwd=cwd, variables=line.variables)
    out: list[Path] = []
    for cmd in line.effective:
        words = [r.target for r in cmd.redirects if r.op in _WRITE_OPS and not r.target.isdigit() and r.target != "-"]
        operands = [a for a in cmd.args if not a.startswith("-")] + [a.split("=", 1)[1] for a in cmd.args if a.startswith("--") and "=" in a]
        if cmd.name in _OPERAND_WRITERS or (cmd.name in ("sed", "perl") and any(_in_place(a) for a in cmd.args)):
            words += operands
        words += [a[3:] for a in cmd.args if cmd.name == "dd" and a.startswith("of=")]
        words += _git_config_file(cmd.args) if cmd.name == "git" else []
        words += [".git/hooks"] if cmd.name == "git" and any(a.startswith("--template") for a in cmd.args) else []
        for word in words:
            for path in candidates(word, cmd.dirs, places):
                for match in glob_matches(path) if not path.startswith("?") else ():
                    out.extend(dict.fromkeys((Path(match), Path(os.path.realpath(match)))))
    return out


def _in_place(arg: str) -> bool:
    """``sed``/``perl`` editing in place: ``-i``, in a cluster (``-Ei``, ``-pi``) or long (``--in-place=.bak``, ``--in``)."""
    return re.match(r"-[A-Za-z]*i", arg) is not None or (arg.startswith("--i") and "--in-place".startswith(arg.split("=", 1)[0]))


def _git_config_file(args: tuple[str, ...]) -> list[str]:
    directory, index = ".", 0
    while index < len(args) and args[index].startswith("-"):
        if args[index] == "-C" and index + 1 < len(args):
            directory = posixpath.join(directory, args[index + 1])
            index += 1
        index += 2 if args[index] in ("-c", "--git-dir", "--work-tree") else 1
    if index >= len(args) or args[index] != "config" or any(a in _GIT_CONFIG_READS for a in args[index + 1 :]):
        return []
    rest = args[index + 1 :]
    if "--global" in rest:
        return ["~/.gitconfig"]
    file_option = next((rest[i + 1] for i, a in enumerate(rest[:-1]) if a in ("-f", "--file")), None)
    return [file_option] if file_option else [posixpath.join(directory, ".git/config")]


def _inside(path: str, base: str) -> bool:
    base = posixpath.normpath(base)
    return path.lower() == base.lower() or path.lower().startswith(base.lower().rstrip("/") + "/")
