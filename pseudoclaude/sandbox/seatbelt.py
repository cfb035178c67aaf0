"""The macOS sandbox: ``sandbox-exec -p PROFILE bash -c CMD`` with a profile generated per command.

The profile is SBPL (Seatbelt's Scheme dialect), where a later rule overrides
an earlier one it overlaps:

1. ``(deny default)``, then what any program needs: exec, fork, signals within
   the sandbox, sysctl reads, Mach lookups, POSIX shared memory, pseudo-terminals.
2. ``(allow file-read*)``: the machine is readable ...
3. ... writable only under the workspace, the temp folders and the writable roots
   (``read-only`` mode: only the temp folders), plus ``/dev/null`` and the terminals;
4. ``(deny file-write* ...)`` on the protected paths (``.git/hooks``, ``.git/config``,
   the agent's folders, the instruction files);
5. ``(deny file-read* file-write* ...)`` on the masked paths;
6. the network: allowed whole with ``all``; otherwise only local unix sockets (and,
   with ``allowed``, the local proxy's port).

Paths are the same ``layout`` the Linux sandbox mounts, resolved (``/tmp`` is
``/private/tmp`` on macOS). It cannot run on Linux: the tests read the text.
"""

from __future__ import annotations

import os
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import AsyncIterator, Iterable, Mapping

from pseudoclaude.sandbox.seam import PreparedCommand, SandboxConfig, SandboxStatus
from pseudoclaude.sandbox.blocked import blocked_line
from pseudoclaude.sandbox.bwrap import resource_limits, temp_dir
from pseudoclaude.sandbox.forwarder import proxy_environment
from pseudoclaude.sandbox.limits import limited
from pseudoclaude.sandbox.proxy import DomainProxy
from pseudoclaude.sandbox.layout import Layout, TreeCache, plan_layout

_BASE = """(version 1)
(deny default)
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow sysctl-read)
(allow mach-lookup)
(allow ipc-posix-shm)
(allow pseudo-tty)
(allow file-ioctl (literal "/dev/null") (literal "/dev/tty") (regex #"^/dev/ttys[0-9]+$"))
(allow file-read*)"""


def seatbelt_profile(layout: Layout, config: SandboxConfig, *, temp_dirs: Iterable[Path] = (), proxy_port: int | None = None) -> str:
    """The SBPL text confining one command (see the module docstring)."""
    writable = [*temp_dirs, *(layout.writable if config.mode == "workspace-write" else ())]
    lines = [_BASE]
    devices = ['(literal "/dev/null")', '(literal "/dev/zero")', '(literal "/dev/tty")', '(regex #"^/dev/ttys[0-9]+$")', '(literal "/dev/dtracehelper")']
    lines.append(_rule("allow file-write*", [*(_subpath(p) for p in dict.fromkeys(writable)), *devices]))
    if layout.read_only:
        lines.append(_rule("deny file-write*", [_subpath(p) for p in layout.read_only]))
    if layout.masks:
        lines.append(_rule("deny file-read* file-write*", [_subpath(m.path) if m.is_dir else _literal(m.path) for m in layout.masks]))
    if config.network == "all":
        lines.append("(allow network*)")
    else:
        lines.append("(allow network* (remote unix-socket) (local unix-socket))")
        if config.network == "allowed" and proxy_port is not None:
            lines.append(f'(allow network-outbound (remote tcp "localhost:{proxy_port}"))')
    return "\n".join(lines) + "\n"


class SeatbeltSandbox:
    """A ``CommandSandbox`` on macOS's ``sandbox-exec``."""

    def __init__(self, config: SandboxConfig, workspace: Path, *, home: Path | None = None) -> None:
        self.config = config
        self.workspace = Path(os.path.realpath(workspace))
        self.home = home if home is not None else Path.home()
        self._last: Layout | None = None
        self._tree = TreeCache()

    @property
    def status(self) -> SandboxStatus:
        writes = "the workspace, the temp folder and writableRoots writable" if self.config.mode == "workspace-write" else "only the temp folder writable"
        network = {"off": "no network", "all": "network allowed", "allowed": "network only to allowedDomains"}[self.config.network]
        return SandboxStatus("seatbelt", self.config.mode, self.config.network, True, f"{writes}; {network}")

    def profile(self, env: Mapping[str, str], *, proxy_port: int | None = None) -> str:
        temp = Path(os.path.realpath(temp_dir(env)))
        self._last = plan_layout(self.config, self.workspace, temp_dir=temp, home=self.home, tree=self._tree)
        return seatbelt_profile(self._last, self.config, temp_dirs=dict.fromkeys((temp, Path(os.path.realpath("/tmp")))), proxy_port=proxy_port)

    @asynccontextmanager
    async def prepare(self, command: str, *, cwd: Path, env: Mapping[str, str]) -> AsyncIterator[PreparedCommand]:
        async with AsyncExitStack() as stack:
            applied = await stack.enter_async_context(limited(resource_limits(self.config.limits)))
            confined = dict(env)
            port = None
            if self.config.network == "allowed":
                import tempfile

                folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="pc-px-")))
                proxy = await stack.enter_async_context(DomainProxy(self.config.allowed_domains, folder, tcp=True))
                port = proxy.port
                confined.update(proxy_environment(port or 0))
            yield PreparedCommand((*applied.prefix, "sandbox-exec", "-p", self.profile(env, proxy_port=port), "bash", "-c", command), confined)

    def blocked(self, output: str, exit_code: int | None) -> str | None:
        layout = self._last
        if layout is None:
            return None
        if "Operation not permitted" in output and "Read-only file system" not in output:
            output = output.replace("Operation not permitted", "Read-only file system")
        writable = () if self.config.mode == "read-only" else layout.writable
        return blocked_line(output, exit_code, cwd=layout.workspace, writable=writable, protected=layout.read_only, network=self.config.network)


def _rule(head: str, filters: list[str]) -> str:
    return f"({head}\n    " + "\n    ".join(filters) + ")"


def _subpath(path: Path) -> str:
    return f'(subpath "{_quoted(path)}")'


def _literal(path: Path) -> str:
    return f'(literal "{_quoted(path)}")'


def _quoted(path: Path) -> str:
    return str(path).replace("\\", "\\\\").replace('"', '\\"')
