"""Claude Code's command-line flags, read with Claude Code's meanings.

A script or the Agent SDK that runs ``claude -p ...`` passes flags we name
differently or lack; each is mapped here to what PseudoClaude does with it
(``docs/headless.md`` has the table). Tool lists take Claude Code's names
(``Bash(git:*) Edit``) as well as ours, separated by commas or spaces.
``--disallowedTools``, ``--tools`` and ``--settings`` become one more settings
layer, the command line's, last and so strongest: a deny given on the command
line holds whatever the files allow. Flags that change nothing here say so on
stderr instead of being silently dropped. ``--setting-sources`` is honoured
where the files are read (``config.files``): the CLI passes it on in ``Flags``.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from pseudoclaude.config import ConfigError, Settings
from pseudoclaude.tools import builtin_registry

COMMAND_LINE = Path("<command line>")

REFUSED: Mapping[str, str] = {
    "--task-budget": "task budgets are an Anthropic API beta PseudoClaude does not send; --max-budget-usd bounds a run's cost",
    "--betas": "PseudoClaude sends the Anthropic beta headers its own features need and no others",
    "--resume-session-at": "resuming at a message is not supported; --resume continues the whole session (--fork-session copies it)",
    "--resume-drops-turn": "resuming with a turn dropped is not supported; --resume continues the whole session",
    "--session-mirror": "SDK session stores are not supported; sessions are saved under the sessions folder",
    "--plugin-dir": "Claude Code plugins are not supported; custom commands, agents, hooks and MCP servers are read from their own folders",
    "--thinking-display": "reasoning is always shown as the provider sends it (Anthropic's thinking blocks, OpenAI's summaries)",
    "--agent": "the main conversation cannot run as a sub-agent's definition; --agents offers it to the task tool instead",
    "--assistant": "Claude Code's assistant mode has no counterpart here",
    "--proactive": "Claude Code's proactive mode has no counterpart here",
}
"""Claude Code flags (the Agent SDK's options) that PseudoClaude cannot honour: each is refused with its reason, never ignored."""


def refused_flag(given: Mapping[str, object]) -> str | None:
    """The one line for the first refused flag that was given (a value that is not None, False or empty), else None."""
    for flag, value in given.items():
        if value not in (None, False, "", [], ()):
            return f"{flag} is not supported: {REFUSED[flag]}"
    return None


def agents_value(value: str | None) -> dict[str, object] | None:
    """``--agents``: a JSON object of name -> definition (the Agent SDK's ``AgentDefinition`` shape), or a file holding one."""
    if value is None:
        return None
    try:
        data = json.loads(value) if value.lstrip().startswith(("{", "[")) else json.loads(Path(value).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ConfigError(f"--agents: cannot read {value[:80]!r} as JSON ({error})") from None
    if not isinstance(data, dict):
        raise ConfigError("--agents must be a JSON object of agent name -> {description, prompt, tools, model}")
    return data


@dataclass(frozen=True)
class ClaudeFlags:
    """The Claude Code flags of one invocation, as given (None / empty: not given)."""

    disallowed_tools: tuple[str, ...] = ()
    tools: str | None = None
    settings: str | None = None
    mcp_config: tuple[str, ...] = ()
    setting_sources: str | None = None
    """Read by ``config`` (``Flags.setting_sources``): which scopes of Claude Code's settings files are read."""
    add_dirs: tuple[str, ...] = ()


def split_tool_rules(values: Sequence[str]) -> list[str]:
    """``"Bash(git status),Edit Read"``: split on commas and spaces outside parentheses."""
    rules: list[str] = []
    for value in values:
        depth, current = 0, ""
        for char in value:
            depth += {"(": 1, ")": -1}.get(char, 0)
            if (char == "," or char.isspace()) and depth == 0:
                rules.append(current.strip())
                current = ""
            else:
                current += char
        rules.append(current.strip())
    return [rule for rule in rules if rule]


def with_claude_flags(settings: Settings, flags: ClaudeFlags) -> tuple[Settings, list[str]]:
    """``settings`` with the command line's layer added; the warnings to print (flags that change nothing)."""
    warnings: list[str] = []
    layer: dict[str, Any] = {}  # the --settings JSON: untyped until the settings reader checks it
    if flags.settings:
        layer = _settings_value(flags.settings)
    deny = [*split_tool_rules(flags.disallowed_tools), *_tools_outside(flags.tools)]
    if deny:
        permissions = dict(layer.get("permissions") or {})
        permissions["deny"] = [*list(permissions.get("deny") or []), *deny]
        layer["permissions"] = permissions
    if flags.add_dirs:
        warnings.append(f"--add-dir is not supported: the tools stay inside {settings.workspace}")
    if not layer:
        return settings, warnings
    labels = (*settings.settings_labels, "command line") if settings.settings_labels else ()
    updated = dataclasses.replace(
        settings, settings_layers=(*settings.settings_layers, layer), settings_paths=(*settings.settings_paths, COMMAND_LINE), settings_labels=labels
    )
    return updated, warnings


def _settings_value(value: str) -> dict[str, Any]:
    """``--settings``: JSON text or the path of a JSON file."""
    try:
        data = json.loads(value) if value.lstrip().startswith("{") else json.loads(Path(value).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ConfigError(f"--settings: cannot read {value[:80]!r} as JSON settings ({error})") from None
    if not isinstance(data, dict):
        raise ConfigError("--settings must be a JSON object")
    return dict(data)


def _tools_outside(tools: str | None) -> list[str]:
    """``--tools A,B``: deny rules for every built-in tool not listed ("" denies all, "default" none)."""
    if tools is None or tools.strip() == "default":
        return []
    registry = builtin_registry()
    wanted = {registry.canonical_name(name) for name in split_tool_rules([tools])}
    unknown = sorted(name for name in wanted if name not in registry)
    if unknown:
        raise ConfigError(f"--tools: unknown tool {unknown[0]!r}: choose from {', '.join(_names(registry.claude_names(), registry.names()))}")
    return [name for name in registry.names() if name not in wanted]


def _names(claude: Mapping[str, tuple[str, ...]], ours: Sequence[str]) -> list[str]:
    return [claude[name][0] if name in claude else name for name in ours]
