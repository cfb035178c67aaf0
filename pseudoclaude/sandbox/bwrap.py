"""The Linux sandbox: bubblewrap (``bwrap``) builds a mount namespace per command.

The argv, in the order the mounts stack (a later mount covers an earlier one):

1. ``--ro-bind / /``: the whole machine, read-only; ``--dev /dev``, ``--proc /proc``.
2. ``workspace-write``: ``--bind`` the workspace, the temp folder and the writable roots;
   ``read-only``: a private tmpfs on ``/tmp`` (``TMPDIR`` points there; a workspace under
   ``/tmp`` is bound back, read-only).
3. ``.git`` bound onto itself (a mount point cannot be renamed, so a command cannot move
   it aside and plant another), then ``--ro-bind`` its hooks and config, the agent's
   folders and the instruction files (``layout``).
4. Masks: ``--ro-bind /dev/null FILE`` / ``--tmpfs DIR`` over every path a ``Read(...)``
   deny rule matches.
5. ``--unshare-pid`` (the command is pid 2 of its own namespace: when it ends, or when
   bwrap is killed with the process group, ``--die-with-parent`` takes everything it
   started along), ``--unshare-ipc``, ``--new-session`` (no TIOCSTI into our terminal),
   ``--unshare-net`` unless the network is ``all`` (with the network off, the session's
   one namespace instead, entered by ``nsenter``: ``netns``), and ``--cap-drop ALL``: we
   may run as root, and root keeps its capabilities in a bwrap without a user namespace.
6. ``--seccomp 9``: no new unix-domain sockets (``seccomp``): the sockets of docker,
   systemd and the system bus would run anything outside for root.

The whole is started by the ``limits.limited`` prefix, which puts it in the command's
cgroup and sets the rlimits first. With ``network: allowed`` the command runs behind
``forwarder`` (inside, on 127.0.0.1), which reaches the allow-list ``proxy`` (outside)
through a socket in a folder bound read-only; there the seccomp filter is left out,
since the forwarder needs a unix socket of its own, and the sockets under ``/run``,
``/var/run`` and ``/tmp`` are masked instead (``layout.socket_masks``).
"""

from __future__ import annotations

import asyncio
import functools
import os
import shlex
import shutil
import tempfile
import time
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import AsyncIterator, Mapping

from pseudoclaude.sandbox.seam import PreparedCommand, SandboxConfig, SandboxLimits, SandboxStatus
from pseudoclaude.sandbox.blocked import blocked_line
from pseudoclaude.sandbox.forwarder import forwarded_argv
from pseudoclaude.sandbox.limits import AppliedLimits, ResourceLimits, limited
from pseudoclaude.sandbox.netns import SharedNetwork
from pseudoclaude.sandbox.proxy import DomainProxy
from pseudoclaude.sandbox.layout import Layout, TreeCache, plan_layout, socket_masks
from pseudoclaude.sandbox.seccomp import filter_path


class BubblewrapSandbox:
    """A ``CommandSandbox`` on bubblewrap; ``bwrap`` is the path of the binary ``detect`` found working."""

    def __init__(self, config: SandboxConfig, workspace: Path, *, bwrap: str = "bwrap", home: Path | None = None) -> None:
        self.config = config
        self.workspace = Path(os.path.realpath(workspace))
        self.bwrap = bwrap
        self.home = home if home is not None else Path.home()
        self._last: Layout | None = None
        self._tree = TreeCache()
        self._limits = f"limits per command: {config.limits.processes} processes, memory, files of {config.limits.file_bytes >> 20} MiB"
        self._limit_hit: str | None = None
        self._applied: AppliedLimits | None = None
        self._proxy: DomainProxy | None = None
        self._network = SharedNetwork(bwrap)

    @property
    def status(self) -> SandboxStatus:
        network = {"off": "no network", "all": "network allowed", "allowed": "network only to allowedDomains"}[self.config.network]
        writes = "the workspace, the temp folder and writableRoots writable" if self.config.mode == "workspace-write" else "nothing writable but a private /tmp"
        detail = f"{writes}; {network}; {self._limits}"
        if self._last is not None and self._last.truncated:
            detail += "; the workspace is too large to look for masked paths everywhere"
        return SandboxStatus("bubblewrap", self.config.mode, self.config.network, True, detail)

    @asynccontextmanager
    async def prepare(self, command: str, *, cwd: Path, env: Mapping[str, str]) -> AsyncIterator[PreparedCommand]:
        layout = self.layout(env)
        seccomp = filter_path() if self.config.network != "allowed" else None
        cleanup = AsyncExitStack()
        try:
            applied = await cleanup.enter_async_context(limited(resource_limits(self.config.limits)))
            self._applied, self._limit_hit, self._limits = applied, None, applied.detail
            inner: tuple[str, ...] = ("bash", "-c", command)
            extra: tuple[str, ...] = ()
            if self.config.network == "allowed":
                folder = Path(tempfile.mkdtemp(dir=_proxy_folder()))
                cleanup.callback(shutil.rmtree, folder, True)
                proxy = await cleanup.enter_async_context(DomainProxy(self.config.allowed_domains, folder))
                self._proxy = proxy
                inner = forwarded_argv(inner, proxy.socket_path)
                own = proxy.socket_path.parent
                sockets = [arg for mask in socket_masks() if mask.path.parent != own for arg in ("--ro-bind", "/dev/null", str(mask.path))]
                extra = (*sockets, "--ro-bind", str(proxy.socket_path.parent), str(proxy.socket_path.parent))
            enter = self._network.enter() if self.config.network == "off" else ()
            confined = self.argv(layout, cwd, seccomp=seccomp is not None, extra=extra, own_network=not enter)
            argv = (*_with_fd_9(applied.prefix, seccomp), *enter, *confined, *inner)
            yield PreparedCommand(argv, self.environment(env))
        finally:
            if self._applied is not None:
                self._limit_hit = self._applied.exceeded()
                await _settled(self._applied)
            await cleanup.aclose()

    def layout(self, env: Mapping[str, str]) -> Layout:
        """The mounts for the next command, from the workspace as it is now."""
        layout = plan_layout(self.config, self.workspace, temp_dir=temp_dir(env), home=self.home, tree=self._tree)
        self._last = layout
        return layout

    def argv(self, layout: Layout, cwd: Path, *, seccomp: bool = False, extra: tuple[str, ...] = (), own_network: bool = True) -> tuple[str, ...]:
        """The bwrap command line (without the command) for ``layout``; see the module docstring
        (``seccomp``: apply the filter the launcher opened on descriptor 9; ``extra``: more mounts, last;
        ``own_network``: a network namespace of its own, unless it already runs in the session's)."""
        args = [self.bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        if self.config.mode == "read-only":
            args += ["--tmpfs", "/tmp"]
            if layout.workspace.is_relative_to("/tmp"):
                args += ["--ro-bind", str(layout.workspace), str(layout.workspace)]
        for path in (*layout.writable, *layout.pinned):
            args += ["--bind", str(path), str(path)]
        for path in layout.read_only:
            args += ["--ro-bind", str(path), str(path)]
        for mask in layout.masks:
            args += ["--tmpfs", str(mask.path), "--remount-ro", str(mask.path)] if mask.is_dir else ["--ro-bind", "/dev/null", str(mask.path)]
        args += [*extra, "--unshare-pid", "--unshare-ipc", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
        if self.config.network != "all" and own_network:
            args.append("--unshare-net")
        if seccomp:
            args += ["--seccomp", "9"]
        args += ["--chdir", os.path.realpath(cwd), "--"]
        return tuple(args)

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        confined = dict(env)
        if self.config.mode == "read-only":
            confined["TMPDIR"] = "/tmp"
        return confined

    def blocked(self, output: str, exit_code: int | None) -> str | None:
        layout = self._last
        if layout is None:
            return None
        limit = self._limit_hit or (self._applied.exceeded(exit_code) if self._applied is not None else None)
        if limit is not None and exit_code not in (0, None):
            return f"sandbox: {limit} (the setting sandbox.limits raises it)"
        if self.config.network == "allowed" and self._proxy is not None and self._proxy.refused and exit_code not in (0, None):
            hosts = ", ".join(self._proxy.refused[:3])
            return f"sandbox: the proxy refused {hosts} (not in sandbox.allowedDomains)"
        writable = () if self.config.mode == "read-only" else layout.writable
        return blocked_line(output, exit_code, cwd=layout.workspace, writable=writable, protected=layout.read_only, network=self.config.network)


def resource_limits(limits: SandboxLimits) -> ResourceLimits:
    """The setting's limits as ``sandbox.limits`` takes them (no memory figure: its default, half the RAM)."""
    if limits.memory_bytes is None:
        return ResourceLimits(processes=limits.processes, file_size_bytes=limits.file_bytes)
    return ResourceLimits(processes=limits.processes, memory_bytes=limits.memory_bytes, file_size_bytes=limits.file_bytes)


def _with_fd_9(prefix: tuple[str, ...], path: str | None) -> tuple[str, ...]:
    """The limits prefix (``/bin/sh -c SCRIPT sh``) opening ``path`` on descriptor 9 before it execs the sandbox."""
    if path is None:
        return prefix
    shell, flag, script, *rest = prefix
    tail = 'exec "$@"'
    if not script.endswith(tail):
        raise RuntimeError('the limits prefix no longer ends in exec "$@"')
    return (shell, flag, script[: -len(tail)] + f"exec 9< {shlex.quote(path)} && {tail}", *rest)


SETTLE_S = 0.05


async def _settled(applied: AppliedLimits) -> None:
    """Wait (1 ms at a time, at most ``SETTLE_S``) until the kernel lists no process in the command's cgroups: the
    limits module, finding one, kills and retries every 10 ms, which would add those to every command."""
    deadline = time.monotonic() + SETTLE_S
    while time.monotonic() < deadline and any(_listed(folder) for folder in applied.cgroups):
        await asyncio.sleep(0.001)


def _listed(folder: Path) -> bool:
    try:
        return bool((folder / "cgroup.procs").read_text().strip())
    except OSError:
        return False


@functools.lru_cache(maxsize=1)
def _proxy_folder() -> Path:
    """A private folder (0700) for the proxies' sockets (one subfolder per command, bound read-only inside it so no
    command can replace its socket)."""
    import atexit

    folder = Path(tempfile.mkdtemp(prefix="pc-px-", dir="/tmp"))
    atexit.register(shutil.rmtree, folder, True)
    return folder


def temp_dir(env: Mapping[str, str]) -> Path:
    """The temp folder commands use (``TMPDIR``, else ``/tmp``; never ``/`` itself, which would undo the sandbox)."""
    value = env.get("TMPDIR") or "/tmp"
    usable = os.path.isabs(value) and os.path.isdir(value) and os.path.realpath(value) != "/"
    return Path(value) if usable else Path("/tmp")
