"""The resolved settings and what the command line said: the data every other part of the program reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Mapping

from pseudoclaude.sandbox import SandboxConfig
from pseudoclaude.trust import WorkspaceTrust

THINKING_MODES = ("adaptive", "disabled")
MIN_THINKING_TOKENS = 1024
OPENAI_APIS = ("auto", "responses", "chat")
CONTEXT_ENGINES = ("pipeline", "native", "auto")
"""``contextEngine``: our pipeline, the provider\'s own context management where the model takes it, or the pick per model (``agent/native.py``)."""


class PermissionMode(str, Enum):
    """The permission modes (``tools.permissions`` says what each allows; it lives here so settings can check it cheaply)."""

    DEFAULT = "default"
    ACCEPT_EDITS = "accept-edits"
    PLAN = "plan"
    BYPASS = "bypass"

    @property
    def claude_name(self) -> str:
        """Claude Code's name for the mode (what its hook scripts and the Agent SDK read)."""
        return _CLAUDE_MODE_NAMES[self.value]

    @classmethod
    def parse(cls, name: str) -> PermissionMode:
        """A mode by our name or Claude Code's (``acceptEdits``, ``bypassPermissions``); ``ValueError`` names the choices."""
        ours = {claude: mine for mine, claude in _CLAUDE_MODE_NAMES.items()}.get(name, name)
        try:
            return cls(ours)
        except ValueError:
            choices = ", ".join(m.value for m in cls)
            raise ValueError(f"unknown permission mode {name!r}: choose one of {choices} (or Claude Code's acceptEdits, bypassPermissions)") from None


_CLAUDE_MODE_NAMES = {"default": "default", "accept-edits": "acceptEdits", "plan": "plan", "bypass": "bypassPermissions"}


class ConfigError(Exception):
    """Bad or missing configuration: one clear line for the user, exit code 2."""


class NoProviderConfigured(ConfigError):
    """No key and no base URL anywhere: the CLI looks for a local server before showing this."""


@dataclass(frozen=True)
class Flags:
    """What the command line said; None means 'not given'."""

    model: str | None = None
    provider: str | None = None
    context_window: int | None = None
    context_engine: str | None = None
    sessions_dir: Path | None = None
    permission_mode: str | None = None
    allowed_tools: tuple[str, ...] = ()
    max_turns: int | None = None
    max_budget_usd: float | None = None
    trust_workspace: bool = False
    effort: str | None = None
    max_thinking_tokens: int | None = None
    thinking: str | None = None
    mcp_config: tuple[str, ...] = ()
    strict_mcp_config: bool = False
    sandbox: str | None = None
    setting_sources: str | None = None
    """Claude Code's ``--setting-sources user,project,local`` as given (None: every scope); see ``config.files``."""


@dataclass(frozen=True)
class ShellEnvironment:
    """The ``shellEnvironment`` setting: secret-looking variables the model's commands keep (``include``: exact names,
    the user's own settings only) and further ones they lose (``exclude``: names or ``*`` patterns, any settings file)."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()


McpDeclarations = Mapping[str, tuple[str, Mapping[str, Any]]]
"""MCP servers by name: (where declared, the raw declaration, ``${VAR}`` not expanded yet)."""


@dataclass(frozen=True)
class Origin:
    """Where one setting in force came from (``config.resolve`` records it): the value as resolved, shown as text,
    and its source ("command line --model", "environment ANTHROPIC_MODEL", "Claude Code project settings
    (.claude/settings.json)", "default")."""

    value: str
    source: str


@dataclass(frozen=True)
class Settings:
    workspace: Path
    home: Path
    sessions_dir: Path
    provider: str
    model: str
    base_url: str | None
    context_window: int | None
    permission_mode: str
    allowed_tools: tuple[str, ...]
    max_turns: int | None
    openai_api: str = "auto"
    context_engine: str = "pipeline"
    settings_layers: tuple[Mapping[str, Any], ...] = field(default=(), repr=False)
    """Every settings file's content, project entries only once trusted (an ``env`` in them may hold a credential)."""
    settings_paths: tuple[Path, ...] = ()
    trust: WorkspaceTrust = WorkspaceTrust()
    api_key: str | None = field(default=None, repr=False)
    max_budget_usd: float | None = None
    effort: str | None = None
    max_thinking_tokens: int | None = None
    thinking: str | None = None
    mcp_servers: McpDeclarations = field(default_factory=dict, repr=False)
    web_fetch_local: bool = False
    model_from_flag: bool = False
    """``--model`` or ``--provider`` was given on the command line: a resumed session's recorded ``/model`` switch does not override it."""
    shell_environment: ShellEnvironment = ShellEnvironment()
    sandbox: SandboxConfig = SandboxConfig()
    auth_token: str | None = field(default=None, repr=False)
    extra_headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    origins: Mapping[str, Origin] = field(default_factory=dict, repr=False)
    """Where each setting of the table (``config.table.SETTINGS``) came from, by row name: what ``/status`` and ``doctor`` show."""
    session_env: Mapping[str, str] = field(default_factory=dict, repr=False)
    """The ``env`` setting of the settings files (project ones only once trusted): variables set for this session."""
    settings_labels: tuple[str, ...] = ()
    """What each of ``settings_paths`` is ("user settings", "Claude Code project settings"), in the same order."""
    values: Mapping[str, Any] = field(default_factory=dict, repr=False)
    """Every row of the settings table that resolves the plain way, by name (``config.load``): what ``value`` reads."""

    def value(self, name: str) -> Any:
        """The resolved value of the table row ``name`` (None: not set and no default): a new setting's consumer reads
        it here, so adding one is its row and its consumer (the fields above predate the table)."""
        return self.values.get(name)
