"""The MCP servers of a run: the user's settings, the project's ``.mcp.json`` (once trusted), ``--mcp-config``.

Claude Code's ``enableAllProjectMcpServers`` and ``enabledMcpjsonServers``
approve ``.mcp.json`` servers in advance; they are read from the user's own
files only (a repository cannot approve its own commands), where they count as
the user's trust for those servers (``config.trusted``).
``disabledMcpjsonServers`` only turns servers off, so every file's applies.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Mapping

from pseudoclaude.config.files import read_settings_file
from pseudoclaude.config.types import ConfigError, Flags, McpDeclarations
from pseudoclaude.trust import WorkspaceTrust, mcp_json_entries

MCP_JSON = ".mcp.json"


def read_mcp_json(workspace: Path) -> dict[str, Any]:
    """The ``mcpServers`` of the project's ``.mcp.json`` (Claude Code's file), unchecked beyond the shape."""
    return mcp_servers(read_settings_file(workspace / MCP_JSON), workspace / MCP_JSON)


def mcp_declarations(workspace: Path, user: Mapping[str, Any], flags: Flags, trust: WorkspaceTrust, disabled: Iterable[str] = ()) -> McpDeclarations:
    """The MCP servers of this run: the user's settings, then the trusted ``.mcp.json`` servers (less the
    ``disabledMcpjsonServers``), then ``--mcp-config`` (a later one with the same name wins); with
    ``--strict-mcp-config`` only the last."""
    found: dict[str, tuple[str, Mapping[str, Any]]] = {}
    if not flags.strict_mcp_config:
        found.update((name, ("user settings", raw)) for name, raw in mcp_servers(user, Path("user settings")).items())
        ignored = {entry.fingerprint for entry in trust.ignored}
        project = read_mcp_json(workspace)
        off = set(disabled)
        kept = {entry.value for entry in mcp_json_entries(project) if entry.fingerprint not in ignored and entry.value not in off}
        found.update((name, (MCP_JSON, raw)) for name, raw in project.items() if name in kept)
    for value in flags.mcp_config:
        found.update((name, ("--mcp-config", raw)) for name, raw in _mcp_config(value).items())
    return found


def server_names(values: Any, where: str) -> tuple[str, ...]:
    """``enabledMcpjsonServers`` / ``disabledMcpjsonServers``: a list of server names."""
    if values is None:
        return ()
    if not isinstance(values, list) or not all(isinstance(name, str) for name in values):
        raise ConfigError(f"{where} must be a list of server names")
    return tuple(values)


def _mcp_config(value: str) -> dict[str, Any]:
    """One ``--mcp-config`` value: a JSON object, or a file holding one."""
    if value.lstrip().startswith("{"):
        try:
            document = json.loads(value)
        except json.JSONDecodeError as error:
            raise ConfigError(f"--mcp-config: not valid JSON ({error})") from None
        if not isinstance(document, dict):
            raise ConfigError("--mcp-config must hold a JSON object")
        return mcp_servers(document, Path("--mcp-config"))
    path = Path(value).expanduser()
    if not path.is_file():
        raise ConfigError(f"--mcp-config: no such file {path}")
    return mcp_servers(read_settings_file(path), path)


def mcp_servers(document: Mapping[str, Any], where: Path) -> dict[str, Any]:
    servers = document.get("mcpServers", {})
    if not isinstance(servers, dict) or not all(isinstance(raw, dict) for raw in servers.values()):
        raise ConfigError(f"{where}: `mcpServers` must be an object of server objects")
    return servers
