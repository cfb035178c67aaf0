"""What an "always" answer saves: the narrowest rule a person would mean.

"Always" on one edit must not become a bare ``edit_file`` rule that allows
every later edit anywhere, and "always" on ``npm test -- -x`` should not save
that exact line, which never matches again. So:

* an edit suggests the folder it is in (``edit_file(src/app/**)``), or the
  file itself for a file at the workspace root (``edit_file(/README.md)``);
  outside the workspace the path is anchored (``~/`` or ``//``);
* a fetch suggests its domain (``web_fetch(domain:docs.python.org)``);
* a command suggests its prefix: the program and its subcommand
  (``run_command(npm test:*)``, ``run_command(cargo build:*)``). A program
  that runs whatever it is given (``python``, ``bash``, ``sudo``, ``xargs``...)
  would make a prefix rule allow anything, so it, a compound line, and a line
  hiding code (which prefix rules never match) get the exact line instead.

Protected paths (:mod:`protected`) are never covered: the policy asks for them
before it looks at any allow rule, and saves nothing for them.
"""

from __future__ import annotations

import re
from pathlib import Path

from pseudoclaude.tools.permissions.rules import Call, Rule, paths_of, url_host
from pseudoclaude.tools.permissions.unwrap import CommandLine

RUNS_ANYTHING = frozenset({
    "bash", "sh", "zsh", "dash", "fish", "ksh", "python", "python3", "python2", "node", "deno", "bun", "ruby", "perl",
    "php", "lua", "env", "sudo", "doas", "xargs", "exec", "eval", "command", "nohup", "timeout", "time", "nice",
    "watch", "ssh", "docker", "kubectl", "npx", "uvx", "pipx", "find", "awk", "sed", "source", ".",
})
_SUBCOMMAND = re.compile(r"[A-Za-z][\w:.-]*")
_GLOB_SPECIAL = re.compile(r"([*?\[\]\\!#])")


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


def _command_rule(call: Call, line: CommandLine | None, hidden: str | None) -> Rule | None:
    command = call.command()
    if not isinstance(command, str) or not command.strip():
        return None
    exact = Rule(call.tool, command.strip())
    commands = [cmd for cmd in line.written if cmd.words] if line is not None else []
    if hidden or len(commands) != 1 or commands[0].redirects or commands[0].assignments:
        return exact
    words = commands[0].words
    name = commands[0].name
    if name in RUNS_ANYTHING or name != words[0]:
        return exact
    prefix = [name]
    if len(words) > 1 and _SUBCOMMAND.fullmatch(words[1]) and "/" not in words[1]:
        prefix.append(words[1])
    return Rule(call.tool, " ".join(prefix) + ":*")


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
