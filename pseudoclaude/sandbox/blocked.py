"""Saying, in one line, that a failed command probably ran into the sandbox.

A hint, not a verdict: the line lets the model (and the approval layer above,
which offers to run the command outside) tell a sandbox refusal from an
ordinary failure. It is given only for a command that failed, and only when
its output carries the kernel's words for it: ``Read-only file system`` on a
path outside the writable roots (or on a protected one inside), or the usual
messages of a connection that could not be made while the network is off.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from pseudoclaude.sandbox.seam import NetworkMode

_QUOTED = re.compile("['\"\u2018\u2019`]([^'\"\u2018\u2019`\n]+)['\"\u2018\u2019`]")
_BARE = re.compile(r"([^\s:]+):\s*Read-only file system")
_NETWORK = (
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    "Network is unreachable",
    "No address associated with hostname",
    "getaddrinfo failed",
    "Failed to connect to",
    "Connection refused",
    "Couldn't connect to server",
    "nodename nor servname provided",
    "network is unreachable",
    "connect: Network is unreachable",
)


def blocked_line(output: str, exit_code: int | None, *, cwd: Path, writable: tuple[Path, ...], protected: tuple[Path, ...], network: NetworkMode) -> str | None:
    """One line when ``output`` looks like a sandbox refusal (see the module docstring), else None."""
    if exit_code is None or exit_code == 0:
        return None
    if "Read-only file system" in output:
        path = _read_only_path(output)
        if path is None:
            return "sandbox: a write was refused (read-only file system): only the workspace, the temp folder and writableRoots are writable"
        real = Path(os.path.realpath(cwd / path))
        if any(real == p or real.is_relative_to(p) for p in protected):
            return f"sandbox: {path} is kept read-only inside the sandbox (git hooks and config, agent settings, instruction files)"
        if not any(real == root or real.is_relative_to(root) for root in writable):
            return f"sandbox: {path} is outside the writable folders (the workspace, the temp folder and writableRoots)"
    if network == "off" and any(marker in output for marker in _NETWORK):
        return 'sandbox: the network is off inside the sandbox (the setting sandbox.network: "all" or allowedDomains turns it on)'
    return None


def _read_only_path(output: str) -> str | None:
    """The path a ``Read-only file system`` line names (coreutils, bash and Python spell it differently)."""
    for line in output.splitlines():
        if "Read-only file system" not in line:
            continue
        quoted = _QUOTED.findall(line)
        if quoted:
            return str(quoted[-1])
        bare = _BARE.search(line)
        if bare:
            return bare.group(1)
    return None
