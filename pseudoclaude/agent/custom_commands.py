"""Custom slash commands: Markdown prompt templates the user keeps in command folders.

Read where Claude Code users already keep them, highest precedence first:
``.pseudoclaude/commands/`` and ``.claude/commands/`` in the workspace, then
``<PSEUDOCLAUDE_HOME>/commands/`` and ``~/.claude/commands/``. A file
``frontend/review.md`` is ``/frontend:review``. A file's text is a prompt for
the model, never run by us, so reading a project's commands needs no trust;
its ``allowed-tools`` would loosen permissions, though, so a project command's
list applies only in a trusted workspace (``CommandSet.expand`` says when it
is ignored). The front matter is the small ``key: value`` subset Claude Code's
files use (quoted or bare scalars, ``[a, b]`` lists); anything else in it is
ignored, never executed.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Mapping

from pseudoclaude.llm import provider_for_model
from pseudoclaude.tools.permissions import Rule, RuleSyntaxError
from pseudoclaude.trust import WorkspaceTrust

CommandScope = Literal["project", "user"]
MAX_COMMAND_BYTES = 256 * 1024
_PLACEHOLDER = re.compile(r"\$(ARGUMENTS|[1-9])")


@dataclass(frozen=True)
class CustomCommand:
    """One command file: its slash name, where it came from and what its front matter says."""

    name: str
    path: Path
    scope: CommandScope
    body: str
    description: str = ""
    argument_hint: str = ""
    model: str | None = None
    allowed_tools: tuple[str, ...] = ()

    @property
    def help(self) -> str:
        hint = f" {self.argument_hint}" if self.argument_hint else ""
        return f"{self.description or _first_line(self.body)}{hint} ({self.scope})"

    def expand(self, arguments: str) -> str:
        """The prompt: ``$ARGUMENTS`` is the whole argument text, ``$1``..``$9`` its shell-like words.

        A template without a placeholder gets the arguments appended (as Claude Code does).
        """
        words = _words(arguments)

        def value(match: re.Match[str]) -> str:
            key = match.group(1)
            if key == "ARGUMENTS":
                return arguments
            index = int(key) - 1
            return words[index] if index < len(words) else ""

        if _PLACEHOLDER.search(self.body):
            return _PLACEHOLDER.sub(value, self.body).strip()
        return self.body.strip() + (f"\n\nARGUMENTS: {arguments}" if arguments else "")


@dataclass(frozen=True)
class Expansion:
    """A command line turned into a prompt, with the run's overrides and notices for the user."""

    command: CustomCommand
    prompt: str
    model: str | None
    allowed_tools: tuple[str, ...]
    notices: tuple[str, ...] = ()


@dataclass(frozen=True)
class CommandSet:
    """The custom commands of a workspace, by slash name (the first found wins)."""

    commands: tuple[CustomCommand, ...] = ()
    problems: tuple[str, ...] = ()

    def find(self, name: str) -> CustomCommand | None:
        return next((command for command in self.commands if command.name == name), None)

    def expand(self, line: str, *, trusted: bool, provider: str) -> Expansion | None:
        """The expansion of ``/name args`` when ``name`` is a custom command (None otherwise).

        A ``model`` of another provider than the session's cannot be honoured: it is dropped with a notice.
        """
        name, _, arguments = line.strip().partition(" ")
        command = self.find(name)
        if command is None:
            return None
        notices: list[str] = []
        allowed = command.allowed_tools
        if allowed and command.scope == "project" and not trusted:
            notices.append(f"{command.name}: allowed-tools ignored (project command in an untrusted workspace; `pseudoclaude trust` to review)")
            allowed = ()
        model = command.model
        if model is not None and provider_for_model(model) != provider:
            notices.append(f"{command.name}: model {model!r} ignored (not a known {provider} model)")
            model = None
        valid = tuple(text for text in allowed if _valid_rule(text))
        notices.extend(f"{command.name}: allowed-tools entry {text!r} is not a valid rule; ignored" for text in allowed if text not in valid)
        return Expansion(command, command.expand(arguments.strip()), model, valid, tuple(notices))


def workspace_trusted(trust: WorkspaceTrust) -> bool:
    """Whether the user trusts this folder: ``--trust-workspace``, ``trustedWorkspaces``, or a "yes" to its trust question.

    Every entry approved is not enough when all of them are allow rules: an "always" answer
    records its rule as approved too (``local_rule_sink``), and a repository can add to its
    settings the rule a user is likely to have said "always" to (``Bash(npm test:*)``). Only the
    trust question approves a hook, a server, a mode, a sessions folder or a base URL.
    """
    if trust.trusted_by is not None:
        return True
    return not trust.ignored and not trust.pending and any(entry.kind != "allow" for entry in trust.entries)


def _valid_rule(text: str) -> bool:
    try:
        Rule.parse(text)
    except RuleSyntaxError:
        return False
    return True


def command_dirs(workspace: Path, home: Path, user_home: Path | None = None) -> tuple[tuple[Path, CommandScope], ...]:
    """The folders searched, highest precedence first."""
    user = user_home if user_home is not None else Path.home()
    return (
        (workspace / ".pseudoclaude" / "commands", "project"),
        (workspace / ".claude" / "commands", "project"),
        (home / "commands", "user"),
        (user / ".claude" / "commands", "user"),
    )


def load_custom_commands(workspace: Path, home: Path, user_home: Path | None = None) -> CommandSet:
    """Every readable command file; a file that cannot be read or parsed is a problem line, not an error."""
    found: dict[str, CustomCommand] = {}
    problems: list[str] = []
    for folder, scope in command_dirs(workspace, home, user_home):
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*.md")):
            name = "/" + ":".join(path.relative_to(folder).with_suffix("").parts)
            if name in found or not path.is_file():
                continue
            if scope == "project" and not Path(os.path.realpath(path)).is_relative_to(os.path.realpath(workspace)):
                problems.append(f"{path}: a link out of the workspace, not loaded")
                continue
            try:
                found[name] = parse_command(name, path, scope)
            except (OSError, ValueError) as error:
                problems.append(f"{path}: {error}")
    return CommandSet(tuple(sorted(found.values(), key=lambda c: c.name)), tuple(problems))


def parse_command(name: str, path: Path, scope: CommandScope) -> CustomCommand:
    if path.stat().st_size > MAX_COMMAND_BYTES:
        raise ValueError(f"larger than {MAX_COMMAND_BYTES // 1024} KiB")
    meta, body = parse_front_matter(path.read_text(encoding="utf-8", errors="replace"))
    return CustomCommand(
        name=name,
        path=path,
        scope=scope,
        body=body,
        description=_scalar(meta.get("description")),
        argument_hint=_scalar(meta.get("argument-hint")),
        model=_scalar(meta.get("model")) or None,
        allowed_tools=_list(meta.get("allowed-tools")),
    )


FrontValue = str | list[str]


def parse_front_matter(text: str) -> tuple[Mapping[str, FrontValue], str]:
    """``---`` delimited ``key: value`` lines at the top, and the rest of the text.

    Values: a bare or quoted string, or a ``[a, "b"]`` list; lines indented or
    starting with ``-`` continue a list (YAML's block style). Nothing else.
    """
    lines = text.lstrip("\ufeff").splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return {}, text
    meta: dict[str, FrontValue] = {}
    key: str | None = None
    for number, line in enumerate(lines[1:], start=1):
        stripped = line.strip()
        if stripped == "---":
            return meta, "".join(lines[number + 1 :])
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("- ") and key is not None:
            current = meta.get(key)
            items = current if isinstance(current, list) else ([current] if current else [])
            meta[key] = [*items, _unquote(stripped[2:].strip())]
            continue
        name, colon, value = stripped.partition(":")
        if not colon:
            continue
        key = name.strip()
        meta[key] = _value(value.strip())
    return {}, text


def _value(raw: str) -> FrontValue:
    if raw.startswith("[") and raw.endswith("]"):
        return [_unquote(item.strip()) for item in _split_list(raw[1:-1]) if item.strip()]
    return _unquote(raw)


def _split_list(text: str) -> list[str]:
    """Comma-separated items; commas inside parentheses or quotes (``Bash(git add:*, x)``) do not split."""
    items, depth, quote, current = [], 0, "", ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "," and depth <= 0:
            items.append(current)
            current = ""
            continue
        current += char
    items.append(current)
    return items


def _unquote(raw: str) -> str:
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        return raw[1:-1]
    return raw


def _scalar(value: FrontValue | None) -> str:
    if value is None:
        return ""
    return ", ".join(value) if isinstance(value, list) else value


def _list(value: FrontValue | None) -> tuple[str, ...]:
    if value is None:
        return ()
    items = value if isinstance(value, list) else _split_list(value)
    return tuple(item.strip() for item in items if item.strip())


def _words(arguments: str) -> list[str]:
    try:
        return shlex.split(arguments)
    except ValueError:
        return arguments.split()


def _first_line(text: str) -> str:
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return line[:60] + ("…" if len(line) > 60 else "")
