"""What an "always" answer saves: the narrowest rule a person would mean.

"Always" on one edit must not become a bare ``edit_file`` rule that allows
every later edit anywhere, and "always" on ``npm test -- -x`` should not save
that exact line, which never matches again. So:

* an edit suggests the folder it is in (``edit_file(src/app/**)``), or the
  file itself for a file at the workspace root (``edit_file(/README.md)``:
  Claude Code's spelling for "relative to the settings file", i.e. the
  workspace root, not the filesystem's; a bare ``README.md`` would match a
  ``README.md`` in every folder). Outside the workspace the path is anchored
  (``~/`` or ``//``). The question says it in words (:func:`in_words`);
* a fetch suggests its domain (``web_fetch(domain:docs.python.org)``);
* a command suggests the prefix a user would choose, by this rule:

  ===========================================  =================================
  the command                                  the rule's prefix
  ===========================================  =================================
  a multi-command tool (:data:`MULTI_COMMAND`)  the tool and its subcommand:
                                               ``git commit:*``, ``npm test:*``
  ... whose subcommand runs what it is named   one word more: ``npm run build:*``;
  (:data:`RUNNERS`: ``run``, ``exec``...)       a program by this table again: ``uv
                                               run pytest:*``; ``docker run``
                                               and ``kubectl exec`` (options
                                               first, then anything) stay exact
  ``python[3] -m MODULE``                      ``python3 -m pytest:*`` (a multi-
                                               command module adds its subcommand:
                                               ``python -m pip install:*``)
  any other program                            the program as written: ``pytest:*``,
                                               ``./scripts/x.sh:*``
  ===========================================  =================================

  The exact line is saved instead when a prefix would cover dangerous
  variants in a surprising way: a program in :data:`EXACT_ONLY` (``rm``,
  ``sudo``, ``bash -c``, ``eval``, an interpreter running ``-c`` or a file),
  a multi-command tool whose second word is an option (``git -c x=y ...``)
  or missing, assignments or redirects, and a line hiding code (which prefix
  rules never match). A compound line (``a && b``, ``curl x | sh``) saves the
  exact line, not one rule per part: one answer should not grant two
  programs. ``cd`` parts are ignored (the allow rules need no rule for them),
  so ``cd sub && npm test`` suggests ``npm test:*``.

Protected paths (:mod:`protected`) are never covered: the policy asks for them
before it looks at any allow rule, and saves nothing for them.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from pseudoclaude.tools.permissions.rules import Call, Rule, paths_of, url_host
from pseudoclaude.tools.permissions.unwrap import CommandLine

MULTI_COMMAND = frozenset(
    {
        "git",
        "npm",
        "pnpm",
        "yarn",
        "bun",
        "cargo",
        "go",
        "docker",
        "podman",
        "kubectl",
        "helm",
        "uv",
        "poetry",
        "pip",
        "pip3",
        "pipenv",
        "hatch",
        "pdm",
        "conda",
        "gh",
        "dotnet",
        "rustup",
        "terraform",
        "make",
        "just",
    }
)
"""Tools whose second word picks what they do: the rule names both (``git commit:*``, ``make test:*``)."""

RUNNERS: dict[tuple[str, str], bool] = {
    ("npm", "run"): False,
    ("npm", "run-script"): False,
    ("pnpm", "run"): False,
    ("yarn", "run"): False,
    ("bun", "run"): False,
    ("go", "run"): False,
    ("npm", "exec"): True,
    ("npm", "x"): True,
    ("pnpm", "exec"): True,
    ("pnpm", "dlx"): True,
    ("yarn", "exec"): True,
    ("yarn", "dlx"): True,
    ("bun", "x"): True,
    ("uv", "run"): True,
    ("poetry", "run"): True,
    ("pipenv", "run"): True,
    ("pdm", "run"): True,
    ("hatch", "run"): True,
    ("conda", "run"): True,
}
"""Subcommands that run the next word they are given: the rule names that word too (``npm run build:*``). True: that
word is a program, so the whole rule applies to it (``uv run pytest:*``; ``uv run python -c ...`` stays exact)."""

EXACT_SUBCOMMANDS = frozenset(
    {
        ("docker", "run"),
        ("docker", "exec"),
        ("podman", "run"),
        ("podman", "exec"),
        ("kubectl", "exec"),
        ("kubectl", "run"),
        ("kubectl", "debug"),
        ("docker", "compose"),
        ("git", "config"),
        ("gh", "api"),
        ("gh", "extension"),
        ("uv", "tool"),
    }
)
"""Subcommands whose options come first and then run anything (or set what runs): only the exact line is saved."""

EXACT_ONLY = frozenset(
    {
        "bash",
        "sh",
        "zsh",
        "dash",
        "fish",
        "ksh",
        "python",
        "python3",
        "python2",
        "node",
        "deno",
        "ruby",
        "perl",
        "php",
        "lua",
        "env",
        "sudo",
        "doas",
        "su",
        "xargs",
        "exec",
        "eval",
        "command",
        "builtin",
        "nohup",
        "timeout",
        "time",
        "nice",
        "watch",
        "ssh",
        "npx",
        "uvx",
        "pipx",
        "find",
        "awk",
        "sed",
        "source",
        ".",
        "rm",
        "rmdir",
        "shred",
        "dd",
        "mkfs",
        "chmod",
        "chown",
        "chgrp",
        "mv",
        "cp",
        "ln",
        "truncate",
        "kill",
        "pkill",
        "killall",
        "curl",
        "wget",
        "scp",
        "rsync",
    }
)
"""Programs a prefix rule would let run anything, or destroy anything: "always" saves the exact line."""

_PYTHON = re.compile(r"python(?:[23](?:\.\d+)?)?")
_MODULE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_SUBCOMMAND = re.compile(r"[A-Za-z][\w-]*")
_TARGET = re.compile(r"[A-Za-z_][\w:.-]*")
_GLOB_SPECIAL = re.compile(r"([*?\[\]\\!#])")
_MOVES = ("cd", "pushd", "popd")


def suggested_rule(call: Call, line: CommandLine | None, hidden: str | None) -> Rule | None:
    """The rule "always" would save for ``call`` (None: nothing sensible to save)."""
    if call.traits.kind == "execute":
        return _command_rule(call, line, hidden)
    if call.traits.kind == "network":
        host = url_host(call.args.get(call.traits.key_argument or ""))
        return Rule(call.tool, f"domain:{host}") if host else None
    paths = paths_of(call)
    if not paths:
        return None
    return Rule(call.tool, _path_pattern(paths[0], call.workspace, call.home))


def command_prefix(words: tuple[str, ...]) -> tuple[str, ...] | None:
    """The words a prefix rule for this simple command names (the table above); None: save the exact line."""
    if not words:
        return None
    name = posixpath.basename(words[0].replace("\\", "")) or words[0]
    if _PYTHON.fullmatch(name):
        if len(words) > 2 and words[1] == "-m" and _MODULE.fullmatch(words[2]):
            module = command_prefix(words[2:]) if words[2] in MULTI_COMMAND else (words[2],)
            return (words[0], "-m", *module) if module is not None else None
        return None
    if name in EXACT_ONLY:
        return None
    if name not in MULTI_COMMAND:
        return (words[0],)
    if len(words) < 2 or not _SUBCOMMAND.fullmatch(words[1]) or (name, words[1]) in EXACT_SUBCOMMANDS:
        return None
    runs_program = RUNNERS.get((name, words[1]))
    if runs_program is not None:
        if len(words) < 3 or not _TARGET.fullmatch(words[2]):
            return None
        inner = command_prefix(words[2:]) if runs_program else (words[2],)
        return (words[0], words[1], *inner) if inner is not None else None
    return (words[0], words[1])


def _command_rule(call: Call, line: CommandLine | None, hidden: str | None) -> Rule | None:
    command = call.command()
    if not isinstance(command, str) or not command.strip():
        return None
    exact = Rule(call.tool, command.strip())
    if hidden or line is None:
        return exact
    commands = [cmd for cmd in line.written if cmd.words or cmd.assignments or cmd.redirects]
    moves = [cmd for cmd in commands if cmd.words and cmd.words[0] in _MOVES and not cmd.redirects]
    rest = [cmd for cmd in commands if cmd not in moves]
    if len(rest) != 1 or rest[0].redirects or rest[0].assignments:
        return exact
    prefix = command_prefix(rest[0].words)
    return Rule(call.tool, " ".join(prefix) + ":*") if prefix is not None else exact


def in_words(rule: Rule, *, kind: str) -> str:
    """What ``rule`` allows, as the approval question says it after "don't ask again for".

    "`python3 -m pytest` commands in this folder", "edit_file on `NOTES.md`":
    paths are said relative to the workspace, without the anchoring ``/`` the
    saved rule keeps (Claude Code's "relative to the settings file").
    """
    pattern = rule.pattern
    if pattern is None:
        return f"every {rule.tool} call"
    if kind == "execute":
        return f"`{pattern[:-2]}` commands in this folder" if pattern.endswith(":*") else "this exact command in this folder"
    if kind == "network" and pattern.startswith("domain:"):
        return f"{rule.tool} from `{pattern[len('domain:') :]}`"
    shown = pattern[1:] if pattern.startswith("//") else pattern.removeprefix("/")
    if shown == "**":
        return f"{rule.tool} on every file in this folder"
    if shown.endswith("/**"):
        return f"{rule.tool} on files in `{shown[:-2]}`"
    return f"{rule.tool} on `{shown}`"


def _path_pattern(path: Path, workspace: Path, home: Path) -> str:
    for base, anchor in ((workspace, ""), (home, "~/"), (Path("/"), "//")):
        try:
            relative = path.relative_to(base)
        except ValueError:
            continue
        parts = [_escape(part) for part in relative.parts]
        if anchor == "" and len(parts) == 1:
            return "/" + parts[0]
        folder = "/".join(parts[:-1])
        return f"{anchor}{folder}/**" if folder else f"{anchor}**"
    return _escape(path.as_posix())


def _escape(part: str) -> str:
    return _GLOB_SPECIAL.sub(r"\\\1", part)
