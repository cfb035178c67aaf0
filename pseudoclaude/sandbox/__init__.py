"""The OS sandbox every command the model runs goes through.

The kernel, not a parser, decides what a command may touch. In the default
``workspace-write`` mode a command can write the workspace, the temp directory
and the configured ``writableRoots``, and nothing else; inside the workspace
``.git/hooks``, ``.git/config``, the agent's settings folders and the
instruction files stay read-only; paths under a ``Read(...)`` deny rule are
masked; the network is off unless allowed (all of it, or ``allowedDomains``
through a local proxy); the command runs in its own PID namespace with limits
on processes, memory and file size. ``read-only`` makes the workspace
read-only too; ``off`` runs commands as they are.

The seam the tools see is :class:`CommandSandbox`: it turns a command line
into the argv (and environment) that runs it confined, and says afterwards
whether a failure looks like the sandbox's doing. ``ToolContext.sandbox`` holds
one per session (None: commands run unconfined, as when the user chose
``--sandbox off`` or approved running one command outside).

How it is built: ``detect_sandbox`` picks the implementation for this machine
(``bwrap.BubblewrapSandbox`` on Linux, ``seatbelt.SeatbeltSandbox`` on macOS,
None with the reason otherwise); ``layout`` decides which paths are writable,
read-only or masked; ``limits`` confines each command's processes, memory and
file size (a cgroup where one is writable, rlimits otherwise); ``seccomp``
refuses new unix sockets; ``proxy`` and ``forwarder`` carry ``allowed`` traffic.

This face imports nothing heavy: it is on the start-up path (the
implementations load on first use).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pseudoclaude.lazy import lazy_getattr
from pseudoclaude.sandbox.seam import (
    NETWORK_MODES,
    SANDBOX_MODES,
    CommandSandbox,
    NetworkMode,
    PreparedCommand,
    SandboxConfig,
    SandboxLimits,
    SandboxMode,
    SandboxStatus,
)

if TYPE_CHECKING:
    from pseudoclaude.sandbox.blocked import blocked_line
    from pseudoclaude.sandbox.bwrap import BubblewrapSandbox
    from pseudoclaude.sandbox.detect import detect_sandbox
    from pseudoclaude.sandbox.seatbelt import SeatbeltSandbox, seatbelt_profile
    from pseudoclaude.sandbox.settings import SandboxSettingsError, sandbox_config

__getattr__ = lazy_getattr(
    __name__,
    {
        "BubblewrapSandbox": "bwrap",
        "SandboxSettingsError": "settings",
        "SeatbeltSandbox": "seatbelt",
        "blocked_line": "blocked",
        "detect_sandbox": "detect",
        "sandbox_config": "settings",
        "seatbelt_profile": "seatbelt",
    },
)

__all__ = [
    "BubblewrapSandbox",
    "CommandSandbox",
    "NETWORK_MODES",
    "NetworkMode",
    "PreparedCommand",
    "SANDBOX_MODES",
    "SandboxConfig",
    "SandboxLimits",
    "SandboxMode",
    "SandboxSettingsError",
    "SandboxStatus",
    "SeatbeltSandbox",
    "blocked_line",
    "detect_sandbox",
    "sandbox_config",
    "seatbelt_profile",
]
