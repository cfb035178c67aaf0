"""Workspace trust: what a cloned repository may do before the user said so.

Three tiers (DESIGN.md): the user (flags, the environment, user settings) is
always trusted; a repository (its ``.pseudoclaude/settings*.json``, Claude
Code's ``.claude/settings*.json``, its ``.env`` and ``.mcp.json``) is trusted only for the entries the user approved in that folder; the
model's tool calls are checked every time by the permission policy.

Only the entries that raise what the project can do need approval
(``find_entries``): a hook command (it runs on the user's machine),
a server of the project's ``.mcp.json`` (it starts a command, or sends the tool calls somewhere),
``disableAllHooks`` (it would silence the user's own guard hooks), an allow
rule or a permission mode other than ``default``/``plan`` (they loosen
approvals), a ``sessionsDir`` (it moves the transcripts), and a ``*_BASE_URL``
from the project ``.env`` that would carry the user's own key (``config``
finds that one). Entries that only narrow (deny rules, ``plan``) or choose a
model always apply. ``filter_layer`` removes every unapproved entry from a
project layer before anything reads it, so the rest of the program never sees
them.

Approval is remembered per folder in ``<home>/trust.json``, keyed by the
folder's real path, as the fingerprints (SHA-256) of the entries approved or
declined. An edited entry has a new fingerprint, so it is asked about again;
unchanged entries keep their answer. This module imports nothing heavy: it is
read on the start-up path by ``config``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Literal, Mapping, Sequence

TRUST_FILE = "trust.json"
SAFE_MODES = frozenset({"default", "plan"})
EntryKind = Literal["hook", "nohooks", "allow", "mode", "sessions", "endpoint", "mcp", "env", "helper"]
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_REORDERING = re.compile("[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")


@dataclass(frozen=True)
class TrustEntry:
    """One project setting that needs the user's consent: what it is, where it came from, what it does."""

    kind: EntryKind
    value: str
    source: str
    detail: str = ""

    @property
    def fingerprint(self) -> str:
        """Stable across files (an entry moved from settings.json to settings.local.json keeps its answer),
        not across meanings: a hook moved to another event or matcher is a new entry."""
        return hashlib.sha256(f"{self.kind}\0{self.value}\0{self.detail}".encode("utf-8", "surrogatepass")).hexdigest()

    def describe(self) -> str:
        """One line for the trust question, control characters shown escaped."""
        text = {
            "hook": f"runs the command {self.value!r} {self.detail}",
            "nohooks": "turns off every hook, your own included (disableAllHooks)",
            "allow": f"allows {self.value!r} without asking",
            "mode": f"sets the permission mode to {self.value!r}",
            "sessions": f"keeps the session transcripts in {self.value!r}",
            "endpoint": f"sends {self.detail} to {self.value}",
            "mcp": f"starts the MCP server {self.value!r}: {_server_target(self.detail)}",
            "env": f"sets the variable {self.value} for this session",
            "helper": f"runs the command {self.value!r} to get the API key (apiKeyHelper)",
        }[self.kind]
        return visible(f"{text}  ({self.source})")


@dataclass(frozen=True)
class WorkspaceTrust:
    """What this run applies from the project, and what it leaves out until the user agrees."""

    folder: Path | None = None
    entries: tuple[TrustEntry, ...] = ()
    ignored: tuple[TrustEntry, ...] = ()
    pending: tuple[TrustEntry, ...] = ()
    trusted_by: str | None = None
    notices: tuple[str, ...] = ()

    def ignored_notice(self) -> str | None:
        """The one line saying what was left out, or None when nothing was."""
        if not self.ignored:
            return None
        kinds = sorted({_KIND_WORDS[entry.kind] for entry in self.ignored})
        count = len(self.ignored)
        return (
            f"this folder is not trusted: {count} project setting{'s' if count != 1 else ''} ignored ({', '.join(kinds)}); "
            "review with 'pseudoclaude trust', or run with --trust-workspace"
        )


_KIND_WORDS = {
    "hook": "hooks",
    "nohooks": "disableAllHooks",
    "allow": "allow rules",
    "mode": "permission mode",
    "sessions": "sessions folder",
    "endpoint": "base URL",
    "mcp": "MCP servers",
    "env": "env variables",
    "helper": "apiKeyHelper",
}


def _server_target(declaration: str) -> str:
    """What an ``.mcp.json`` server runs or connects to, from its declaration (JSON text)."""
    try:
        raw = json.loads(declaration)
    except json.JSONDecodeError:
        return declaration[:200]
    if not isinstance(raw, dict):
        return declaration[:200]
    kind = _text(raw.get("type") or ("stdio" if "command" in raw else "http")).lower()
    if kind == "stdio":
        args: list[Any] = raw["args"] if isinstance(raw.get("args"), list) else []
        return "runs " + " ".join(_text(part) for part in (raw.get("command"), *args))[:300] + _pairs("environment", raw.get("env"))
    return f"connects to {_text(raw.get('url'))[:300]}" + _pairs("headers", raw.get("headers"))


def _pairs(label: str, values: Any) -> str:
    """The declared ``env``/``headers`` (``${VAR}`` unexpanded), every name shown: ``NODE_OPTIONS=--require ./x.js``
    or ``LD_PRELOAD`` runs repository code under an innocent-looking command."""
    if not isinstance(values, Mapping) or not values:
        return ""
    return f" with {label} " + ", ".join(f"{_text(name)}={_text(value)[:80]}" for name, value in values.items())


def mcp_json_entries(servers: Mapping[str, Any], source: str = ".mcp.json") -> list[TrustEntry]:
    """One entry per server of a project's ``.mcp.json``: its commands come from the repository."""
    return [TrustEntry("mcp", str(name), source, json.dumps(raw, sort_keys=True, default=str)) for name, raw in servers.items()]


def visible(text: str) -> str:
    """``text`` with control characters shown as ``^X`` / ``\\xNN``, safe to print on a terminal; the
    bidirectional and zero-width characters that reorder or hide what a command shows ("Trojan Source")
    as ``<U+202E>``, since the trust question is printed before any safe console exists."""
    text = _REORDERING.sub(lambda m: f"<U+{ord(m.group()):04X}>", text)
    return _CONTROL.sub(lambda m: f"^{chr(ord(m.group()) + 64)}" if ord(m.group()) < 32 else f"\\x{ord(m.group()):02x}", text)


def find_entries(layers: Sequence[tuple[str, Mapping[str, Any]]]) -> list[TrustEntry]:
    """The entries of the project ``layers`` (name, content) that need consent, in file order."""
    found: list[TrustEntry] = []
    for source, layer in layers:
        found.extend(_hook_entries(source, layer.get("hooks")))
        if layer.get("disableAllHooks") is True:
            found.append(TrustEntry("nohooks", "true", source))
        permissions = layer.get("permissions")
        if isinstance(permissions, Mapping):
            allow = permissions.get("allow")
            if isinstance(allow, list):
                found.extend(TrustEntry("allow", _text(rule), source) for rule in allow)
            mode = permissions.get("defaultMode")
            if mode is not None and mode not in SAFE_MODES:
                found.append(TrustEntry("mode", _text(mode), source))
        if layer.get("sessionsDir") is not None:
            found.append(TrustEntry("sessions", _text(layer.get("sessionsDir")), source))
        env = layer.get("env")
        if isinstance(env, Mapping):
            found.extend(TrustEntry("env", _assignment(name, value), source) for name, value in env.items())
        if layer.get("apiKeyHelper") is not None:
            found.append(TrustEntry("helper", _text(layer.get("apiKeyHelper")), source))
    return found


def _assignment(name: Any, value: Any) -> str:
    return f"{_text(name)}={_text(value)}"


def filter_layer(source: str, layer: Mapping[str, Any], approved: frozenset[str]) -> dict[str, Any]:
    """``layer`` without the entries whose fingerprint is not in ``approved``."""
    out = dict(layer)
    if "hooks" in out:
        out["hooks"] = _filtered_hooks(source, out["hooks"], approved)
    if out.get("disableAllHooks") is True and TrustEntry("nohooks", "true", source).fingerprint not in approved:
        del out["disableAllHooks"]
    permissions = out.get("permissions")
    if isinstance(permissions, Mapping):
        permissions = dict(permissions)
        allow = permissions.get("allow")
        if isinstance(allow, list):
            permissions["allow"] = [rule for rule in allow if TrustEntry("allow", _text(rule), source).fingerprint in approved]
        mode = permissions.get("defaultMode")
        if mode is not None and mode not in SAFE_MODES and TrustEntry("mode", _text(mode), source).fingerprint not in approved:
            del permissions["defaultMode"]
        out["permissions"] = permissions
    if out.get("sessionsDir") is not None and TrustEntry("sessions", _text(out["sessionsDir"]), source).fingerprint not in approved:
        del out["sessionsDir"]
    if isinstance(out.get("env"), Mapping):
        out["env"] = {name: value for name, value in out["env"].items() if TrustEntry("env", _assignment(name, value), source).fingerprint in approved}
    elif "env" in out:
        del out["env"]
    if out.get("apiKeyHelper") is not None and TrustEntry("helper", _text(out["apiKeyHelper"]), source).fingerprint not in approved:
        del out["apiKeyHelper"]
    return out


def _hook_entries(source: str, hooks: Any) -> list[TrustEntry]:
    found: list[TrustEntry] = []
    if not isinstance(hooks, Mapping):
        return found
    for event, groups in hooks.items():
        for group in groups if isinstance(groups, list) else ():
            if not isinstance(group, Mapping):
                continue
            hooks_list = group.get("hooks")
            for hook in hooks_list if isinstance(hooks_list, list) else ():
                if isinstance(hook, Mapping) and "command" in hook:
                    found.append(_hook_entry(source, event, group, hook))
    return found


def _hook_entry(source: str, event: Any, group: Mapping[str, Any], hook: Mapping[str, Any]) -> TrustEntry:
    matcher = group.get("matcher")
    where = f"on {_text(event)}" + (f" for {_text(matcher)!r}" if matcher not in (None, "", "*") else "")
    return TrustEntry("hook", _text(hook.get("command")), source, where)


def _filtered_hooks(source: str, hooks: Any, approved: frozenset[str]) -> Any:
    """The hooks object keeping only approved commands; a shape we cannot read is dropped whole."""
    if not isinstance(hooks, Mapping):
        return {}
    kept: dict[str, Any] = {}
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            continue
        new_groups = []
        for group in groups:
            if not isinstance(group, Mapping) or not isinstance(group.get("hooks"), list):
                continue
            commands = [
                hook
                for hook in group["hooks"]
                if not (isinstance(hook, Mapping) and "command" in hook) or _hook_entry(source, event, group, hook).fingerprint in approved
            ]
            commands = [hook for hook in commands if isinstance(hook, Mapping)]
            if commands:
                new_groups.append({**group, "hooks": commands})
        if new_groups:
            kept[str(event)] = new_groups
    return kept


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)


@dataclass
class TrustStore:
    """``<home>/trust.json``: per folder (its real path), the fingerprints approved and declined."""

    home: Path
    _data: dict[str, Any] = field(default_factory=dict, init=False, repr=False)

    @property
    def path(self) -> Path:
        return self.home / TRUST_FILE

    def answers(self, folder: Path) -> tuple[frozenset[str], frozenset[str]]:
        """(approved, declined) fingerprints for ``folder``; a damaged file trusts nothing."""
        record = self._read().get("folders", {}).get(_key(folder), {})
        if not isinstance(record, Mapping):
            return frozenset(), frozenset()
        return _strings(record.get("approved")), _strings(record.get("declined"))

    def record(self, folder: Path, entries: Iterable[TrustEntry], *, trusted: bool) -> None:
        """Remember the answer for ``entries`` in ``folder`` (a later answer replaces an earlier one)."""
        fingerprints = {entry.fingerprint for entry in entries}

        def change(approved: set[str], declined: set[str]) -> None:
            approved -= fingerprints
            declined -= fingerprints
            (approved if trusted else declined).update(fingerprints)

        self._update(folder, change)

    def forget_declined(self, folder: Path) -> None:
        """Ask again about the entries declined in ``folder``."""
        self._update(folder, lambda approved, declined: declined.clear())

    def forget(self, folder: Path) -> None:
        """Forget every answer given in ``folder``."""

        def clear(approved: set[str], declined: set[str]) -> None:
            approved.clear()
            declined.clear()

        self._update(folder, clear)

    def _update(self, folder: Path, change: Callable[[set[str], set[str]], None]) -> None:
        from filelock import FileLock

        self.home.mkdir(parents=True, exist_ok=True)
        with FileLock(str(self.path) + ".lock", timeout=10):
            data = self._read()
            folders = data.setdefault("folders", {})
            record = folders.get(_key(folder))
            record = record if isinstance(record, Mapping) else {}
            approved, declined = set(_strings(record.get("approved"))), set(_strings(record.get("declined")))
            change(approved, declined)
            folders[_key(folder)] = {"approved": sorted(approved), "declined": sorted(declined)}
            data["version"] = 1
            _write_private(self.path, json.dumps(data, indent=2, sort_keys=True) + "\n")

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            return {}
        return data if isinstance(data, dict) and isinstance(data.get("folders", {}), dict) else {}


def _key(folder: Path) -> str:
    return str(Path(os.path.realpath(folder)))


def _strings(value: Any) -> frozenset[str]:
    return frozenset(item for item in value if isinstance(item, str)) if isinstance(value, list) else frozenset()


def _write_private(path: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
