"""The settings table: every setting declared once, as data.

A row names the setting (the ``Settings`` field it fills and the ``/status``
row), its command-line flag (the ``Flags`` field), its environment variables
(strongest first), its key in the settings files (dotted for a nested one:
``permissions.defaultMode``), which file families carry it (ours, Claude
Code's, or both), its parser, its merge rule across files, and whether a
project or local file needs the user's trust for it. ``config.resolve`` reads
the rows; ``pseudoclaude.trust`` enforces the trust column by leaving
unapproved entries out of the project layers before anything reads them.

Merge rules across the settings files (flags and variables always beat files):

========  ==================================================================
last      the last file that sets it wins (the file order is ``config.files``)
lowest    the lowest value any file sets: a project may tighten a limit, never lift it
mode      last wins, except that a later ``default`` does not lift an earlier ``plan``
user      read from the user's own files only; a project's value is ignored
combine   every file contributes (rules union, hooks all run); its consumer parses it
========  ==================================================================

A new setting is one row here and the code that reads its value
(``Settings.origins`` then records where it came from for ``/status``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal

from pseudoclaude.config.files import FAMILIES, Family
from pseudoclaude.config.types import CONTEXT_ENGINES, MIN_THINKING_TOKENS, OPENAI_APIS, THINKING_MODES, ConfigError
from pseudoclaude.llm import EFFORTS

Merge = Literal["last", "lowest", "mode", "user", "combine"]
Parser = Callable[[Any, str], Any]
"""(raw value, where it came from) -> the value, None for "not set"; ``ConfigError`` naming ``where`` when bad."""


@dataclass(frozen=True)
class Setting:
    name: str
    key: str | None
    parse: Parser
    flag: str | None = None
    env: tuple[str, ...] = ()
    merge: Merge = "last"
    families: tuple[Family, ...] = ("ours",)
    trust: bool = False
    default: Any = None
    label: str = ""
    workspace_env: bool = True
    """Whether its variables may come from the workspace (``.env``, a project's ``env``) or only from the user."""

    @property
    def shown(self) -> str:
        """The row's name on ``/status``."""
        return self.label or self.name.replace("_", " ")

    @property
    def flag_name(self) -> str | None:
        return None if self.flag is None else "--" + self.flag.replace("_", "-")

    def lookup(self, layer: Any) -> Any:
        """The raw value of this row's key in one settings layer (None: absent)."""
        if self.key is None:
            return None
        value = layer
        for part in self.key.split("."):
            if not isinstance(value, dict):
                return None
            value = value.get(part)
        return value


def text(value: Any, where: str) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ConfigError(f"{where} must be a string, not {value!r}")
    return value


def positive_int(value: Any, where: str) -> int | None:
    if value is None or value == "":
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{where} must be a whole number, not {value!r}") from None
    if number <= 0:
        raise ConfigError(f"{where} must be positive, not {number}")
    return number


def dollars(value: Any, where: str) -> float | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ConfigError(f"{where} must be a number of US dollars, not {value!r}")
    try:
        number = float(value)
    except ValueError:
        raise ConfigError(f"{where} must be a number of US dollars, not {value!r}") from None
    if not number > 0 or number == float("inf"):
        raise ConfigError(f"{where} must be a positive number of US dollars, not {value!r}")
    return number


def choice(choices: tuple[str, ...], what: str, hint: str = "") -> Parser:
    def parse(value: Any, where: str) -> str | None:
        found = text(value, where)
        if found is not None and found not in choices:
            raise ConfigError(f"unknown {what} {found!r}: {hint or 'choose one of ' + ', '.join(choices)}")
        return found

    return parse


def thinking_tokens(value: Any, where: str) -> int | None:
    tokens = positive_int(value, where)
    if tokens is not None and tokens < MIN_THINKING_TOKENS:
        raise ConfigError(f"the thinking budget must be at least {MIN_THINKING_TOKENS} tokens, not {tokens}")
    return tokens


def folder(value: Any, where: str) -> Path | None:
    found = value if isinstance(value, Path) else text(value, where)
    return None if found is None else Path(found).expanduser()


def switch(value: Any, where: str) -> bool | None:
    """A boolean setting: ``true`` in a file, ``1`` in a variable."""
    if value is None:
        return None
    return value is True or value == "1"


def raw(value: Any, where: str) -> Any:
    """For ``combine`` rows: the consumer parses the value."""
    return value


BOTH = FAMILIES
SETTINGS: tuple[Setting, ...] = (
    Setting("model", "model", text, flag="model", env=("PSEUDOCLAUDE_MODEL",)),
    Setting("claude_model", "model", text, env=("ANTHROPIC_MODEL",), families=("claude",), label="Claude Code model"),
    Setting("provider", "provider", text, flag="provider", env=("PSEUDOCLAUDE_PROVIDER",)),
    Setting("context_window", "contextWindow", positive_int, flag="context_window", env=("PSEUDOCLAUDE_CONTEXT_WINDOW",)),
    Setting(
        "context_engine",
        "contextEngine",
        choice(CONTEXT_ENGINES, "context engine"),
        flag="context_engine",
        env=("PSEUDOCLAUDE_CONTEXT_ENGINE",),
        default="pipeline",
    ),
    Setting("permission_mode", "permissions.defaultMode", text, flag="permission_mode", merge="mode", families=BOTH, trust=True, default="default"),
    Setting("effort", "effort", choice(EFFORTS, "effort"), flag="effort", env=("PSEUDOCLAUDE_EFFORT",)),
    Setting("max_thinking_tokens", "maxThinkingTokens", thinking_tokens, flag="max_thinking_tokens", env=("MAX_THINKING_TOKENS",), label="thinking budget"),
    Setting("thinking", "thinking", choice(THINKING_MODES, "thinking mode", "choose adaptive or disabled"), flag="thinking"),
    Setting("max_turns", "maxTurns", positive_int, flag="max_turns", merge="lowest"),
    Setting("max_budget_usd", "maxBudgetUsd", dollars, flag="max_budget_usd", merge="lowest", label="max budget"),
    Setting("openai_api", "openaiApi", choice(OPENAI_APIS, "OpenAI API"), env=("PSEUDOCLAUDE_OPENAI_API",), default="auto", label="OpenAI API"),
    Setting("sessions_dir", "sessionsDir", folder, flag="sessions_dir", trust=True, label="sessions folder"),
    Setting("web_fetch_local", "webFetchLocalAddresses", switch, env=("PSEUDOCLAUDE_WEB_FETCH_LOCAL",), merge="user", default=False, workspace_env=False),
    Setting("api_key_helper", "apiKeyHelper", text, families=BOTH, trust=True, label="apiKeyHelper"),
    Setting("enable_all_project_mcp_servers", "enableAllProjectMcpServers", switch, merge="user", families=BOTH, default=False),
    Setting("enabled_mcpjson_servers", "enabledMcpjsonServers", raw, merge="user", families=BOTH),
    Setting("disabled_mcpjson_servers", "disabledMcpjsonServers", raw, merge="combine", families=BOTH),
    Setting("hooks", "hooks", raw, merge="combine", families=BOTH, trust=True),
    Setting("disable_all_hooks", "disableAllHooks", raw, merge="combine", families=BOTH, trust=True),
    Setting("permission_rules", "permissions", raw, merge="combine", families=BOTH, trust=True, label="permission rules"),
    Setting("additional_directories", "permissions.additionalDirectories", raw, merge="combine", families=BOTH),
    Setting("env", "env", raw, merge="combine", families=BOTH, trust=True),
    Setting("sandbox", "sandbox", raw, merge="combine"),
    Setting("shell_environment", "shellEnvironment", raw, merge="combine"),
    Setting("mcp_servers", "mcpServers", raw, merge="user", label="MCP servers"),
    Setting("trusted_workspaces", "trustedWorkspaces", raw, merge="user"),
)
"""Every setting. ``trust``: from a project or local file it applies only once the folder is trusted (allow rules,
hooks, loosening modes, ``env``, ``apiKeyHelper``, the sessions folder); deny and ask rules only tighten and always apply."""

ROWS = {row.name: row for row in SETTINGS}
