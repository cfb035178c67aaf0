"""The fallback parser, for what bashlex cannot parse.

``case``, ``[[ ]]``, ``$(( ))``, ``time``, arrays... make bashlex give up. This
tokenizer then ends a command at every operator character, which over-splits
(a quoted ``&&`` starts a new command) but never hides one; substitutions
inside double quotes are found by scanning the raw text, and function
definitions by pattern. Unbalanced quoting raises :class:`ShellParseError`.
"""

from __future__ import annotations

import re
import shlex
from typing import Callable

from pseudoclaude.tools.permissions.hidden import scan
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

_KEYWORDS = frozenset({"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "{", "}", "!", "esac", "function"})
_PUNCTUATION = set("();<>|&")


def parse_with_shlex(command: str, parse: Callable[[str], ShellScript]) -> ShellScript:
    """Over-splitting fallback: every operator character ends a command."""
    text = _without_arithmetic(command).replace("\\\n", "").replace("\n", " ; ").replace("`", " ; ")
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError as exc:
        raise ShellParseError(f"unbalanced quoting ({exc})") from None
    commands: list[SimpleCommand] = []
    variables: dict[str, list[str]] = {}
    dirs: tuple[str | None, ...] = (".",)
    words: list[str] = []
    redirects: list[Redirect] = []
    stdin: tuple[str, ...] | None = None
    index = 0

    def finish(separator: str) -> None:
        nonlocal words, redirects, dirs, stdin
        while words and words[0] in _KEYWORDS:
            words.pop(0)
        assignments: list[str] = []
        while words and re.match(r"[A-Za-z_]\w*\+?=", words[0]):
            assignments.append(words.pop(0))
            record_assignment(variables, assignments[-1])
        if words or redirects or assignments:
            cmd = SimpleCommand(tuple(words), tuple(assignments), tuple(redirects), dirs, stdin)
            commands.append(cmd)
            if is_cd(cmd.words):
                dirs = union_dirs(dirs, change_dir(cmd.words, dirs))
            stdin = cmd.args if separator == "|" and cmd.name in ECHOES else None
        else:
            stdin = None
        words, redirects = [], []

    while index < len(tokens):
        token = tokens[index]
        index += 1
        if token and set(token) <= _PUNCTUATION:
            if ("<" in token or ">" in token) and "(" not in token:
                target = tokens[index] if index < len(tokens) else ""
                index += 1
                redirects.append(Redirect(token, target))
                continue
            if words and words[-1].endswith("$") and token.startswith("("):
                words[-1] = words[-1][:-1]
                if not words[-1]:
                    words.pop()
            finish(token)
            continue
        words.append(token)
    finish(";")
    functions: list[FunctionDef] = []
    for inner in _outer_bodies(command):
        nested = parse(inner)
        commands.extend(nested.commands)
        functions.extend(nested.functions)
    functions.extend(_functions_by_pattern(command))
    return ShellScript(tuple(commands), tuple(functions), freeze(variables), parser="shlex")


_FUNCTION_PATTERNS = (
    re.compile(r"([^\s(){}|&;<>'\"]+)\s*\(\s*\)\s*[{(](.*?)[})]", re.DOTALL),
    re.compile(r"\bfunction\s+([^\s(){}|&;<>'\"]+)\s*(?:\(\s*\))?\s*[{(](.*?)[})]", re.DOTALL),
)


def _functions_by_pattern(text: str) -> list[FunctionDef]:
    """Function definitions found textually, for the fallback parser."""
    found: list[FunctionDef] = []
    for pattern in _FUNCTION_PATTERNS:
        for match in pattern.finditer(text):
            name, body = match.groups()
            calls = name in re.split(r"[\s|&;]+", body)
            found.append(FunctionDef(name, calls and ("|" in body or "&" in body)))
    return found


def _outer_bodies(text: str) -> list[str]:
    """The outermost substitution bodies (each is parsed again, which finds the ones nested in it)."""
    out: list[str] = []
    for found in scan(text):
        if found.kind == "arithmetic":
            out.extend(_outer_bodies(found.body))
        elif found.body.strip():
            out.append(found.body)
    return out


def _without_arithmetic(command: str) -> str:
    """``command`` with each ``$((...))`` replaced by ``0``, so its operators do not split commands.

    What runs inside one (``$(( $(cmd) ))``) is still found: the substitution
    bodies are taken from the original text.
    """
    spans = [f.span for f in scan(command) if f.kind == "arithmetic" and f.span != (0, 0)]
    for start, end in sorted(spans, reverse=True):
        command = command[:start] + "0" + command[end:]
    return command
