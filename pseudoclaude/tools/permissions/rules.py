"""Allow, ask and deny rules, in Claude Code's settings syntax.

A rule is ``tool`` (every call of the tool) or ``tool(pattern)``:

* ``run_command(npm test)`` matches the simple command ``npm test`` exactly;
  ``run_command(npm test:*)`` also matches ``npm test -- -x`` but not
  ``npm testing``. A pattern equal to a whole compound command line matches
  that exact line (this is what "always allow" saves).
* for ``network`` tools (``web_fetch``), ``domain:docs.python.org`` (that host)
  or ``domain:*.python.org`` (it and its subdomains);
* MCP tools by name: ``mcp__server__tool``, or every tool of a server with
  ``mcp__server`` or ``mcp__server__*`` (Claude Code's forms);
* for file tools, a gitignore-style glob on the workspace-relative ``path``
  (``edit_file(src/**)``); ``~/`` anchors it at the home directory and ``//``
  at the filesystem root.

Deny beats ask, and ask beats allow, as in Claude Code: ``Bash(git push:*)``
under ``permissions.ask`` asks even where an allow rule or the sandbox would
let the command run. Ask rules match as deny rules do (any part of a line).

Commands are judged per simple command (see :mod:`unwrap`): a deny rule hits
if it matches ANY effective simple command, including ones behind ``sudo``,
inside ``bash -c`` or hidden in ``${X:-$(...)}``, by its words or by its
meaning (:mod:`argv`: ``rm -fr ./v1`` is ``rm -rf v1``); allow rules compare
words only, and pass a line only if EVERY written simple command is allowed
(``cd`` and bare assignments need no rule), none of them redirects output into
a file, the line hides no code (:mod:`hidden`), no git command runs in a
repository whose config or hooks run code (as ``git -c`` does not pass, an
fsmonitor in a committed bare repository does not either) and no reader uses a writing
option the rule does not name (``find -delete`` under ``find:*``), so
``git status && rm -rf x`` does not pass as ``git status``. A rule equal to
the whole line (what "always" saves) matches it as written.

Which calls are commands and which arguments are paths comes from the tool's
declaration (``ToolTraits``): an ``execute`` tool's key argument is its command
line, and ``path_arguments`` (or their Claude Code spellings) are its paths.
Claude Code tool names (``Bash``, ``Edit``...) are accepted: ``Rule.parse``
keeps the name as written, and the policy resolves it to ours with the
session's tools (``Rules.resolved``).
"""

from __future__ import annotations

import functools
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from pseudoclaude.tools import ToolRegistry, ToolTraits
from pseudoclaude.tools.permissions.argv import deny_hits
from pseudoclaude.tools.permissions.hidden import hidden_reason
from pseudoclaude.tools.permissions.readonly import git_runs_repository_code, writing_options
from pseudoclaude.tools.permissions.targets import Places
from pseudoclaude.tools.permissions.shell_parse import ShellParseError, SimpleCommand
from pseudoclaude.tools.permissions.unwrap import CommandLine, analyze

_RULE = re.compile(r"\s*([A-Za-z_][\w.-]*\*?)\s*(?:\((.*)\))?\s*", re.DOTALL)
_HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})


class RuleSyntaxError(ValueError):
    """A permission rule or settings entry that cannot be understood."""


def normalize_command(text: str) -> str:
    try:
        return " ".join(shlex.split(text))
    except ValueError:
        return " ".join(text.split())


@dataclass(frozen=True)
class Rule:
    tool: str
    pattern: str | None = None

    @classmethod
    def parse(cls, text: str) -> "Rule":
        match = _RULE.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise RuleSyntaxError(f"not a permission rule: {text!r} (expected `tool` or `tool(pattern)`)")
        tool, pattern = match.groups()
        pattern = pattern.strip() if pattern is not None else None
        return cls(tool, pattern or None)

    def resolved(self, name_of: Callable[[str], str]) -> "Rule":
        """This rule with its tool named by ``name_of`` (Claude Code's ``Bash`` -> ``run_command``)."""
        return Rule(name_of(self.tool), self.pattern)

    def __str__(self) -> str:
        return self.tool if self.pattern is None else f"{self.tool}({self.pattern})"

    def matches_command(self, text: str) -> bool:
        """Whether this rule's pattern matches a simple command (or whole line) ``text``."""
        if self.pattern is None:
            return True
        if self.pattern.endswith(":*"):
            prefix = normalize_command(self.pattern[:-2])
            return text == prefix or text.startswith(prefix + " ")
        return text == normalize_command(self.pattern)

    def matches_path(self, path: Path, *, workspace: Path, home: Path) -> bool:
        if self.pattern is None:
            return True
        pattern, base = self.pattern, workspace
        if pattern.startswith("~/"):
            pattern, base = pattern[2:], home
        elif pattern.startswith("//"):
            pattern, base = pattern[2:], Path("/")
        try:
            relative = path.relative_to(base)
        except ValueError:
            return False
        return bool(_compiled(pattern).match_file(relative.as_posix()))


@functools.lru_cache(maxsize=512)
def _compiled(pattern: str) -> Any:
    import pathspec  # lazy: only file rules need it

    return pathspec.PathSpec.from_lines("gitignore", [pattern])


@dataclass(frozen=True)
class Rules:
    allow: tuple[Rule, ...] = ()
    deny: tuple[Rule, ...] = ()
    ask: tuple[Rule, ...] = ()

    @classmethod
    def from_settings(cls, *settings: Mapping[str, Any]) -> "Rules":
        """Rules from settings dicts shaped like ``{"permissions": {"allow": [...], "ask": [...], "deny": [...]}}``."""
        found: dict[str, list[Rule]] = {"allow": [], "deny": [], "ask": []}
        for document in settings:
            permissions = document.get("permissions", {}) if isinstance(document, Mapping) else None
            if not isinstance(permissions, Mapping):
                raise RuleSyntaxError("`permissions` must be an object with `allow`, `ask` and `deny` lists")
            for key, target in found.items():
                entries = permissions.get(key, [])
                if not isinstance(entries, list):
                    raise RuleSyntaxError(f"`permissions.{key}` must be a list of rule strings")
                target.extend(Rule.parse(entry) for entry in entries)
        return cls(tuple(found["allow"]), tuple(found["deny"]), tuple(found["ask"]))

    def with_allow(self, rules: Iterable[Rule]) -> "Rules":
        return Rules((*self.allow, *rules), self.deny, self.ask)

    def resolved(self, name_of: Callable[[str], str]) -> "Rules":
        """These rules with every tool named by ``name_of`` (see ``ToolRegistry.canonical_name``)."""
        return Rules(*(tuple(r.resolved(name_of) for r in rules) for rules in (self.allow, self.deny, self.ask)))

    def read_denials(self, tools: ToolRegistry) -> tuple[Rule, ...]:
        """The deny rules that forbid reading: a path pattern on a reading tool that takes a path (``Read(**/.env)``,
        ``read_file(.env)``). One selection for the three places that enforce them: the sandbox masks what they
        match, the reading tools refuse it, and a read-only command line that reads it asks."""
        return tuple(
            rule for rule in self.resolved(tools.canonical_name).deny
            if rule.pattern is not None and (tool := tools.get(rule.tool)) is not None and tool.traits.kind == "read" and tool.traits.path_arguments
        )  # fmt: skip


@dataclass(frozen=True)
class Call:
    """One tool call, as the rules see it: the tool's name and declaration, its arguments."""

    tool: str
    traits: ToolTraits
    args: Mapping[str, Any]
    workspace: Path
    home: Path

    def command(self) -> Any:
        """The command line of an ``execute`` tool's call (None for other tools)."""
        key = self.traits.key_argument
        return self.args.get(key) if self.traits.kind == "execute" and key is not None else None


def first_match(rules: Sequence[Rule], call: Call, *, deny: bool) -> Rule | None:
    """The rule deciding ``call``: for deny (and ask), any hit; for allow, a rule covering all of it."""
    relevant = [r for r in rules if names_tool(r.tool, call.tool)]
    whole = next((r for r in relevant if r.pattern is None), None)
    if whole is not None or not relevant:
        return whole
    if call.traits.kind == "execute":
        return _command_match(relevant, call, deny=deny)
    if call.traits.kind == "network":
        return _domain_match(relevant, call)
    paths = paths_of(call)
    if not paths:
        return None
    for rule in relevant:
        hits = [rule.matches_path(p, workspace=call.workspace, home=call.home) for p in paths]
        if any(hits) if deny else all(hits):
            return rule
    return None


def names_tool(rule_tool: str, tool: str) -> bool:
    """Whether a rule's tool name covers ``tool``: the same name, or for MCP tools (Claude Code's forms)
    ``mcp__server`` and ``mcp__server__*`` (every tool of the server) or another ``mcp__...*`` prefix."""
    if rule_tool == tool:
        return True
    if not (rule_tool.startswith("mcp__") and tool.startswith("mcp__")):
        return False
    if rule_tool.endswith("*"):
        return tool.startswith(rule_tool[:-1])
    return rule_tool.count("__") == 1 and tool.startswith(rule_tool + "__")


def url_host(url: Any) -> str | None:
    """The host of an http(s) URL, lower-cased (None when ``url`` is not one)."""
    from urllib.parse import urlsplit

    if not isinstance(url, str):
        return None
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    return parts.hostname.lower().rstrip(".") if parts.scheme in ("http", "https") and parts.hostname else None


def _domain_match(rules: list[Rule], call: Call) -> Rule | None:
    """``domain:docs.python.org`` matches that host; ``domain:*.python.org`` it and every subdomain."""
    key = call.traits.key_argument
    host = url_host(call.args.get(key)) if key is not None else None
    if host is None:
        return None
    for rule in rules:
        pattern = (rule.pattern or "").strip().lower()
        if not pattern.startswith("domain:"):
            continue
        domain = pattern[len("domain:") :].strip().rstrip(".")
        if host == domain or (domain.startswith("*.") and (host == domain[2:] or host.endswith(domain[1:]))):
            return rule
    return None


def _command_match(rules: list[Rule], call: Call, *, deny: bool) -> Rule | None:
    command = call.command()
    if not isinstance(command, str) or not command.strip():
        return None
    for rule in rules:
        if rule.pattern == command.strip():
            return rule
    try:
        line = analyze(command)
    except ShellParseError:
        return None
    return _deny_match(rules, line, call) if deny else _allow_match(rules, line, call)


def _deny_match(rules: list[Rule], line: CommandLine, call: Call) -> Rule | None:
    for cmd in line.effective:
        texts = {cmd.text, " ".join((cmd.name, *cmd.args))}
        for rule in rules:
            if any(rule.matches_command(t) for t in texts if t):
                return rule
            if rule.pattern is not None and deny_hits(rule.pattern, cmd, workspace=call.workspace, home=call.home, variables=line.variables):
                return rule
    return None


def _allow_match(rules: list[Rule], line: CommandLine, call: Call) -> Rule | None:
    if hidden_reason(line.source, line.effective) is not None:
        return None
    places = Places.of(workspace=call.workspace, home=call.home, cwd=call.workspace, variables=line.variables)
    decisive: Rule | None = None
    for cmd in line.written:
        if _writes_files(cmd) or git_runs_repository_code(cmd, places):
            return None
        if not cmd.words or cmd.words[0] in ("cd", "pushd", "popd"):
            continue
        rule = next((r for r in rules if r.matches_command(cmd.text) and _names_writes(r, cmd)), None)
        if rule is None:
            return None
        decisive = decisive or rule
    return decisive


def _names_writes(rule: Rule, cmd: SimpleCommand) -> bool:
    """A prefix rule covers ``find -delete``/``git log --output=x`` only if it names that option itself."""
    written = writing_options(cmd)
    if not written or rule.pattern is None:
        return True
    words = normalize_command(rule.pattern[:-2] if rule.pattern.endswith(":*") else rule.pattern).split()
    return all(option in words for option in written)


def _writes_files(cmd: SimpleCommand) -> bool:
    for redirect in cmd.redirects:
        if ">" in redirect.op and redirect.target not in _HARMLESS_TARGETS and not redirect.target.isdigit() and redirect.target != "-":
            return True
    return False


def paths_of(call: Call) -> list[Path]:
    paths: list[Path] = []
    for raw in _raw_paths(call):
        paths.extend(p for p in _candidates(raw, call) if p not in paths)
    return paths


def _raw_paths(call: Call) -> list[str]:
    """Each declared path argument's value (under our name or Claude Code's), else the default path."""
    theirs = dict(call.traits.claude_arguments)
    out: list[str] = []
    for name in call.traits.path_arguments:
        fallback = call.args.get(theirs[name], call.traits.default_path) if name in theirs else call.traits.default_path
        raw = call.args.get(name, fallback)
        if isinstance(raw, str) and raw:
            out.append(raw)
    return out


def _candidates(raw: str, call: Call) -> list[Path]:
    path = call.home / raw[2:] if raw == "~" or raw.startswith("~/") else Path(raw)
    absolute = path if path.is_absolute() else call.workspace / path
    lexical = Path(os.path.normpath(absolute))
    real = Path(os.path.realpath(absolute))
    real_workspace = Path(os.path.realpath(call.workspace))
    if real_workspace != call.workspace and real.is_relative_to(real_workspace):
        real = call.workspace / real.relative_to(real_workspace)
    return list(dict.fromkeys((lexical, real)))
