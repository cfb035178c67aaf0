"""Settings from flags, environment, ``.env``, and settings files, in that precedence.

Settings files (JSON), later ones overriding earlier ones:
``$PSEUDOCLAUDE_HOME/settings.json`` (user), ``<workspace>/.pseudoclaude/settings.json``
(project), ``<workspace>/.pseudoclaude/settings.local.json`` (local, untracked).

API keys are read from the environment or the workspace ``.env`` only, never
from settings files, and never appear in ``repr``, logs, events or sessions.
This module is on the start-up path: it imports nothing heavy.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from pseudoclaude.llm.models import DEFAULT_MODELS, provider_for_model

PROVIDERS = ("anthropic", "openai")
PERMISSION_MODES = ("default", "accept-edits", "plan", "bypass")


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
    return (
        home / "settings.json",
        workspace / ".pseudoclaude" / "settings.json",
        workspace / ".pseudoclaude" / "settings.local.json",
    )


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


def read_dotenv(workspace: Path) -> dict[str, str]:
    """The workspace ``.env`` as a mapping; the process environment is not touched."""
    path = workspace / ".env"
    if not path.is_file():
        return {}
    from dotenv import dotenv_values

    return {key: value for key, value in dotenv_values(path).items() if value is not None}


def load_settings(workspace: Path, flags: Flags = Flags(), environ: Mapping[str, str] | None = None) -> Settings:
    """Resolve every setting; raise ``ConfigError`` when no provider is configured."""
    workspace = workspace.resolve()
    env = {**read_dotenv(workspace), **(os.environ if environ is None else environ)}
    home = pseudoclaude_home(env)
    paths = settings_paths(workspace, home)
    layers = tuple(read_settings_file(path) for path in paths)
    files: dict[str, Any] = {}
    for layer in layers:
        files.update({k: v for k, v in layer.items() if k not in ("permissions", "hooks")})

    model = flags.model or env.get("PSEUDOCLAUDE_MODEL") or _str(files.get("model"))
    provider = flags.provider or env.get("PSEUDOCLAUDE_PROVIDER") or _str(files.get("provider"))
    if provider and provider not in PROVIDERS:
        raise ConfigError(f"unknown provider {provider!r}: choose one of {', '.join(PROVIDERS)}")
    if not provider and model:
        provider = provider_for_model(model)
    if not provider:
        if env.get("ANTHROPIC_API_KEY"):
            provider = "anthropic"
        elif env.get("OPENAI_API_KEY") or env.get("OPENAI_BASE_URL"):
            provider = "openai"
    if not provider:
        raise ConfigError(
            "no model provider is configured: set ANTHROPIC_API_KEY, or OPENAI_API_KEY "
            "(or OPENAI_BASE_URL for an OpenAI-compatible server such as Ollama), in the environment or in .env"
        )
    key_var, url_var = ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL") if provider == "anthropic" else ("OPENAI_API_KEY", "OPENAI_BASE_URL")
    api_key = env.get(key_var) or None
    base_url = env.get(url_var) or None
    if api_key is None and not (provider == "openai" and base_url):
        raise ConfigError(f"the {provider} provider needs {key_var} (in the environment or in .env)")

    window = flags.context_window or _int(env.get("PSEUDOCLAUDE_CONTEXT_WINDOW"), "PSEUDOCLAUDE_CONTEXT_WINDOW") or _int(files.get("contextWindow"), "contextWindow")
    permissions: dict[str, Any] = {}
    for layer in layers:
        permissions.update(layer.get("permissions") or {})
    mode = flags.permission_mode or _str(permissions.get("defaultMode")) or "default"
    if mode not in PERMISSION_MODES:
        raise ConfigError(f"unknown permission mode {mode!r}: choose one of {', '.join(PERMISSION_MODES)}")
    sessions_dir = flags.sessions_dir or (Path(files["sessionsDir"]).expanduser() if files.get("sessionsDir") else home / "sessions")
    return Settings(
        workspace=workspace,
        home=home,
        sessions_dir=sessions_dir,
        provider=provider,
        model=model or DEFAULT_MODELS[provider],
        base_url=base_url,
        context_window=window,
        permission_mode=mode,
        allowed_tools=flags.allowed_tools,
        max_turns=flags.max_turns or _int(files.get("maxTurns"), "maxTurns") or 50,
        settings_layers=layers,
        settings_paths=paths,
        api_key=api_key,
    )


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
