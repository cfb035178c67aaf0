"""Per-command limits on processes, memory and file size.

Why cgroups first: we often run as root (here, in CI, in containers), and the
kernel does not enforce ``RLIMIT_NPROC`` for uid 0, so a fork loop would only
stop at the machine's own limit. A cgroup's ``pids.max`` holds for root and
across PID namespaces; its memory limit counts what the whole command tree
uses, where ``RLIMIT_AS`` only bounds each process's address space.

The order of preference, per limit:

* processes: cgroup v2 ``pids.max`` in a writable delegated subtree, else a
  cgroup v1 ``pids`` hierarchy, else ``RLIMIT_NPROC`` when not root (it counts
  every process of the user, not only the command's), else nothing: ``detail``
  says so;
* memory: cgroup v2 ``memory.max``, else v1 ``memory.limit_in_bytes`` under the
  process's own memory cgroup, else ``RLIMIT_AS``;
* file size: always ``RLIMIT_FSIZE``.

:func:`limited` creates the cgroups and yields an argv *prefix*: a ``/bin/sh``
that moves itself into them, sets the rlimits and then executes the rest of
the argv, so the command is inside before it can fork. Leaving the context kills
whatever is left in the cgroups and removes them. ``/bin/sh`` is dash, busybox
or bash in POSIX mode: all three count ``ulimit -f`` in 512-byte blocks and
``ulimit -v`` in KiB, which is why the prefix uses only those two.
"""

from __future__ import annotations

import asyncio
import os
import resource
import secrets
import shlex
import signal
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import AsyncIterator, Literal

GIB = 1024**3
CLEANUP_S = 2.0
_SIGXFSZ_STATUSES = (128 + signal.SIGXFSZ, -signal.SIGXFSZ)

Controller = Literal["pids", "memory"]
_EVENTS = {(1, "pids"): "pids.events", (2, "pids"): "pids.events", (1, "memory"): "memory.oom_control", (2, "memory"): "memory.events"}


def _half_the_ram() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2


@dataclass(frozen=True)
class ResourceLimits:
    """What one command (with everything it starts) may use. The defaults stop a runaway, not ordinary work."""

    processes: int = 4096
    memory_bytes: int = field(default_factory=_half_the_ram)
    file_size_bytes: int = 8 * GIB
    """Rounded up to a multiple of 512 bytes (the unit of ``ulimit -f``)."""


@dataclass(frozen=True)
class _Group:
    path: Path
    version: Literal[1, 2]
    controllers: tuple[Controller, ...]


@dataclass(frozen=True)
class AppliedLimits:
    """The limits in force for one command: start ``prefix + argv``; ``detail`` says what enforces each limit."""

    prefix: tuple[str, ...]
    detail: str
    limits: ResourceLimits
    groups: tuple[_Group, ...] = ()

    @property
    def cgroups(self) -> tuple[Path, ...]:
        """The cgroup directories the command joins; all removed when the context ends."""
        return tuple(group.path for group in self.groups)

    def exceeded(self, exit_code: int | None = None) -> str | None:
        """One line naming the limit the command ran into, if the cgroups (or a SIGXFSZ exit status) say it did."""
        said = {
            "pids": f"the command reached its limit of {self.limits.processes} processes",
            "memory": f"the command was killed at its memory limit of {_size(self.limits.memory_bytes)}",
        }
        for group in self.groups:
            for controller in group.controllers:
                if _event(group.path / _EVENTS[group.version, controller], "max" if controller == "pids" else "oom_kill"):
                    return said[controller]
        if exit_code in _SIGXFSZ_STATUSES:
            return f"the command wrote past its file size limit of {_size(self.limits.file_size_bytes)}"
        return None


@asynccontextmanager
async def limited(limits: ResourceLimits | None = None) -> AsyncIterator[AppliedLimits]:
    """Put one command under ``limits``: yields the prefix to start it with; on exit, kills what is left and cleans up."""
    limits = limits or ResourceLimits()
    name = f"pseudoclaude-{os.getpid()}-{secrets.token_hex(4)}"
    groups = _create_groups(name, limits)
    try:
        yield _applied(limits, groups)
    finally:
        await asyncio.shield(_remove_groups(groups))  # a second cancellation must not leave a cgroup behind


def _applied(limits: ResourceLimits, groups: list[_Group]) -> AppliedLimits:
    steps = [f"echo $$ > {shlex.quote(str(group.path / 'cgroup.procs'))}" for group in groups]
    enforced = {controller: group for group in groups for controller in group.controllers}
    steps.append(f"ulimit -f {_units(resource.RLIMIT_FSIZE, limits.file_size_bytes, 512)}")
    said = []
    if "pids" in enforced:
        said.append(f"{limits.processes} processes (cgroup v{enforced['pids'].version})")
    elif os.geteuid() != 0:
        processes = _units(resource.RLIMIT_NPROC, limits.processes, 1)
        steps.append(f"{{ ulimit -u {processes} 2>/dev/null || ulimit -p {processes}; }}")  # bash -u, dash -p
        said.append(f"{limits.processes} processes of this user (RLIMIT_NPROC: no writable cgroup)")
    else:
        said.append("processes not limited (no writable pids cgroup, and RLIMIT_NPROC does not hold for root)")
    if "memory" in enforced:
        said.append(f"{_size(limits.memory_bytes)} memory (cgroup v{enforced['memory'].version})")
    else:
        steps.append(f"ulimit -v {_units(resource.RLIMIT_AS, limits.memory_bytes, 1024)}")
        said.append(f"{_size(limits.memory_bytes)} address space per process (RLIMIT_AS: no writable memory cgroup)")
    said.append(f"{_size(limits.file_size_bytes)} per file")
    script = " && ".join([*steps, 'exec "$@"'])
    return AppliedLimits(("/bin/sh", "-c", script, "sh"), "limits: " + ", ".join(said), limits, tuple(groups))


def _units(which: int, wanted: int, unit: int) -> int:
    """``wanted`` counted in ``unit`` (rounded up), or the hard limit we already run under when lower (raising it would fail)."""
    hard = resource.getrlimit(which)[1]
    count = -(-wanted // unit)
    return count if hard == resource.RLIM_INFINITY else max(1, min(count, hard // unit))


def _create_groups(name: str, limits: ResourceLimits) -> list[_Group]:
    groups: list[_Group] = []
    v2 = _v2_group(name, limits)
    if v2 is not None:
        groups.append(v2)
    done = {controller for group in groups for controller in group.controllers}
    for controller in ("pids", "memory"):
        if controller not in done:
            v1 = _v1_group(controller, name, limits)
            if v1 is not None:
                groups.append(v1)
    return groups


def _v2_group(name: str, limits: ResourceLimits) -> _Group | None:
    parent = _own_cgroup("")
    if parent is None:
        return None
    try:
        enabled = (parent / "cgroup.subtree_control").read_text().split()
        missing = [c for c in ("pids", "memory") if c not in enabled]
        if missing and set(missing) <= set((parent / "cgroup.controllers").read_text().split()):
            try:
                (parent / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in missing))
            except OSError:
                pass  # busy (processes in it) or not delegated: use what is enabled
            enabled = (parent / "cgroup.subtree_control").read_text().split()
    except OSError:
        return None
    controllers = tuple(c for c in ("pids", "memory") if c in enabled)
    if not controllers:
        return None
    path = parent / name
    try:
        path.mkdir()
    except OSError:
        return None
    try:
        if "pids" in controllers:
            (path / "pids.max").write_text(str(limits.processes))
        if "memory" in controllers:
            (path / "memory.max").write_text(str(limits.memory_bytes))
            _write_if_present(path / "memory.swap.max", "0")
    except OSError:
        _rmdir(path)
        return None
    return _Group(path, 2, controllers)


def _v1_group(controller: Controller, name: str, limits: ResourceLimits) -> _Group | None:
    parent = _own_cgroup(controller)
    if parent is None:
        return None
    path = parent / name
    try:
        path.mkdir()
    except OSError:
        return None
    try:
        if controller == "pids":
            (path / "pids.max").write_text(str(limits.processes))
        else:
            (path / "memory.limit_in_bytes").write_text(str(limits.memory_bytes))
            _write_if_present(path / "memory.memsw.limit_in_bytes", str(limits.memory_bytes))
    except OSError:
        _rmdir(path)
        return None
    return _Group(path, 1, (controller,))


def _own_cgroup(controller: str) -> Path | None:
    """This process's cgroup directory in the hierarchy of ``controller`` (``""``: the v2 unified one)."""
    try:
        return cgroup_folder(controller, Path("/proc/self/cgroup").read_text(), Path("/proc/self/mountinfo").read_text())
    except OSError:
        return None


def cgroup_folder(controller: str, cgroups: str, mountinfo: str) -> Path | None:
    """The folder of ``controller``'s hierarchy (``""``: the v2 unified one) that a process with ``cgroups`` (the text of
    its ``/proc/PID/cgroup``) is in, found through ``mountinfo`` (its ``/proc/PID/mountinfo``); None where it is not
    mounted. A mount of a sub-tree (a container's, whose root is the group) is mapped back onto it."""
    own, mounts = cgroups.splitlines(), mountinfo.splitlines()
    wanted = None
    for line in own:
        if line.count(":") < 2:
            continue
        _, controllers, path = line.split(":", 2)
        if (controller == "" and controllers == "" and line.startswith("0:")) or (controller and controller in controllers.split(",")):
            wanted = path
    if wanted is None:
        return None
    for line in mounts:
        fields, _, rest = line.partition(" - ")
        parts, tail = fields.split(), rest.split()
        if len(parts) < 5 or len(tail) < 3:
            continue
        root, point, kind, options = parts[3], parts[4], tail[0], tail[2].split(",")
        if (controller == "" and kind == "cgroup2") or (controller and kind == "cgroup" and controller in options):
            relative = wanted[len(root) :] if root != "/" and wanted.startswith(root) else wanted
            return Path(point.replace("\\040", " ")) / relative.lstrip("/")
    return None


async def _remove_groups(groups: list[_Group]) -> None:
    deadline = time.monotonic() + CLEANUP_S
    for group in groups:
        while _members(group.path) and time.monotonic() < deadline:
            if not _write_if_present(group.path / "cgroup.kill", "1"):
                for pid in _members(group.path):
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
            await asyncio.sleep(0.01)
        while not _rmdir(group.path) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)


def _members(path: Path) -> list[int]:
    try:
        return [int(pid) for pid in (path / "cgroup.procs").read_text().split()]
    except OSError:
        return []


def _rmdir(path: Path) -> bool:
    try:
        path.rmdir()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True


def _write_if_present(path: Path, text: str) -> bool:
    try:
        path.write_text(text)
    except OSError:
        return False
    return True


def _event(path: Path, key: str) -> bool:
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return False
    return any(line.split()[:1] == [key] and int(line.split()[1]) > 0 for line in lines if len(line.split()) == 2)


def _size(n: int) -> str:
    for unit, scale in (("GiB", GIB), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= scale:
            value = n / scale
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n} bytes"
