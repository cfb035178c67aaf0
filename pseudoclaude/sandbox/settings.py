"""The ``sandbox`` setting: ``{"mode", "network", "allowedDomains", "writableRoots", "limits"}``.

The user's own settings file says what it likes. A project or local settings
file comes with the repository (or sits in it, writable by its commands), so
it may only tighten: a stricter ``mode`` (off < workspace-write < read-only),
a stricter ``network`` (all < allowed < off), fewer ``allowedDomains``, lower
``limits``. What would loosen (a laxer mode or network, ``writableRoots``, new
domains, ``excludedCommands``) is ignored, each with one notice. ``--sandbox
MODE`` is the user's word for this run and wins over every file.

``limits``: ``{"processes": 4096, "memory": "8G", "fileSize": "8G"}``; sizes are
bytes or a number with ``K``, ``M``, ``G`` or ``T``.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from pseudoclaude.sandbox.seam import NETWORK_MODES, SANDBOX_MODES, NetworkMode, SandboxConfig, SandboxLimits, SandboxMode

KEYS = ("mode", "network", "allowedDomains", "writableRoots", "limits", "excludedCommands")
LIMIT_KEYS = ("processes", "memory", "fileSize")
_MODE_RANK = {"off": 0, "workspace-write": 1, "read-only": 2}
_NETWORK_RANK = {"all": 0, "allowed": 1, "off": 2}
_SIZE = re.compile(r"^\s*(\d+)\s*([KMGT]?)i?B?\s*$", re.IGNORECASE)


class SandboxSettingsError(ValueError):
    """A ``sandbox`` setting that cannot be understood (the message names the file and the key)."""


def sandbox_config(layers: Sequence[tuple[str, Mapping[str, Any]]], *, mode_flag: str | None = None) -> tuple[SandboxConfig, tuple[str, ...]]:
    """The sandbox configuration from settings layers ``(where, layer)``, the user's first; and the notices of what
    a project file asked and did not get."""
    config = SandboxConfig()
    notices: list[str] = []
    for index, (where, layer) in enumerate(layers):
        raw = layer.get("sandbox")
        if raw is None:
            continue
        if not isinstance(raw, Mapping):
            raise SandboxSettingsError(f"{where}: `sandbox` must be an object with {', '.join(KEYS)}")
        unknown = sorted(set(raw) - set(KEYS))
        if unknown:
            raise SandboxSettingsError(f"{where}: unknown `sandbox` key {unknown[0]!r} (known: {', '.join(KEYS)})")
        config = _apply(config, raw, where) if index == 0 else _tighten(config, raw, where, notices)
    if mode_flag is not None:
        config = replace(config, mode=_mode(mode_flag, "--sandbox"))
    return config, tuple(notices)


def _apply(config: SandboxConfig, raw: Mapping[str, Any], where: str) -> SandboxConfig:
    """The user's own layer: every key as written."""
    if "mode" in raw:
        config = replace(config, mode=_mode(raw["mode"], f"{where}: sandbox.mode"))
    if "network" in raw:
        config = replace(config, network=_network(raw["network"], where))
    if "allowedDomains" in raw:
        config = replace(config, allowed_domains=_strings(raw["allowedDomains"], f"{where}: sandbox.allowedDomains"))
    if "writableRoots" in raw:
        roots = _strings(raw["writableRoots"], f"{where}: sandbox.writableRoots")
        config = replace(config, writable_roots=tuple(Path(root).expanduser() for root in roots))
    if "excludedCommands" in raw:
        config = replace(config, excluded_commands=_strings(raw["excludedCommands"], f"{where}: sandbox.excludedCommands"))
    if "limits" in raw:
        config = replace(config, limits=_limits(config.limits, raw["limits"], where, lower_only=False))
    return config


def _tighten(config: SandboxConfig, raw: Mapping[str, Any], where: str, notices: list[str]) -> SandboxConfig:
    """A project or local layer: what tightens applies, what loosens is ignored with a notice."""
    ignored: list[str] = []
    network_before = config.network  # the user's, or as the layers before this one tightened it
    if "mode" in raw:
        mode = _mode(raw["mode"], f"{where}: sandbox.mode")
        if _MODE_RANK[mode] >= _MODE_RANK[config.mode]:
            config = replace(config, mode=mode)
        else:
            ignored.append(f"mode {mode!r}")
    if "network" in raw:
        network = _network(raw["network"], where)
        if _NETWORK_RANK[network] >= _NETWORK_RANK[config.network]:
            config = replace(config, network=network)
        else:
            ignored.append(f"network {network!r}")
    if "allowedDomains" in raw:
        domains = _strings(raw["allowedDomains"], f"{where}: sandbox.allowedDomains")
        if network_before == "allowed":
            kept = tuple(domain for domain in domains if domain in config.allowed_domains)
            if len(kept) < len(domains):
                ignored.append("allowedDomains beyond yours")
            config = replace(config, allowed_domains=kept)
        elif config.network == "allowed":
            config = replace(config, allowed_domains=domains)  # this layer narrowed "all" to these domains
        elif domains:
            ignored.append("allowedDomains")
    for key in ("writableRoots", "excludedCommands"):
        if raw.get(key):
            _strings(raw[key], f"{where}: sandbox.{key}")
            ignored.append(key)
    if "limits" in raw:
        config = replace(config, limits=_limits(config.limits, raw["limits"], where, lower_only=True))
    if ignored:
        notices.append(f"{where}: ignored sandbox {', '.join(ignored)} (a project's settings may only tighten the sandbox; set it in your own settings)")
    return config


def _mode(value: Any, where: str) -> SandboxMode:
    for mode in SANDBOX_MODES:
        if value == mode:
            return mode
    raise SandboxSettingsError(f"{where}: unknown sandbox mode {value!r}: choose one of {', '.join(SANDBOX_MODES)}")


def _network(value: Any, where: str) -> NetworkMode:
    for network in NETWORK_MODES:
        if value == network:
            return network
    raise SandboxSettingsError(f"{where}: sandbox.network must be one of {', '.join(NETWORK_MODES)}, not {value!r}")


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        raise SandboxSettingsError(f"{where} must be a list of non-empty strings")
    return tuple(item.strip() for item in value)


def _limits(current: SandboxLimits, raw: Any, where: str, *, lower_only: bool) -> SandboxLimits:
    if not isinstance(raw, Mapping):
        raise SandboxSettingsError(f"{where}: sandbox.limits must be an object with {', '.join(LIMIT_KEYS)}")
    unknown = sorted(set(raw) - set(LIMIT_KEYS))
    if unknown:
        raise SandboxSettingsError(f"{where}: unknown sandbox.limits key {unknown[0]!r} (known: {', '.join(LIMIT_KEYS)})")
    limits = current
    if "processes" in raw:
        processes = raw["processes"]
        if isinstance(processes, bool) or not isinstance(processes, int) or processes < 1:
            raise SandboxSettingsError(f"{where}: sandbox.limits.processes must be a whole number of at least 1, not {processes!r}")
        limits = replace(limits, processes=min(processes, current.processes) if lower_only else processes)
    if "memory" in raw:
        memory = _size(raw["memory"], f"{where}: sandbox.limits.memory")
        lower = min(memory, current.memory_bytes if current.memory_bytes is not None else _half_the_ram())
        limits = replace(limits, memory_bytes=lower if lower_only else memory)
    if "fileSize" in raw:
        size = _size(raw["fileSize"], f"{where}: sandbox.limits.fileSize")
        limits = replace(limits, file_bytes=min(size, current.file_bytes) if lower_only else size)
    return limits


def _half_the_ram() -> int:
    from pseudoclaude.sandbox.limits import ResourceLimits

    return ResourceLimits().memory_bytes


def _size(value: Any, where: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    match = _SIZE.match(value) if isinstance(value, str) else None
    if match is None or int(match.group(1)) <= 0:
        raise SandboxSettingsError(f'{where} must be a size in bytes or with K, M, G or T ("512M"), not {value!r}')
    return int(match.group(1)) << (10 * " KMGT".index(match.group(2).upper() or " "))
