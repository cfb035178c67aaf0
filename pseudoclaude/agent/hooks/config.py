"""The ``hooks`` setting, in Claude Code's shape, merged from the settings layers.

::

    {"hooks": {"PreToolUse": [{"matcher": "run_command|edit_file",
                               "hooks": [{"type": "command", "command": "./check.sh", "timeout": 60}]}]}}

Layers (user, project, local) are concatenated in that order, and a command that
appears twice for the same event and matcher runs once. The project and local
layers arrive already filtered by workspace trust (``config.load_settings``,
``pseudoclaude.trust``): a hook the user did not approve for this folder never
reaches this module. ``"disableAllHooks": true``
in any layer turns every hook off. A setting is untrusted input: a malformed
entry is skipped and described in ``HookConfig.problems`` (shown as a warning),
never a crash.

Matchers: for ``PreToolUse``/``PostToolUse`` a regular expression that must match
the whole tool name (``""``/``"*"``/missing: every tool). Claude Code's tool
names match their counterparts (``Bash`` -> ``run_command``...), so matchers from
existing Claude Code settings keep working: each tool declares its Claude Code
names (``ToolTraits.claude_names``), handed in as ``claude_names`` (the
session's ``ToolRegistry.claude_names()``; the built-in tools' by default). ``SessionStart`` matches its source
(``startup``, ``resume``), ``PreCompact``/``PostCompact`` their trigger
(``manual``, ``auto``), ``SubagentStart``/``SubagentStop`` the agent type,
``Notification`` its type (``permission_prompt``); the other events ignore the matcher.

Events: ``HOOK_EVENTS`` are the ones PseudoClaude fires. Claude Code has more
(``NEVER_FIRED``): a setting naming one is accepted, with one notice saying it
never fires here and why, so a settings file shared with Claude Code loads
without errors. Hook types: ``command`` and ``prompt`` (a question to the
session's model, ``hooks.prompt``); any other type is skipped with a notice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from pseudoclaude.tools import builtin_registry

HOOK_EVENTS = (
    "SessionStart",
    "SessionEnd",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PreCompact",
    "PostCompact",
    "Stop",
    "PostToolUseFailure",
    "PermissionRequest",
    "Notification",
    "SubagentStart",
    "SubagentStop",
)
NEVER_FIRED: Mapping[str, str] = {
    "StopFailure": "a turn that ends in an API error is reported by the stop event itself (reason 'error')",
    "PermissionDenied": "it reports auto-mode classifier denials, and PseudoClaude has no classifier",
    "Setup": "PseudoClaude has no --init/--maintenance run",
    "UserPromptExpansion": "slash commands expand before UserPromptSubmit, which sees the expanded prompt",
    "PostToolBatch": "PostToolUse runs after each call of a batch",
    "InstructionsLoaded": "instruction files are read once at start; their problems are shown as warnings",
    "ConfigChange": "settings are read once per session",
    "CwdChanged": "the workspace never changes during a session",
    "FileChanged": "PseudoClaude does not watch files",
    "WorktreeCreate": "PseudoClaude does not create git worktrees",
    "WorktreeRemove": "PseudoClaude does not create git worktrees",
    "TeammateIdle": "PseudoClaude has no agent teams",
    "TaskCreated": "PseudoClaude has no shared task list",
    "TaskCompleted": "PseudoClaude has no shared task list",
    "Elicitation": "PseudoClaude's MCP client does not accept elicitation requests",
    "ElicitationResult": "PseudoClaude's MCP client does not accept elicitation requests",
    "PreModelSwitch": "a /model switch is the user's own command",
    "PostModelSwitch": "a /model switch is the user's own command",
}
"""Claude Code's events that never fire here, with the reason (said once when a setting names one)."""
HOOK_TYPES = ("command", "prompt")
DEFAULT_TIMEOUT_S = 60.0
PROMPT_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class HookCommand:
    """One hook to run for an event: a shell command, or (``type`` "prompt") the prompt to send to a model."""

    command: str
    timeout_s: float = DEFAULT_TIMEOUT_S
    type: str = "command"
    model: str | None = None


@dataclass(frozen=True)
class HookGroup:
    """Commands behind one matcher (``None``: match everything)."""

    matcher: str | None
    hooks: tuple[HookCommand, ...]

    def matches(self, subject: str | None, aliases: Sequence[str] = ()) -> bool:
        """Whether the matcher fits ``subject`` or one of its ``aliases`` (a tool's Claude Code names)."""
        if self.matcher is None or subject is None:
            return True
        return any(re.fullmatch(self.matcher, name) for name in (subject, *aliases))


@dataclass(frozen=True)
class HookConfig:
    """The hooks of every event; empty when none are configured."""

    groups: Mapping[str, tuple[HookGroup, ...]] = field(default_factory=dict)
    problems: tuple[str, ...] = ()
    claude_names: Mapping[str, Sequence[str]] = field(default_factory=dict)

    @classmethod
    def from_settings(cls, *layers: Mapping[str, Any], claude_names: Mapping[str, Sequence[str]] | None = None) -> HookConfig:
        """The hooks of ``layers``; ``claude_names``: our tool name -> Claude Code's names (default: the built-ins')."""
        problems: list[str] = []
        if any(layer.get("disableAllHooks") is True for layer in layers):
            return cls()
        groups: dict[str, list[HookGroup]] = {}
        for layer in layers:
            raw = layer.get("hooks")
            if raw is None:
                continue
            if not isinstance(raw, Mapping):
                problems.append("settings: 'hooks' must be an object mapping event names to lists")
                continue
            for event, entries in raw.items():
                if event in NEVER_FIRED:
                    notice = f"hooks: {event} hooks never fire in PseudoClaude: {NEVER_FIRED[event]}"
                    problems.extend([notice] if notice not in problems else [])
                    continue
                if event not in HOOK_EVENTS:
                    problems.append(f"hooks: unknown or unsupported event {event!r} ignored (supported: {', '.join(HOOK_EVENTS)})")
                    continue
                groups.setdefault(event, []).extend(_parse_groups(event, entries, problems))
        names = builtin_registry().claude_names() if claude_names is None else claude_names
        return cls({event: _dedupe(found) for event, found in groups.items()}, tuple(problems), names)

    def commands(self, event: str, subject: str | None = None) -> tuple[HookCommand, ...]:
        """The commands to run for ``event`` (``subject``: tool name, source or trigger), each once."""
        found: list[HookCommand] = []
        aliases = self.claude_names.get(subject, ()) if subject is not None else ()
        for group in self.groups.get(event, ()):
            if group.matches(subject, aliases):
                found.extend(hook for hook in group.hooks if (hook.type, hook.command) not in {(h.type, h.command) for h in found})
        return tuple(found)

    def __bool__(self) -> bool:
        return any(group.hooks for groups in self.groups.values() for group in groups)


def _parse_groups(event: str, entries: Any, problems: list[str]) -> list[HookGroup]:
    if not isinstance(entries, Sequence) or isinstance(entries, (str, bytes)):
        problems.append(f"hooks.{event}: must be a list of {{'matcher': ..., 'hooks': [...]}} objects")
        return []
    groups: list[HookGroup] = []
    for index, entry in enumerate(entries):
        where = f"hooks.{event}[{index}]"
        if not isinstance(entry, Mapping):
            problems.append(f"{where}: must be an object with 'hooks'")
            continue
        matcher = entry.get("matcher")
        if matcher is not None and not isinstance(matcher, str):
            problems.append(f"{where}.matcher: must be a string")
            continue
        matcher = None if matcher in (None, "", "*") else matcher
        if matcher is not None:
            try:
                re.compile(matcher)
            except re.error as error:
                problems.append(f"{where}.matcher: not a valid regular expression ({error})")
                continue
        raw_hooks = entry.get("hooks")
        if not isinstance(raw_hooks, list):
            problems.append(f"{where}.hooks: must be a list of {{'type': 'command', 'command': ...}} objects")
            continue
        commands = [_parse_command(f"{where}.hooks[{n}]", raw, problems) for n, raw in enumerate(raw_hooks)]
        groups.append(HookGroup(matcher, tuple(c for c in commands if c is not None)))
    return groups


def _parse_command(where: str, raw: Any, problems: list[str]) -> HookCommand | None:
    if not isinstance(raw, Mapping):
        problems.append(f"{where}: must be an object")
        return None
    kind = raw.get("type", "command")
    if kind not in HOOK_TYPES:
        problems.append(f"{where}: hooks of type {kind!r} are not supported (supported: {', '.join(HOOK_TYPES)}); skipped")
        return None
    key = "command" if kind == "command" else "prompt"
    command = raw.get(key)
    if not isinstance(command, str) or not command.strip():
        problems.append(f"{where}.{key}: must be a non-empty string")
        return None
    model = raw.get("model")
    if model is not None and (kind != "prompt" or not isinstance(model, str)):
        problems.append(f"{where}.model: only a prompt hook takes a model, as a string; ignored")
        model = None
    default = DEFAULT_TIMEOUT_S if kind == "command" else PROMPT_TIMEOUT_S
    timeout = raw.get("timeout", default)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        problems.append(f"{where}.timeout: must be a positive number of seconds; using {default:g}")
        timeout = default
    return HookCommand(command, float(timeout), kind, model)


def _dedupe(groups: list[HookGroup]) -> tuple[HookGroup, ...]:
    """Merge groups with the same matcher, keeping each command once, in first-seen order."""
    merged: dict[str | None, list[HookCommand]] = {}
    for group in groups:
        commands = merged.setdefault(group.matcher, [])
        commands.extend(hook for hook in group.hooks if (hook.type, hook.command) not in {(c.type, c.command) for c in commands})
    return tuple(HookGroup(matcher, tuple(commands)) for matcher, commands in merged.items())
