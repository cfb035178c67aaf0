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

from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Mapping, Protocol

from pseudoclaude.lazy import lazy_getattr

if TYPE_CHECKING:
    from pseudoclaude.sandbox.blocked import blocked_line
    from pseudoclaude.sandbox.bwrap import BubblewrapSandbox
    from pseudoclaude.sandbox.detect import detect_sandbox
    from pseudoclaude.sandbox.seatbelt import SeatbeltSandbox, seatbelt_profile
    from pseudoclaude.sandbox.settings import SandboxSettingsError, sandbox_config

SandboxMode = Literal["workspace-write", "read-only", "off"]
SANDBOX_MODES: tuple[SandboxMode, ...] = ("workspace-write", "read-only", "off")

NetworkMode = Literal["off", "allowed", "all"]
"""``off``: no network at all; ``allowed``: only ``allowedDomains``, through the local proxy; ``all``: unrestricted."""
NETWORK_MODES: tuple[NetworkMode, ...] = ("off", "allowed", "all")


@dataclass(frozen=True)
class SandboxLimits:
    """Per-command ceilings; generous enough for real builds (a cgroup enforces them where one is writable)."""

    processes: int = 4096
    memory_bytes: int | None = None
    """None: half the machine's RAM."""
    file_bytes: int = 8 << 30
    """The largest file a command may write (RLIMIT_FSIZE)."""


@dataclass(frozen=True)
class SandboxConfig:
    """What the user asked of the sandbox (``--sandbox``, the ``sandbox`` setting); see the module docstring."""

    mode: SandboxMode = "workspace-write"
    network: NetworkMode = "off"
    allowed_domains: tuple[str, ...] = ()
    writable_roots: tuple[Path, ...] = ()
    masked_patterns: tuple[str, ...] = ()
    """Path patterns of ``Read(...)``/``read_file(...)`` deny rules: what they match is unreadable inside."""
    excluded_commands: tuple[str, ...] = ()
    """Command prefixes the user's own settings run outside the sandbox (never a project's)."""
    limits: SandboxLimits = SandboxLimits()
    protected_names: tuple[str, ...] = ()
    """File names kept read-only in the workspace folder (the instruction files the agent loads)."""
    protected_paths: tuple[Path, ...] = ()
    """Further paths kept read-only wherever they are (the user's PseudoClaude home, should it sit in a writable root)."""


@dataclass(frozen=True)
class SandboxStatus:
    """What ``doctor``, ``/status`` and the status line say of the sandbox."""

    kind: str
    """``bubblewrap``, ``seatbelt`` or ``none``."""
    mode: SandboxMode
    network: NetworkMode
    available: bool
    detail: str = ""
    """One line: why it is unavailable, or what it confines."""


@dataclass(frozen=True)
class PreparedCommand:
    """A command line made ready to run confined: start ``argv`` with ``env`` in ``cwd``."""

    argv: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)


class CommandSandbox(Protocol):
    """Runs a model's command confined; ``ToolContext.sandbox`` holds one per session."""

    @property
    def status(self) -> SandboxStatus: ...

    def prepare(self, command: str, *, cwd: Path, env: Mapping[str, str]) -> AbstractAsyncContextManager[PreparedCommand]:
        """The argv running ``command`` with ``bash -c`` inside the sandbox; leaving the context releases what it set up
        (a cgroup, a proxy listener, temporary mounts)."""
        ...

    def blocked(self, output: str, exit_code: int | None) -> str | None:
        """One line saying the sandbox (a read-only path, a blocked connection) likely caused this failure, else None."""
        ...


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
