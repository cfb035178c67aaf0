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
   ``--unshare-net`` unless the network is ``all``, and ``--cap-drop ALL``: we may run
   as root, and root keeps its capabilities in a bwrap without a user namespace.
6. ``--seccomp 9``: no new unix-domain sockets (``seccomp``): the sockets of docker,
   systemd and the system bus would run anything outside for root.

The whole is started by the ``cgroup.launcher`` prefix, which puts it in the command's
cgroup and sets the rlimits first.
"""

from __future__ import annotations

import os
from contextlib import asynccontextmanager
from pathlib import Path
from typing import AsyncIterator, Mapping

from pseudoclaude.sandbox import PreparedCommand, SandboxConfig, SandboxStatus
from pseudoclaude.sandbox.blocked import blocked_line
from pseudoclaude.sandbox.cgroup import create_cgroup, launcher
from pseudoclaude.sandbox.layout import Layout, TreeCache, plan_layout
from pseudoclaude.sandbox.seccomp import filter_path


class BubblewrapSandbox:
    """A ``CommandSandbox`` on bubblewrap; ``bwrap`` is the path of the binary ``detect`` found working."""

    def __init__(self, config: SandboxConfig, workspace: Path, *, bwrap: str = "bwrap", home: Path | None = None) -> None:
        if config.network == "allowed":
            from pseudoclaude.sandbox.detect import SandboxUnavailable

            raise SandboxUnavailable(
                "sandbox.network \"allowed\" (allowedDomains through a local proxy) is not available in this build: use \"off\" or \"all\""
            )
        self.config = config
        self.workspace = Path(os.path.realpath(workspace))
        self.bwrap = bwrap
        self.home = home if home is not None else Path.home()
        self._last: Layout | None = None
        self._tree = TreeCache()

    @property
    def status(self) -> SandboxStatus:
        network = {"off": "no network", "all": "network allowed", "allowed": "network through the proxy"}[self.config.network]
        writes = "the workspace, the temp folder and writableRoots writable" if self.config.mode == "workspace-write" else "nothing writable but a private /tmp"
        detail = f"{writes}; {network}"
        if self._last is not None and self._last.truncated:
            detail += "; the workspace is too large to look for masked paths everywhere"
        return SandboxStatus("bubblewrap", self.config.mode, self.config.network, True, detail)

    @asynccontextmanager
    async def prepare(self, command: str, *, cwd: Path, env: Mapping[str, str]) -> AsyncIterator[PreparedCommand]:
        layout = self.layout(env)
        seccomp = filter_path()
        cgroup = create_cgroup(self.config.limits)
        try:
            start = launcher(cgroup, self.config.limits, fd_9=seccomp)
            argv = (*start, *self.argv(layout, cwd, seccomp=seccomp is not None), "bash", "-c", command)
            yield PreparedCommand(argv, self.environment(env))
        finally:
            if cgroup is not None:
                cgroup.remove()

    def layout(self, env: Mapping[str, str]) -> Layout:
        """The mounts for the next command, from the workspace as it is now."""
        layout = plan_layout(self.config, self.workspace, temp_dir=temp_dir(env), home=self.home, tree=self._tree)
        self._last = layout
        return layout

    def argv(self, layout: Layout, cwd: Path, *, seccomp: bool = False) -> tuple[str, ...]:
        """The bwrap command line (without the command) for ``layout``; see the module docstring
        (``seccomp``: apply the filter the launcher opened on descriptor 9)."""
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
        args += ["--unshare-pid", "--unshare-ipc", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
        if self.config.network != "all":
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
        writable = () if self.config.mode == "read-only" else layout.writable
        return blocked_line(output, exit_code, cwd=layout.workspace, writable=writable, protected=layout.read_only, network=self.config.network)


def temp_dir(env: Mapping[str, str]) -> Path:
    """The temp folder commands use (``TMPDIR``, else ``/tmp``; never ``/`` itself, which would undo the sandbox)."""
    value = env.get("TMPDIR") or "/tmp"
    usable = os.path.isabs(value) and os.path.isdir(value) and os.path.realpath(value) != "/"
    return Path(value) if usable else Path("/tmp")
