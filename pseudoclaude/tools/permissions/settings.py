"""Permission rules in settings files: the only file IO of this package.

Three files hold rules, lowest precedence first (``pseudoclaude.config``
names them in ``settings_paths`` and reads them as the settings layers; rules
simply accumulate, and deny always beats allow, so order never weakens a
deny): the user's, the project's (checked in) and the local one (not checked
in). Which project rules apply at all is decided before they get here: an allow
rule from a project file counts only once the user trusted it (``pseudoclaude.trust``).

"Always allow" answers are appended to the local file under a file lock,
written to a temporary file and renamed into place, so a crash or a second
session never leaves a half-written settings file, and other keys survive.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Callable, Literal

from pseudoclaude.config import ConfigError, local_settings_path, read_settings_file
from pseudoclaude.trust import TrustEntry, TrustStore
from pseudoclaude.tools.permissions.rules import Rule


class SettingsError(Exception):
    """A settings file that exists but cannot be used."""


def read_settings(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``; ``{}`` when the file does not exist or is empty (``config.read_settings_file``,
    the one reader of every settings file)."""
    try:
        return read_settings_file(path)
    except ConfigError as exc:
        raise SettingsError(str(exc)) from None


def append_local_rule(workspace: Path, rule: Rule, *, kind: Literal["allow", "deny"] = "allow") -> Path:
    """Add ``rule`` to the local settings file (once), atomically; returns the file's path."""
    from filelock import FileLock

    path = local_settings_path(workspace)
    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(path) + ".lock", timeout=10):
        data = read_settings(path)
        permissions = data.setdefault("permissions", {})
        if not isinstance(permissions, dict):
            raise SettingsError(f"{path}: `permissions` must be an object")
        entries = permissions.setdefault(kind, [])
        if not isinstance(entries, list):
            raise SettingsError(f"{path}: `permissions.{kind}` must be a list")
        if str(rule) not in entries:
            entries.append(str(rule))
            _write_atomically(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    _exclude_from_git(workspace, path)
    return path


def _exclude_from_git(workspace: Path, path: Path) -> None:
    """Keep the local settings (and their lock) out of git via ``.git/info/exclude``, as peers do.

    The user's tracked ``.gitignore`` is left alone; nothing happens outside a git work tree.
    """
    git = workspace / ".git"
    if not git.is_dir():
        return
    try:
        relative = path.relative_to(workspace).as_posix()
    except ValueError:
        return
    exclude = git / "info" / "exclude"
    wanted = [relative, relative + ".lock"]
    try:
        present = exclude.read_text(encoding="utf-8").splitlines() if exclude.exists() else []
        missing = [line for line in wanted if line not in present]
        if missing:
            exclude.parent.mkdir(parents=True, exist_ok=True)
            with open(exclude, "a", encoding="utf-8") as stream:
                prefix = "" if not present or exclude.read_text(encoding="utf-8").endswith("\n") else "\n"
                stream.write(prefix + "\n".join(missing) + "\n")
    except OSError:
        pass  # ignoring the file in git is a courtesy; the rule itself is saved


def local_rule_sink(workspace: Path, home: Path | None = None) -> Callable[[Rule], None]:
    """A ``rule_sink`` for :class:`PermissionPolicy` that persists "always" answers.

    With ``home`` (the user's configuration folder) the rule is also recorded as approved
    in this folder's workspace trust: the user gave it, so the next session applies it
    even where the project's own entries are not trusted.
    """

    def sink(rule: Rule) -> None:
        append_local_rule(workspace, rule)
        if home is not None:
            TrustStore(home).record(workspace, [TrustEntry("allow", str(rule), "settings.local.json")], trusted=True)

    return sink


def _write_atomically(path: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
