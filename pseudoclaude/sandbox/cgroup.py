"""Per-command ceilings on processes, memory and file size.

The kernel does not apply ``RLIMIT_NPROC`` to uid 0 (and it counts every
process of the user, not the command's), so the process ceiling needs a
cgroup: ``pids.max`` in a cgroup of the command's own, made under the cgroup
this process is in (so every ceiling above still holds), on cgroup v2 when the
controller is delegated there, else on the v1 ``pids`` hierarchy. The memory
ceiling is the same cgroup's ``memory.max`` (v2) or ``memory.limit_in_bytes``
(v1). Where no cgroup is writable the command gets ``RLIMIT_NPROC`` and
``RLIMIT_AS`` instead, and it always gets ``RLIMIT_FSIZE``.

The command joins its cgroup before it can fork: ``launcher`` returns a tiny
shell script that writes its own pid into ``cgroup.procs``, sets the rlimits
and ``exec``s the sandbox. A cgroup is
removed when the command's context ends, after whatever is left in it was
killed; one left behind by a crashed process is removed by the next one.
"""

from __future__ import annotations

import asyncio
import functools
import os
import shlex
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from pseudoclaude.sandbox import SandboxLimits

PREFIX = "pseudoclaude-"
REMOVE_WAIT_S = 1.0
_counter = [0]


@dataclass(frozen=True)
class Controller:
    """Where this process's cgroup for one controller lives: ``folder`` (absolute) on hierarchy ``version``."""

    name: str
    folder: Path
    version: int


@dataclass(frozen=True)
class CommandCgroup:
    """The cgroup folders made for one command (one per hierarchy) and what they enforce."""

    folders: tuple[Path, ...]
    processes: bool
    memory: bool

    def remove(self) -> None:
        """Kill what is left in the cgroup and remove it: at once when the kernel lets go of it, else from a task that
        retries for ``REMOVE_WAIT_S`` (the command's result need not wait for it); the next process sweeps leftovers."""
        busy = [folder for folder in self.folders if not _remove_now(folder)]
        if busy:
            task = asyncio.get_running_loop().create_task(_remove_later(busy))
            _removing.add(task)
            task.add_done_callback(_removing.discard)


def memory_ceiling(limits: SandboxLimits) -> int:
    if limits.memory_bytes is not None:
        return limits.memory_bytes
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
    except (ValueError, OSError):
        return 8 << 30


def create_cgroup(limits: SandboxLimits) -> CommandCgroup | None:
    """A new cgroup with the ceilings of ``limits``, or None where no cgroup is writable."""
    controllers = _controllers()
    if not controllers:
        return None
    _counter[0] += 1
    name = f"{PREFIX}{os.getpid()}-{_counter[0]}"
    folders: dict[Path, Path] = {}
    enforced: set[str] = set()
    for controller in controllers:
        folder = controller.folder / name
        try:
            if folder not in folders.values():
                folder.mkdir()
            _write_limit(controller, folder, limits)
        except OSError:
            continue
        folders[controller.folder] = folder
        enforced.add(controller.name)
    if not enforced:
        return None
    return CommandCgroup(tuple(dict.fromkeys(folders.values())), "pids" in enforced, "memory" in enforced)


def launcher(
    cgroup: CommandCgroup | None, limits: SandboxLimits, *, address_space: bool = True, fd_9: str | None = None
) -> tuple[str, ...]:
    """The argv prefix that joins ``cgroup``, sets the rlimits it cannot enforce, then runs the rest
    (``address_space``: fall back to ``RLIMIT_AS`` for memory; macOS cannot set it; ``fd_9``: a file the rest reads
    on descriptor 9, the seccomp filter).

    ``/bin/sh`` when only POSIX's ``ulimit -f`` (512-byte blocks) is needed: it starts a few ms sooner than bash.
    The fallbacks need bash, whose ``ulimit`` has ``-u`` and ``-v`` everywhere (and counts ``-f`` in KiB).
    """
    steps = [f"echo $$ > {shlex.quote(str(folder / 'cgroup.procs'))}" for folder in cgroup.folders] if cgroup else []
    join = " && ".join(steps)
    script = f"{{ {join}; }} 2>/dev/null || {{ echo 'pseudoclaude: cannot join the command cgroup' >&2; exit 125; }}; " if join else ""
    fallbacks = []
    if address_space and (cgroup is None or not cgroup.memory):
        fallbacks.append(f"ulimit -v {max(1, memory_ceiling(limits) // 1024)}")
    if cgroup is None or not cgroup.processes:
        fallbacks.append(f"ulimit -u {limits.processes}")
    block = 1024 if fallbacks else 512
    ulimits = [f"ulimit -f {max(1, limits.file_bytes // block)}", *fallbacks]
    script += " && ".join(ulimits) + " || exit 125; "
    if fd_9 is not None:
        script += f"exec 9< {shlex.quote(fd_9)} || exit 125; "
    script += 'exec "$@"'
    return (_bash() if fallbacks else "/bin/sh", "-c", script, "pseudoclaude-sandbox")


@functools.lru_cache(maxsize=1)
def _bash() -> str:
    import shutil

    return shutil.which("bash") or "/bin/bash"


def _write_limit(controller: Controller, folder: Path, limits: SandboxLimits) -> None:
    if controller.name == "pids":
        (folder / "pids.max").write_text(str(limits.processes))
    elif controller.version == 2:
        (folder / "memory.max").write_text(str(memory_ceiling(limits)))
        _try_write(folder / "memory.swap.max", "0")
    else:
        (folder / "memory.limit_in_bytes").write_text(str(memory_ceiling(limits)))
        _try_write(folder / "memory.memsw.limit_in_bytes", str(memory_ceiling(limits)))


def _try_write(path: Path, text: str) -> None:
    try:
        path.write_text(text)
    except OSError:
        pass


@functools.lru_cache(maxsize=1)
def _controllers() -> tuple[Controller, ...]:
    """The writable cgroup folders of this process for ``pids`` and ``memory`` (checked once per process)."""
    try:
        membership = Path("/proc/self/cgroup").read_text().splitlines()
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return ()
    v1: dict[str, Path] = {}
    v2: Path | None = None
    for line in mounts:
        fields = line.split()
        if " - " not in line or len(fields) < 5:
            continue
        after = line.split(" - ", 1)[1].split()
        if after[0] == "cgroup2" and fields[3] == "/":
            v2 = v2 or Path(fields[4])
        elif after[0] == "cgroup" and fields[3] == "/" and len(after) > 2:
            for option in after[2].split(","):
                v1.setdefault(option, Path(fields[4]))
    found: list[Controller] = []
    for line in membership:
        number, names, path = (line.split(":", 2) + ["", ""])[:3]
        relative = path.lstrip("/")
        if number == "0" and names == "" and v2 is not None:
            found += _v2_controllers(v2 / relative, {c.name for c in found})
        for name in names.split(","):
            if name in ("pids", "memory") and name in v1:
                found.append(Controller(name, v1[name] / relative, 1))
    usable: dict[str, Controller] = {}
    for controller in found:
        if controller.name not in usable and _writable(controller.folder):
            usable[controller.name] = controller
    for controller in usable.values():
        _sweep(controller.folder)
    return tuple(usable.values())


def _v2_controllers(folder: Path, have: set[str]) -> list[Controller]:
    """pids and memory on cgroup v2, where delegated to this cgroup's children (enabling them if allowed)."""
    try:
        available = (folder / "cgroup.controllers").read_text().split()
        enabled = (folder / "cgroup.subtree_control").read_text().split()
    except OSError:
        return []
    wanted = [name for name in ("pids", "memory") if name in available and name not in have]
    for name in wanted:
        if name not in enabled:
            try:
                (folder / "cgroup.subtree_control").write_text(f"+{name}")
            except OSError:
                continue
            enabled.append(name)
    return [Controller(name, folder, 2) for name in wanted if name in enabled]


def _writable(folder: Path) -> bool:
    return folder.is_dir() and os.access(folder, os.W_OK)


def _sweep(folder: Path) -> None:
    """Remove cgroups left behind by PseudoClaude processes that are gone."""
    try:
        names = [entry.name for entry in os.scandir(folder) if entry.name.startswith(PREFIX) and entry.is_dir()]
    except OSError:
        return
    for name in names:
        owner = name[len(PREFIX):].split("-", 1)[0]
        if owner.isdigit() and not _alive(int(owner)):
            _remove_now(folder / name)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


_removing: set[asyncio.Task[None]] = set()


async def _remove_later(folders: list[Path]) -> None:
    deadline = time.monotonic() + REMOVE_WAIT_S
    for folder in folders:
        while not _remove_now(folder) and time.monotonic() < deadline:
            await asyncio.sleep(0.005)


def _remove_now(folder: Path) -> bool:
    """Kill what is in ``folder`` and try to remove it; True once it is gone."""
    _try_write(folder / "cgroup.kill", "1")
    try:
        pids = [int(p) for p in (folder / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        pids = []
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    try:
        folder.rmdir()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True
