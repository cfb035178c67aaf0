"""The settings files with every project entry the user has not trusted left out (``pseudoclaude.trust`` has the rules).

The project and local files of both families (``.claude/`` and
``.pseudoclaude/``) come with the repository; the trust question lists each
entry with the file it came from. The user's own files (ours and Claude
Code's) are always trusted.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from pseudoclaude.config.files import SCOPES, Scope, SettingsFiles, shown
from pseudoclaude.config.mcp import read_mcp_json, server_names
from pseudoclaude.config.resolve import from_files
from pseudoclaude.config.table import ROWS
from pseudoclaude.trust import TrustEntry, TrustStore, WorkspaceTrust, filter_layer, find_entries, mcp_json_entries


def trusted_settings_files(
    workspace: Path,
    home: Path,
    *,
    trust_workspace: bool = False,
    raw: SettingsFiles | None = None,
    extra: tuple[TrustEntry, ...] = (),
    environ: Mapping[str, str] | None = None,
    claude_scopes: Sequence[Scope] = SCOPES,
) -> tuple[SettingsFiles, WorkspaceTrust]:
    """The settings files with every project entry the user has not trusted left out, and what was left out.

    Trusted: everything with ``--trust-workspace`` or when the user's settings list the folder in
    ``trustedWorkspaces``; otherwise the entries approved earlier in this folder (``TrustStore``), and the
    ``.mcp.json`` servers the user's ``enableAllProjectMcpServers`` / ``enabledMcpjsonServers`` approve.
    ``extra``: entries found elsewhere (a base URL from the project ``.env``).
    """
    workspace = workspace.resolve()
    files = raw if raw is not None else SettingsFiles.read(workspace, home, environ, claude_scopes)
    project = [(shown(file.path, workspace), layer) for file, layer in files.pairs(scopes=("project", "local"))]
    servers = mcp_json_entries(read_mcp_json(workspace))
    entries = tuple(dict.fromkeys([*find_entries(project), *servers, *extra]))
    if not entries:
        return files, WorkspaceTrust(folder=workspace)
    trusted_by = "--trust-workspace" if trust_workspace else ("trustedWorkspaces" if _listed(files.user, workspace) else None)
    if trusted_by is not None:
        approved, declined = frozenset(entry.fingerprint for entry in entries), frozenset[str]()
    else:
        approved, declined = TrustStore(home).answers(workspace)
        approved = approved | _preapproved(files, servers)
    ignored = tuple(_unique(entry for entry in entries if entry.fingerprint not in approved))
    pending = tuple(entry for entry in ignored if entry.fingerprint not in declined)
    layers = tuple(
        layer if file.scope == "user" else filter_layer(shown(file.path, workspace), layer, approved) for file, layer in zip(files.files, files.layers)
    )
    trust = WorkspaceTrust(workspace, entries, ignored, pending, trusted_by)
    return SettingsFiles(files.files, layers), trust


def _preapproved(files: SettingsFiles, servers: Sequence[TrustEntry]) -> frozenset[str]:
    """The ``.mcp.json`` servers the user's own files approve (Claude Code's ``enableAllProjectMcpServers``, ``enabledMcpjsonServers``)."""
    if from_files(ROWS["enable_all_project_mcp_servers"], files).value is True:
        return frozenset(entry.fingerprint for entry in servers)
    named = set(server_names(from_files(ROWS["enabled_mcpjson_servers"], files).value, "enabledMcpjsonServers"))
    return frozenset(entry.fingerprint for entry in servers if entry.value in named)


def _listed(user: Mapping[str, Any], workspace: Path) -> bool:
    """Whether the user's own settings list ``workspace`` in ``trustedWorkspaces`` (exact folders, ``~`` expanded)."""
    listed = user.get("trustedWorkspaces")
    if not isinstance(listed, list):
        return False
    real = os.path.realpath(workspace)
    return any(isinstance(item, str) and item and os.path.realpath(Path(item).expanduser()) == real for item in listed)


def _unique(entries: Iterable[TrustEntry]) -> Iterable[TrustEntry]:
    seen: set[str] = set()
    for entry in entries:
        if entry.fingerprint not in seen:
            seen.add(entry.fingerprint)
            yield entry
