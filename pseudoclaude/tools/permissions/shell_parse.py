"""Parse a shell command line into the simple commands it would run.

The hard-deny list and the permission rules both judge a command by its
*simple commands* (``rm -rf x`` inside ``a && (b | rm -rf x)``), never by its
text, so a dangerous command cannot hide in a chain, a subshell, a group, a
function body or a ``$(...)``/backtick/``<(...)`` substitution.

``bashlex`` parses real bash grammar; where it gives up, the over-splitting
fallback of :mod:`shell_fallback` takes over; when neither can tokenize,
:class:`ShellParseError` is raised and callers deny in doubt. Subshells and
pipeline stages do not leak their ``cd`` outward.
"""

from __future__ import annotations

import codecs
import re
import shlex
from typing import Any

from pseudoclaude.llm import parser_ready
from pseudoclaude.tools.permissions.shell_fallback import parse_with_shlex
from pseudoclaude.tools.permissions.shell_model import (
    ECHOES,
    FunctionDef,
    Redirect,
    ShellParseError,
    ShellScript,
    SimpleCommand,
    change_dir,
    freeze,
    is_cd,
    record_assignment,
    union_dirs,
)

__all__ = ["FunctionDef", "Redirect", "ShellParseError", "ShellScript", "SimpleCommand", "parse_script"]

_SEQUENCE_OPS = frozenset({";", "&", "||", "\n", ";;"})


def parse_script(command: str) -> ShellScript:
    """Every simple command in ``command``; raises :class:`ShellParseError` if unparseable."""
    parser_ready()  # a headless run's warm-up thread imports it ahead (llm/warmup.py): join it, never import beside it
    import bashlex  # lazy: its parser tables are slow to import

    command = decode_ansi_c_quotes(command)
    try:
        trees = bashlex.parse(command)
    except Exception:  # bashlex raises ParsingError, NotImplementedError, MatchedPairError, ...
        return parse_with_shlex(command, parse_script)
    walker = _BashlexWalker()
    dirs: tuple[str | None, ...] = (".",)
    try:
        for tree in trees:
            dirs = union_dirs(dirs, walker.visit(tree, dirs))
    except RecursionError:
        raise ShellParseError("the command nests too deeply to be judged") from None
    return ShellScript(tuple(walker.commands), tuple(walker.functions), freeze(walker.variables))


class _BashlexWalker:
    def __init__(self) -> None:
        self.commands: list[SimpleCommand] = []
        self.functions: list[FunctionDef] = []
        self.variables: dict[str, list[str]] = {}

    def visit(self, node: Any, dirs: tuple[str | None, ...], stdin: tuple[str, ...] | None = None) -> tuple[str | None, ...]:
        kind = node.kind
        if kind == "command":
            return self._command(node, dirs, stdin)
        if kind == "list":
            return self._sequence(node.parts, dirs)
        if kind == "pipeline":
            self._pipeline(node.parts, dirs)
            return dirs
        if kind == "compound":
            return self._compound(node, dirs)
        if kind == "function":
            self._function(node, dirs)
            return dirs
        if kind == "for":
            self._loop_variable(node.parts)
        after = dirs
        for child in _children(node):
            if child.kind == "word":
                self._substitutions(child, dirs)
            else:
                after = union_dirs(after, self.visit(child, dirs))
        return after

    def _loop_variable(self, parts: list[Any]) -> None:
        words = [p.word for p in parts if p.kind == "word"]
        if words:
            self.variables.setdefault(words[0], []).extend(words[1:] or [""])

    def _sequence(self, parts: list[Any], dirs: tuple[str | None, ...]) -> tuple[str | None, ...]:
        items = [p for p in parts if p.kind != "operator"]
        ops = [p.op for p in parts if p.kind == "operator"]
        state = fallback = dirs
        for index, child in enumerate(items):
            op = ops[index] if index < len(ops) else None
            after = self.visit(child, state)
            if child.kind == "command" and is_cd(_words_of(child)) and op != "&&":
                state = union_dirs(state, after)
            else:
                state = after
            if op is None or op in _SEQUENCE_OPS:
                state = union_dirs(state, fallback)
                fallback = state
        return state

    def _pipeline(self, parts: list[Any], dirs: tuple[str | None, ...]) -> None:
        stdin: tuple[str, ...] | None = None
        for part in parts:
            if part.kind in ("pipe", "reservedword"):
                continue
            self.visit(part, dirs, stdin)
            words = _words_of(part) if part.kind == "command" else ()
            stdin = words[1:] if words and words[0] in ECHOES else None

    def _compound(self, node: Any, dirs: tuple[str | None, ...]) -> tuple[str | None, ...]:
        redirects = tuple(_redirect(r, self, dirs) for r in getattr(node, "redirects", []) or [])
        if redirects:
            self.commands.append(SimpleCommand((), redirects=redirects, dirs=dirs))
        inner = [p for p in node.list if p.kind != "reservedword"]
        opener = node.list[0].word if node.list and node.list[0].kind == "reservedword" else ""
        if opener == "{":
            return union_dirs(dirs, self._sequence(inner, dirs))
        after = dirs
        for child in inner:
            after = union_dirs(after, self.visit(child, dirs))
        return dirs if opener == "(" else after

    def _function(self, node: Any, dirs: tuple[str | None, ...]) -> None:
        name = next(p.word for p in node.parts if p.kind == "word")
        body = node.parts[-1]
        self.visit(body, dirs)
        self.functions.append(FunctionDef(name, _forks_itself(body, name)))

    def _command(self, node: Any, dirs: tuple[str | None, ...], stdin: tuple[str, ...] | None) -> tuple[str | None, ...]:
        words: list[str] = []
        assignments: list[str] = []
        redirects: list[Redirect] = []
        for part in node.parts:
            if part.kind == "redirect":
                redirects.append(_redirect(part, self, dirs))
                continue
            self._substitutions(part, dirs)
            if part.kind == "assignment" and not words:
                assignments.append(part.word)
                record_assignment(self.variables, part.word)
            elif part.kind in ("word", "assignment"):
                words.append(part.word)
                if words[0] in ("export", "declare", "local", "readonly", "typeset"):
                    record_assignment(self.variables, part.word)
        cmd = SimpleCommand(tuple(words), tuple(assignments), tuple(redirects), dirs, stdin)
        self.commands.append(cmd)
        return change_dir(cmd.words, dirs) if is_cd(cmd.words) else dirs

    def _substitutions(self, node: Any, dirs: tuple[str | None, ...]) -> None:
        for part in getattr(node, "parts", None) or []:
            if part.kind in ("commandsubstitution", "processsubstitution"):
                self.visit(part.command, dirs)
            else:
                self._substitutions(part, dirs)


def _children(node: Any) -> list[Any]:
    children = list(getattr(node, "parts", None) or getattr(node, "list", None) or [])
    return [c for c in children if c.kind not in ("reservedword", "operator", "pipe")]


def _words_of(node: Any) -> tuple[str, ...]:
    return tuple(p.word for p in node.parts if p.kind == "word")


def _redirect(node: Any, walker: _BashlexWalker, dirs: tuple[str | None, ...]) -> Redirect:
    output = node.output
    if hasattr(output, "kind"):
        walker._substitutions(output, dirs)
        target = output.word
    else:
        target = str(output)
    heredoc = getattr(node, "heredoc", None)
    text = None
    if heredoc is not None:
        lines = heredoc.value.split("\n")
        text = "\n".join(lines[:-1] if lines and lines[-1].strip() == target else lines)
    return Redirect(node.type, target, text)


def _forks_itself(body: Any, name: str) -> bool:
    calls_in_pipe = background = calls = False

    def scan(node: Any, in_pipe: bool) -> None:
        nonlocal calls_in_pipe, background, calls
        if node.kind == "operator" and node.op == "&":
            background = True
        if node.kind == "command" and _words_of(node)[:1] == (name,):
            calls = True
            calls_in_pipe = calls_in_pipe or in_pipe
        for child in getattr(node, "parts", None) or getattr(node, "list", None) or []:
            scan(child, in_pipe or node.kind == "pipeline")

    scan(body, False)
    return calls_in_pipe or (calls and background)


def decode_ansi_c_quotes(command: str) -> str:
    """Rewrite unquoted ``$'...'`` strings as plain single-quoted text (bashlex garbles them)."""
    out: list[str] = []
    index, in_double = 0, False
    while index < len(command):
        char = command[index]
        if char == "\\":
            out.append(command[index : index + 2])
            index += 2
            continue
        if char == '"':
            in_double = not in_double
        elif char == "'" and not in_double:
            end = command.find("'", index + 1)
            end = len(command) if end < 0 else end
            out.append(command[index : end + 1])
            index = end + 1
            continue
        elif char == "$" and not in_double and command.startswith("$'", index):
            match = re.match(r"\$'((?:[^'\\]|\\.)*)'", command[index:], re.DOTALL)
            if match:
                try:
                    decoded = codecs.decode(match.group(1), "unicode_escape")
                except (UnicodeDecodeError, ValueError):
                    decoded = match.group(1)
                out.append(shlex.quote(decoded))
                index += match.end()
                continue
        out.append(char)
        index += 1
    return "".join(out)
