"""Settings from flags, environment, ``.env``, and settings files, in that precedence.

Settings files (JSON), later ones overriding earlier ones:
``$PSEUDOCLAUDE_HOME/settings.json`` (user), ``<workspace>/.pseudoclaude/settings.json``
(project), ``<workspace>/.pseudoclaude/settings.local.json`` (local, untracked).

Which variables hold each provider's key and base URL, and which provider a
model name belongs to, come from the provider table (``llm/providers.py``).
API keys are read from the environment or the workspace ``.env`` only, never
from settings files, and never appear in ``repr``, logs, events or sessions.
This module is on the start-up path: it imports nothing heavy.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from enum import Enum
from typing import Any, Mapping, Sequence

from pseudoclaude.llm import PROVIDERS, ProviderEntry, UnknownProvider, provider_entry, provider_for_model



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


@dataclass(frozen=True)
class Flags:
    """What the command line said; None means 'not given'."""

    model: str | None = None
    provider: str | None = None
    context_window: int | None = None
    sessions_dir: Path | None = None
    permission_mode: str | None = None
    allowed_tools: tuple[str, ...] = ()
    max_turns: int | None = None


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
    max_turns: int
    settings_layers: tuple[Mapping[str, Any], ...] = ()
    settings_paths: tuple[Path, ...] = ()
    api_key: str | None = field(default=None, repr=False)


def pseudoclaude_home(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    return Path(env.get("PSEUDOCLAUDE_HOME") or Path.home() / ".pseudoclaude").expanduser()


def settings_paths(workspace: Path, home: Path) -> tuple[Path, Path, Path]:
    """User, project and local settings files, in increasing precedence."""
    return (home / "settings.json", workspace / ".pseudoclaude" / "settings.json", local_settings_path(workspace))


def local_settings_path(workspace: Path) -> Path:
    """The settings file of this user in this workspace, kept out of git ("always allow" answers go there)."""
    return workspace / ".pseudoclaude" / "settings.local.json"


def read_settings_file(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ConfigError(f"cannot read settings file {path}: {error}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"settings file {path} must hold a JSON object")
    return data


@dataclass(frozen=True)
class SettingsFiles:
    """The user, project and local settings files, read once; later layers override earlier ones."""

    paths: tuple[Path, ...]
    layers: tuple[Mapping[str, Any], ...]

    @classmethod
    def read(cls, workspace: Path, home: Path) -> SettingsFiles:
        paths = settings_paths(workspace, home)
        return cls(paths, tuple(read_settings_file(path) for path in paths))

    def get(self, key: str) -> Any:
        """A top-level value: the last file that has ``key`` wins."""
        value = None
        for layer in self.layers:
            value = layer.get(key, value)
        return value

    def merged(self, key: str) -> dict[str, Any]:
        """An object-valued key (``permissions``) merged entry by entry across the files."""
        merged: dict[str, Any] = {}
        for layer in self.layers:
            merged.update(layer.get(key) or {})
        return merged


def read_dotenv(workspace: Path) -> dict[str, str]:
    """The workspace ``.env`` as a mapping; the process environment is not touched."""
    path = workspace / ".env"
    if not path.is_file():
        return {}
    from dotenv import dotenv_values

    return {key: value for key, value in dotenv_values(path).items() if value is not None}


def load_settings(
    workspace: Path,
    flags: Flags = Flags(),
    environ: Mapping[str, str] | None = None,
    providers: Sequence[ProviderEntry] = PROVIDERS,
) -> Settings:
    """Resolve every setting; raise ``ConfigError`` when no provider is configured.

    ``providers`` is the provider table (``llm.providers.PROVIDERS``); tests pass their own.
    """
    workspace = workspace.resolve()
    env = _environment(workspace, environ)
    home = pseudoclaude_home(env)
    files = SettingsFiles.read(workspace, home)
    model = flags.model or env.get("PSEUDOCLAUDE_MODEL") or _str(files.get("model"))
    entry = _provider_entry(flags.provider or env.get("PSEUDOCLAUDE_PROVIDER") or _str(files.get("provider")), model, env, providers)
    api_key = env.get(entry.key_variable) or None
    base_url = env.get(entry.base_url_variable) or None
    if api_key is None and not (entry.keyless_server and base_url):
        raise ConfigError(f"the {entry.name} provider needs {entry.key_variable} (in the environment or in .env)")

    window = flags.context_window or _int(env.get("PSEUDOCLAUDE_CONTEXT_WINDOW"), "PSEUDOCLAUDE_CONTEXT_WINDOW") or _int(files.get("contextWindow"), "contextWindow")
    mode_name = flags.permission_mode or _str(files.merged("permissions").get("defaultMode")) or "default"
    try:
        mode = PermissionMode.parse(mode_name).value
    except ValueError as error:
        raise ConfigError(str(error)) from None
    return Settings(
        workspace=workspace,
        home=home,
        sessions_dir=_sessions_dir(flags.sessions_dir, files, home),
        provider=entry.name,
        model=model or entry.default_model,
        base_url=base_url,
        context_window=window,
        permission_mode=mode,
        allowed_tools=flags.allowed_tools,
        max_turns=flags.max_turns or _int(files.get("maxTurns"), "maxTurns") or 50,
        settings_layers=files.layers,
        settings_paths=files.paths,
        api_key=api_key,
    )


def resolve_sessions_dir(workspace: Path, flag: Path | None = None, environ: Mapping[str, str] | None = None) -> Path:
    """Where sessions are kept, by ``load_settings``'s rule, for commands that need no provider."""
    if flag is not None:
        return flag
    workspace = workspace.resolve()
    home = pseudoclaude_home(_environment(workspace, environ))
    return _sessions_dir(None, SettingsFiles.read(workspace, home), home)


def _environment(workspace: Path, environ: Mapping[str, str] | None) -> dict[str, str]:
    """The workspace ``.env`` overlaid by the process environment (or ``environ``)."""
    return {**read_dotenv(workspace), **(os.environ if environ is None else environ)}


def _sessions_dir(flag: Path | None, files: SettingsFiles, home: Path) -> Path:
    configured = files.get("sessionsDir")
    return flag or (Path(configured).expanduser() if configured else home / "sessions")


def _provider_entry(
    named: str | None, model: str | None, env: Mapping[str, str], providers: Sequence[ProviderEntry]
) -> ProviderEntry:
    """The provider named, else the one the model name belongs to, else the first the environment configures."""
    if named:
        try:
            return provider_entry(named, providers)
        except UnknownProvider as error:
            raise ConfigError(str(error)) from None
    inferred = provider_for_model(model, providers) if model else None
    if inferred is not None:
        return provider_entry(inferred, providers)
    for entry in providers:
        if entry.configured_in(env):
            return entry
    choices = ", or ".join(
        entry.key_variable + (f" (or {entry.base_url_variable} for {entry.keyless_server})" if entry.keyless_server else "")
        for entry in providers
    )
    raise ConfigError(f"no model provider is configured: set {choices}, in the environment or in .env")


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _int(value: Any, name: str) -> int | None:
    if value is None or value == "":
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{name} must be a whole number, not {value!r}") from None
    if number <= 0:
        raise ConfigError(f"{name} must be positive, not {number}")
    return number
