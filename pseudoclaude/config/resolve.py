"""The one resolver: a row of the settings table, and where its value came from.

Precedence, strongest first: the command line (the row's ``Flags`` field), the
row's variables in order, each looked up in the process environment, then the
workspace ``.env``, then the ``env`` setting of the settings files
(``Variables``), then the settings files by the row's merge rule
(``config.table``), then the row's default. The answer carries its
``Origin``, so ``/status`` and ``doctor`` show what was recorded instead of
guessing it back from the value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from pseudoclaude.config.files import SettingsFile, SettingsFiles, shown
from pseudoclaude.config.table import Setting
from pseudoclaude.config.types import Flags, Origin

COMMAND_LINE = "command line"
DEFAULT = "default"
NOT_SET = "not set"


@dataclass(frozen=True)
class Variables:
    """The variables of this run, each with where it was found (``find`` has the order)."""

    process: Mapping[str, str]
    dotenv: Mapping[str, str] = field(default_factory=dict)
    settings: Mapping[str, tuple[str, SettingsFile]] = field(default_factory=dict)
    """name -> (value, the file whose ``env`` set it)."""

    def get(self, name: str) -> str | None:
        found = self.find(name)
        return None if found is None else found[0]

    def find(self, name: str, *, workspace: bool = True) -> tuple[str, str] | None:
        """(value, source) of ``name``, an empty value counting as unset: the process environment, the ``env`` of
        the user's own settings, the workspace ``.env``, the ``env`` of the (trusted) project files; with
        ``workspace=False`` the user's sources only."""
        if self.process.get(name):
            return self.process[name], f"environment {name}"
        user = self._from_settings(name, user=True)
        if user is not None:
            return user
        if not workspace:
            return None
        if self.dotenv.get(name):
            return self.dotenv[name], f".env {name}"
        return self._from_settings(name, user=False)

    def _from_settings(self, name: str, *, user: bool) -> tuple[str, str] | None:
        found = self.settings.get(name)
        if found is None or not found[0] or (found[1].scope == "user") != user:
            return None
        return found[0], f"{describe(found[1])} env {name}"

    def merged(self) -> dict[str, str]:
        """Every variable as one mapping, the strongest source winning."""
        names = {*self.process, *self.dotenv, *self.settings}
        return {name: found[0] for name in names if (found := self.find(name)) is not None}

    def users(self) -> dict[str, str]:
        """The variables the user set (not the workspace ``.env``): ``config.load`` guards them from a project's base URL."""
        return {**{name: value for name, (value, file) in self.settings.items() if file.scope == "user"}, **self.process}


@dataclass(frozen=True)
class Resolved:
    value: Any
    source: str

    def origin(self) -> Origin:
        return Origin(NOT_SET if self.value is None else str(self.value), self.source)


def describe(file: SettingsFile) -> str:
    """A settings file as provenance: "Claude Code project settings (.claude/settings.json)", "user settings (~/...)"."""
    return f"{file.label} ({home_relative(file.path) if file.scope == 'user' else shown(file.path, file.path.parent.parent)})"


def home_relative(path: Path) -> str:
    try:
        return "~/" + path.relative_to(Path.home()).as_posix()
    except ValueError:
        return str(path)


def resolve(row: Setting, flags: Flags, variables: Variables, files: SettingsFiles) -> Resolved:
    """``row``'s value and origin (see the module docstring); a bad value is a ``ConfigError`` naming where it was."""
    given = getattr(flags, row.flag) if row.flag is not None else None
    if given is not None and given != ():
        return Resolved(row.parse(given, str(row.flag_name)), f"{COMMAND_LINE} {row.flag_name}")
    for name in row.env:
        found = variables.find(name, workspace=row.workspace_env)
        if found is not None:
            value = row.parse(found[0], name)
            if value is not None:
                return Resolved(value, found[1])
    return from_files(row, files)


def from_files(row: Setting, files: SettingsFiles) -> Resolved:
    """``row``'s value from the settings files alone, by its merge rule."""
    pairs = [
        (file, row.parse(raw, f"{file.path}: `{row.key}`"))
        for file, layer in files.pairs()
        if file.family in row.families and (row.merge != "user" or file.scope == "user") and (raw := row.lookup(layer)) is not None
    ]
    pairs = [(file, value) for file, value in pairs if value is not None]
    if not pairs:
        return Resolved(row.default, DEFAULT if row.default is not None else NOT_SET)
    if row.merge == "lowest":
        file, value = min(pairs, key=lambda pair: pair[1])
    elif row.merge == "mode":
        file, value = pairs[0]
        for later, mode in pairs[1:]:
            if not (later.scope != "user" and mode == "default" and value == "plan"):
                file, value = later, mode
    elif row.merge == "combine":
        return Resolved([value for _, value in pairs], ", ".join(describe(file) for file, _ in pairs))
    else:
        file, value = pairs[-1]
    return Resolved(value, describe(file))
