"""The settings files of both families, ours and Claude Code's, and the one reader for all of them.

Six files, lowest precedence first: at each scope Claude Code's file, then
ours, so a team's checked-in ``.claude/settings.json`` is honoured and our own
file of the same scope can still override it::

    ~/.claude/settings.json            Claude Code user   (CLAUDE_CONFIG_DIR replaces ~/.claude)
    $PSEUDOCLAUDE_HOME/settings.json   user
    .claude/settings.json              Claude Code project
    .pseudoclaude/settings.json        project
    .claude/settings.local.json        Claude Code local
    .pseudoclaude/settings.local.json  local

``--setting-sources`` (Claude Code's flag; the Agent SDK passes it) names the
scopes of Claude Code's files to read: ``""`` reads none of them (the SDK's
isolation mode). Our own files are always read: they hold what PseudoClaude
was set up with (the sandbox, ``trustedWorkspaces``, the model), and an SDK
caller who isolates itself from the user's Claude Code configuration does not
expect to lose those; a project file still applies only what trust allows.

An empty file (or one holding only white space) means ``{}`` in every family:
editors and ``touch`` leave such files behind.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Mapping, Sequence

from pseudoclaude.config.types import ConfigError

Scope = Literal["user", "project", "local"]
Family = Literal["claude", "ours"]
SCOPES: tuple[Scope, ...] = ("user", "project", "local")
FAMILIES: tuple[Family, ...] = ("claude", "ours")


@dataclass(frozen=True)
class SettingsFile:
    """One settings file: its scope, whose format it is, where it lives."""

    scope: Scope
    family: Family
    path: Path

    @property
    def label(self) -> str:
        """How ``/status``, ``doctor`` and the trust question name it: "user settings", "Claude Code project settings"."""
        return ("Claude Code " if self.family == "claude" else "") + f"{self.scope} settings"


def pseudoclaude_home(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    return Path(env.get("PSEUDOCLAUDE_HOME") or Path.home() / ".pseudoclaude").expanduser()


def claude_config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Claude Code's user folder: ``CLAUDE_CONFIG_DIR``, else ``~/.claude`` (never read from ``.env``)."""
    env = os.environ if environ is None else environ
    if env.get("CLAUDE_CONFIG_DIR"):
        return Path(env["CLAUDE_CONFIG_DIR"]).expanduser()
    home = env.get("HOME")
    return (Path(home) if home else Path.home()) / ".claude"


def settings_paths(workspace: Path, home: Path) -> tuple[Path, Path, Path]:
    """Our own user, project and local settings files, in increasing precedence."""
    return (home / "settings.json", workspace / ".pseudoclaude" / "settings.json", local_settings_path(workspace))


def local_settings_path(workspace: Path) -> Path:
    """The settings file of this user in this workspace, kept out of git ("always allow" answers go there)."""
    return workspace / ".pseudoclaude" / "settings.local.json"


def parse_setting_sources(value: str | None) -> tuple[Scope, ...]:
    """``--setting-sources user,project,local`` (None: every scope; ``""``: none); an unknown scope is a ``ConfigError``."""
    if value is None:
        return SCOPES
    named = [part.strip() for part in value.split(",") if part.strip()]
    unknown = [name for name in named if name not in SCOPES]
    if unknown:
        raise ConfigError(f"--setting-sources: unknown source {unknown[0]!r}: choose from user, project, local")
    return tuple(scope for scope in SCOPES if scope in named)


def settings_files(workspace: Path, home: Path, environ: Mapping[str, str] | None = None, claude_scopes: Sequence[Scope] = SCOPES) -> tuple[SettingsFile, ...]:
    """Every settings file of this run, lowest precedence first (the module docstring has the order).

    A Claude Code project file that is the user's own (the workspace is the home folder) is read once, as the user's.
    """
    claude_home = claude_config_dir(environ)
    found: list[SettingsFile] = []
    for scope, ours in zip(SCOPES, settings_paths(workspace, home)):
        claude = {
            "user": claude_home / "settings.json",
            "project": workspace / ".claude" / "settings.json",
            "local": workspace / ".claude" / "settings.local.json",
        }[scope]
        if scope in claude_scopes and not (scope != "user" and _same(claude, claude_home / "settings.json")):
            found.append(SettingsFile(scope, "claude", claude))
        found.append(SettingsFile(scope, "ours", ours))
    return tuple(found)


def _same(a: Path, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def read_settings_file(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``: ``{}`` when it does not exist or is empty; ``ConfigError`` naming the path otherwise."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except IsADirectoryError:
        raise ConfigError(f"cannot read settings file {path}: it is a folder") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read settings file {path}: {error}") from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(f"cannot read settings file {path}: {error}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"settings file {path} must hold a JSON object")
    return data


@dataclass(frozen=True)
class SettingsFiles:
    """The settings files, read once; later layers override earlier ones (``files`` says which is which)."""

    files: tuple[SettingsFile, ...]
    layers: tuple[Mapping[str, Any], ...]

    @classmethod
    def read(cls, workspace: Path, home: Path, environ: Mapping[str, str] | None = None, claude_scopes: Sequence[Scope] = SCOPES) -> SettingsFiles:
        files = settings_files(workspace, home, environ, claude_scopes)
        return cls(files, tuple(read_settings_file(file.path) for file in files))

    @property
    def paths(self) -> tuple[Path, ...]:
        return tuple(file.path for file in self.files)

    def pairs(self, *, family: Family | None = None, scopes: Sequence[Scope] = SCOPES) -> list[tuple[SettingsFile, Mapping[str, Any]]]:
        """(file, layer) of ``family`` (None: both) and ``scopes``, lowest precedence first."""
        return [(file, layer) for file, layer in zip(self.files, self.layers) if (family is None or file.family == family) and file.scope in scopes]

    @property
    def user(self) -> Mapping[str, Any]:
        """Our own user settings (``trustedWorkspaces``, ``mcpServers`` and the other user-only keys live there)."""
        return next(layer for file, layer in self.pairs(family="ours", scopes=("user",)))

    def get(self, key: str, family: Family | None = "ours") -> Any:
        """A top-level value: the last file of ``family`` that has ``key`` wins."""
        value = None
        for _, layer in self.pairs(family=family):
            value = layer.get(key, value)
        return value


def read_dotenv(workspace: Path) -> dict[str, str]:
    """The workspace ``.env`` as a mapping, values as written; the process environment is not touched.

    No ``${VAR}`` interpolation: the file comes with the repository, and
    ``OPENAI_API_KEY=${ANTHROPIC_API_KEY}`` next to its own base URL would pass the
    user's key off as the project's.
    """
    path = workspace / ".env"
    if not path.is_file():
        return {}
    from dotenv import dotenv_values

    return {key: value for key, value in dotenv_values(path, interpolate=False).items() if value is not None}


def shown(path: Path, workspace: Path) -> str:
    """``path`` relative to the workspace when inside it (how the trust question names project files)."""
    try:
        return path.relative_to(workspace).as_posix()
    except ValueError:
        return str(path)
