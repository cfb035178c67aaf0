"""The sandbox's seam and its values: what the user asks (``SandboxConfig``), what runs (``PreparedCommand``), and
``CommandSandbox``, the Protocol the tools see. The implementations import these from here, and the package face
re-exports them, so no module of the package imports its own face.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Mapping, Protocol

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
