"""What a static reading of a command line cannot see through.

A prefix allow rule (``echo:*``) vouches for the words the user can read, not
for code the shell computes while running the line. So a line containing any
of these is *not matched by a prefix rule* (it asks, or is denied headless),
whatever its first word:

* a command substitution ``$(...)`` or backticks anywhere: in double quotes,
  inside ``${X:-...}``/``${X:=...}``/``${X:?...}``/``${X[...]}``, in the body of
  a heredoc whose delimiter is unquoted (where single quotes do not quote);
* a process substitution ``<(...)``/``>(...)``;
* arithmetic (``$((...))``, ``((...))``, ``let``, ``[[ a -eq b ]]``) naming a
  variable: bash evaluates a variable holding ``a[$(cmd)]`` as code;
* an assignment whose value holds ``$(`` or a backtick (arithmetic, ``eval``
  or ``${!x}`` may run it later), and an array subscript holding one even in
  single quotes (``printf -v 'a[$(cmd)]' x`` and ``[ -v 'a[$(cmd)]' ]`` run it);
* a command name that is not a literal word (``$t``, ``"$(echo touch)"``,
  ``/bin/r?``, ``{rm,-rf,x}``), which also covers ``eval``/``bash -c`` of a
  computed string once :mod:`unwrap` has re-parsed it;
* ``${!name}`` (indirection evaluates a subscript in the value) and ``${name@P}``
  (prompt expansion runs ``$(...)`` in the value), whatever the value looks like;
* ``source``/``.`` of a computed path; ``git -c``/``--config-env`` (a config
  value can define an alias, a pager or an fsmonitor that runs code) and a git
  subcommand that is not a built-in one (it may be an alias).

Exact-line rules (what an "always" answer saves) still match: the user read
that exact line. The bodies found here are also handed to :mod:`unwrap`, so
deny rules and the hard-deny list see ``touch C`` in ``${X:-$(touch C)}``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Literal

from pseudoclaude.tools.permissions.shell_model import SimpleCommand

Kind = Literal["command", "backtick", "process", "arithmetic"]

_NON_LITERAL_NAME = re.compile(r"[$`*?\[{]")
_ARITH_NAMES = re.compile(r"[A-Za-z_$\[]")
_SUBSCRIPT_CODE = re.compile(r"\w\[[^\]]*(?:\$\(|`)")
_ARITH_TEST = re.compile(r"\[\[(?:(?!\]\]).)*-(?:eq|ne|lt|le|gt|ge)\b(?:(?!\]\]).)*\]\]", re.DOTALL)
_SHELL_WORD_END = " \t\n;|&<>()"
_EVALUATING_EXPANSION = re.compile(r"\$\{![A-Za-z_]\w*[^\[]|\$\{![A-Za-z_]\w*$|\$\{[^}]*@P\}")

GIT_BUILTINS = frozenset(
    """add am annotate apply archive bisect blame branch bundle cat-file check-attr check-ignore check-mailmap
    check-ref-format checkout checkout-index cherry cherry-pick citool clean clone column commit commit-graph
    commit-tree config count-objects credential describe diff diff-files diff-index diff-tree difftool fetch
    fetch-pack filter-branch for-each-ref for-each-repo format-patch fsck gc get-tar-commit-id grep gui
    hash-object help init instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit
    maintenance merge merge-base merge-file merge-tree mergetool mktag mktree mv name-rev notes pack-objects
    prune pull push range-diff read-tree rebase reflog remote repack replace request-pull rerere reset restore
    rev-list rev-parse revert rm send-email shortlog show show-branch show-ref sparse-checkout stash status
    stripspace submodule switch symbolic-ref tag unpack-objects update-index update-ref var verify-commit
    verify-pack verify-tag version whatchanged worktree write-tree""".split()
)
# git options before the subcommand; the value of those in the first set is a separate word
GIT_GLOBAL_WITH_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env", "--super-prefix"})


@dataclass(frozen=True)
class Found:
    """One expansion; ``span`` is where the whole of it (``$((``...``))``) lies in the scanned text."""

    kind: Kind
    body: str
    span: tuple[int, int] = (0, 0)


def scan(text: str) -> list[Found]:
    """Every substitution and arithmetic expansion in ``text``, as bash would see them."""
    return _Scanner(text).run()


def substitution_bodies(text: str) -> list[str]:
    """The command texts of every ``$(...)``, backtick and process substitution, nested ones included."""
    out: list[str] = []
    for found in scan(text):
        if found.kind == "arithmetic":
            out.extend(substitution_bodies(found.body))
        elif found.body.strip():
            out.append(found.body)
            out.extend(substitution_bodies(found.body))
    return out


def hidden_reason(command: str, commands: Iterable[SimpleCommand]) -> str | None:
    """Why ``command`` hides code from a prefix rule, or None when every part of it is literal."""
    for found in scan(command):
        if found.kind == "command":
            return "it runs a command substitution `$(...)` whose output becomes part of the command"
        if found.kind == "backtick":
            return "it runs a backtick command substitution whose output becomes part of the command"
        if found.kind == "process":
            return "it runs a process substitution `<(...)`/`>(...)`"
        if _ARITH_NAMES.search(found.body):
            return "its arithmetic names a variable, which bash may evaluate as code"
    if _EVALUATING_EXPANSION.search(command):
        return "`${!name}` or `${name@P}` evaluates a variable's value (a subscript, a prompt string) and may run `$(...)` hidden in it"
    if _SUBSCRIPT_CODE.search(command):
        return "an array subscript holds `$(...)` or backticks, which bash runs when it evaluates it (printf -v, test -v, arithmetic), even in single quotes"
    if _ARITH_TEST.search(command):
        return "its `[[ ... -eq ... ]]` test evaluates variables as arithmetic, which may run code"
    for cmd in commands:
        why = _command_hidden(cmd)
        if why:
            return why
    return None


def non_literal_name(cmd: SimpleCommand) -> bool:
    if not cmd.words or cmd.words[0] in ("[", "[["):
        return False
    return not cmd.words[0] or bool(_NON_LITERAL_NAME.search(cmd.words[0]))


def git_subcommand(args: tuple[str, ...]) -> tuple[int, tuple[str, ...]]:
    """The index of git's subcommand in ``args`` (len(args) if none) and the global options before it."""
    index = 0
    while index < len(args):
        arg = args[index]
        if not arg.startswith("-"):
            break
        index += 2 if arg in GIT_GLOBAL_WITH_VALUE else 1
    return index, args[:index]


def _command_hidden(cmd: SimpleCommand) -> str | None:
    for word in (*cmd.assignments, *(cmd.args if cmd.name in ("export", "declare", "local", "readonly", "typeset") else ())):
        if "$(" in word or "`" in word:
            return f"the assignment `{word}` stores code that a later expansion may run"
    if non_literal_name(cmd):
        return f"the command name `{cmd.words[0]}` is computed when the line runs"
    name, args = cmd.name, cmd.args
    if name == "let" or (name in ("declare", "typeset", "local") and any(a.startswith("-") and "i" in a for a in args)):
        return f"`{name}` evaluates its arguments as arithmetic, which may run code"
    if name in ("source", ".") and args and ("$" in args[0] or "`" in args[0]):
        return f"`{name}` runs a file whose name is computed when the line runs"
    if name == "git":
        index, options = git_subcommand(args)
        if any(o == "-c" or o.startswith(("--config-env", "-c")) for o in options):
            return "`git -c`/`--config-env` sets configuration that can run code (aliases, pager, fsmonitor)"
        if index < len(args) and args[index] not in GIT_BUILTINS:
            return f"`git {args[index]}` is not a built-in git command; it may be an alias that runs anything"
    return None


class _Scanner:
    """A small bash lexer: quotes, escapes, ``$(``/backticks/``<(``, arithmetic and heredoc bodies."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.found: list[Found] = []
        self.heredocs: list[tuple[str, bool, bool]] = []

    def run(self) -> list[Found]:
        self._scan(0, len(self.text), quotes=True)
        return self.found

    def _scan(self, start: int, stop: int, *, quotes: bool) -> None:
        text, i, in_double = self.text, start, False
        while i < stop:
            char = text[i]
            if char == "\\":
                i += 2
            elif text.startswith("$'", i) and quotes and not in_double:
                i = self._closing_ansi_c(i + 2, stop)
            elif char == "'" and quotes and not in_double:
                end = text.find("'", i + 1)
                i = stop if end < 0 else end + 1
            elif char == '"' and quotes:
                in_double = not in_double
                i += 1
            elif char == "\n" and quotes and not in_double and self.heredocs:
                i = self._heredoc_bodies(i + 1, stop)
            elif char == "`":
                end = self._closing_backtick(i + 1, stop)
                self.found.append(Found("backtick", text[i + 1 : end]))
                i = end + 1
            elif text.startswith("$((", i):
                end = self._closing(i + 1, stop)
                self.found.append(Found("arithmetic", text[i + 3 : max(i + 3, end - 1)], (i, end + 1)))
                i = end + 1
            elif text.startswith("$(", i):
                end = self._closing(i + 1, stop)
                self.found.append(Found("command", text[i + 2 : end]))
                i = end + 1
            elif quotes and not in_double and char in "<>" and text.startswith("(", i + 1):
                end = self._closing(i + 1, stop)
                self.found.append(Found("process", text[i + 2 : end]))
                i = end + 1
            elif quotes and not in_double and text.startswith("((", i) and (i == 0 or text[i - 1] in " \t\n;&|("):
                end = self._closing(i, stop)
                self.found.append(Found("arithmetic", text[i + 2 : max(i + 2, end - 1)]))
                i = end + 1
            elif quotes and not in_double and text.startswith("<<", i) and not text.startswith("<<<", i):
                i = self._heredoc_start(i + 2, stop)
            else:
                i += 1

    def _closing(self, open_index: int, stop: int) -> int:
        """The index of the ``)`` closing the ``(`` at ``open_index`` (quotes skipped), or ``stop``."""
        text, depth, i = self.text, 0, open_index
        while i < stop:
            char = text[i]
            if char == "\\":
                i += 2
                continue
            if char in "'\"":
                end = text.find(char, i + 1)
                i = stop if end < 0 else end + 1
                continue
            if char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
                if depth == 0:
                    return i
            i += 1
        return stop

    def _closing_ansi_c(self, start: int, stop: int) -> int:
        """The index after the ``'`` closing a ``$'...'`` string, where ``\\'`` does not close it."""
        i = start
        while i < stop:
            if self.text[i] == "\\":
                i += 2
            elif self.text[i] == "'":
                return i + 1
            else:
                i += 1
        return stop

    def _closing_backtick(self, start: int, stop: int) -> int:
        i = start
        while i < stop:
            if self.text[i] == "\\":
                i += 2
                continue
            if self.text[i] == "`":
                return i
            i += 1
        return stop

    def _heredoc_start(self, i: int, stop: int) -> int:
        text = self.text
        strip = i < stop and text[i] == "-"
        i += 1 if strip else 0
        while i < stop and text[i] in " \t":
            i += 1
        start = i
        while i < stop and text[i] not in _SHELL_WORD_END:
            if text[i] in "'\"":
                end = text.find(text[i], i + 1)
                i = stop if end < 0 else end + 1
            else:
                i += 1
        word = text[start:i]
        quoted = any(c in word for c in "'\"\\")
        delimiter = re.sub(r"['\"\\]", "", word)
        if delimiter:
            self.heredocs.append((delimiter, quoted, strip))
        return i

    def _heredoc_bodies(self, i: int, stop: int) -> int:
        pending, self.heredocs = self.heredocs, []
        for delimiter, quoted, strip in pending:
            body_start = i
            while i < stop:
                end = self.text.find("\n", i, stop)
                end = stop if end < 0 else end
                line = self.text[i:end]
                if (line.lstrip("\t") if strip else line) == delimiter:
                    if not quoted:
                        self._scan(body_start, i, quotes=False)
                    i = end + 1
                    break
                i = end + 1
            else:
                if not quoted:
                    self._scan(body_start, stop, quotes=False)
        return i
