"""Per-command limits, on real processes: a fork loop, a memory hog and a big write end at their limits, and the next
command runs as before. Every command here is bounded in time (``TIMEOUT_S``) and killed if it overruns."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterator, Sequence

import pytest

from pseudoclaude.sandbox.limits import AppliedLimits, ResourceLimits, limited, cgroup_folder
from tests.sandbox.support import finished

TIMEOUT_S = 20.0
MIB = 1024**2
SYSTEM_PYTHON = "/usr/bin/python3"

FORK_LOOP = """
import os, signal, time
children = []
try:
    while len(children) < 200:
        pid = os.fork()
        if pid == 0:
            os.closerange(0, 3)
            time.sleep(60)
            os._exit(0)
        children.append(pid)
except OSError:
    pass
for pid in children:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
print("forked", len(children), flush=True)
"""

MEMORY_HOG = """
grown = bytearray()
for _ in range(1024):
    grown.extend(bytes(1 << 20))
print("survived", len(grown))
"""


async def _run(argv: Sequence[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        *argv, cwd=cwd, env=env, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    return await finished(proc, TIMEOUT_S)


async def _limited_run(limits: ResourceLimits, argv: Sequence[str], cwd: Path | None = None) -> tuple[int, str, AppliedLimits, str | None]:
    async with limited(limits) as applied:
        code, out = await _run([*applied.prefix, *argv], cwd)
        return code, out, applied, applied.exceeded(code)


AS_NOBODY = """
import asyncio, json, sys
from pseudoclaude.sandbox.limits import ResourceLimits, limited

async def main():
    async with limited(ResourceLimits(processes=24, memory_bytes=256 << 20)) as applied:
        results = []
        for program in sys.argv[1:]:
            proc = await asyncio.create_subprocess_exec(
                *applied.prefix, sys.executable, "-c", program, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
            )
            out, _ = await proc.communicate()
            results.append((proc.returncode, out.decode()))
    print(json.dumps([applied.detail, applied.cgroups == (), results]))

asyncio.run(main())
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    return status != "Z"


def test_a_fork_loop_stops_at_the_process_limit_and_the_next_command_runs() -> None:
    limits = ResourceLimits(processes=24)
    code, out, applied, exceeded = asyncio.run(_limited_run(limits, ["python3", "-c", FORK_LOOP]))

    forked = int(out.split()[-1])
    assert code == 0 and 10 <= forked < 24, out
    if "processes not limited" not in applied.detail:
        assert exceeded == "the command reached its limit of 24 processes"
    assert asyncio.run(_limited_run(limits, ["echo", "still fine"]))[:2] == (0, "still fine\n")


def test_a_memory_hog_ends_at_the_memory_limit() -> None:
    code, out, applied, exceeded = asyncio.run(_limited_run(ResourceLimits(memory_bytes=96 * MIB), ["python3", "-c", MEMORY_HOG]))

    assert code != 0 and "survived" not in out, (code, out)
    if "memory (cgroup" in applied.detail:
        assert exceeded == "the command was killed at its memory limit of 96 MiB"
    assert asyncio.run(_limited_run(ResourceLimits(memory_bytes=96 * MIB), ["echo", "next"]))[:2] == (0, "next\n")


def test_a_write_past_the_file_size_limit_fails_at_the_limit(tmp_path: Path) -> None:
    limits = ResourceLimits(file_size_bytes=MIB)
    write = "head -c {} /dev/zero > {}"

    fits = asyncio.run(_limited_run(limits, ["bash", "-c", write.format(MIB, "fits")], tmp_path))
    over = asyncio.run(_limited_run(limits, ["bash", "-c", write.format(MIB + 1, "over")], tmp_path))

    assert fits[0] == 0 and (tmp_path / "fits").stat().st_size == MIB
    assert over[0] != 0 and (tmp_path / "over").stat().st_size == MIB
    assert over[3] == "the command wrote past its file size limit of 1 MiB"


def test_what_the_command_leaves_running_is_killed_and_its_cgroups_removed(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"

    async def scenario() -> tuple[AppliedLimits, int, bool]:
        async with limited(ResourceLimits(processes=64)) as applied:
            assert all(path.is_dir() for path in applied.cgroups)
            code, _ = await _run([*applied.prefix, "bash", "-c", f"setsid sleep 60 > /dev/null 2>&1 & echo $! > {pid_file}"])
            pid = int(pid_file.read_text())
            running = _alive(pid)
        return applied, pid, running

    applied, pid, running_inside = asyncio.run(scenario())

    assert not any(path.exists() for path in applied.cgroups)
    if applied.cgroups:
        assert running_inside and not _alive(pid)


def test_the_detail_says_what_enforces_each_limit() -> None:
    async def detail() -> str:
        async with limited(ResourceLimits(processes=100, memory_bytes=512 * MIB, file_size_bytes=2 * 1024**3)) as applied:
            return applied.detail

    said = asyncio.run(detail())

    assert said.startswith("limits: ") and "2 GiB per file" in said
    assert "100 processes" in said or "processes not limited" in said
    assert "512 MiB" in said


def test_the_defaults_stop_a_runaway_not_ordinary_work() -> None:
    limits = ResourceLimits()

    assert limits.processes == 4096 and limits.file_size_bytes == 8 * 1024**3
    assert limits.memory_bytes == os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None or not os.path.exists(SYSTEM_PYTHON),
    reason="needs root to become another user, and a python that user may run",
)
def test_without_a_writable_cgroup_a_user_gets_rlimits_instead(readable_by_all: Path) -> None:
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", SYSTEM_PYTHON]
    env = {"PATH": os.defpath, "PYTHONPATH": str(readable_by_all)}

    code, out = asyncio.run(_run([*nobody, "-c", AS_NOBODY, FORK_LOOP, MEMORY_HOG], Path("/"), env))

    detail, no_cgroups, ((fork_code, forked), (hog_code, hog)) = json.loads(out)
    assert code == 0 and no_cgroups, out
    assert "24 processes of this user (RLIMIT_NPROC" in detail and "256 MiB address space per process (RLIMIT_AS" in detail
    assert fork_code == 0 and int(forked.split()[-1]) < 24, forked
    assert hog_code != 0 and "MemoryError" in hog and "survived" not in hog


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_the_process_limit_holds_inside_a_new_pid_namespace() -> None:
    bwrap = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--die-with-parent", "--"]

    code, out, applied, _ = asyncio.run(_limited_run(ResourceLimits(processes=24), [*bwrap, "python3", "-c", FORK_LOOP]))

    if "processes not limited" not in applied.detail:
        assert code == 0 and int(out.split()[-1]) < 24, out


@pytest.fixture
def readable_by_all() -> Iterator[Path]:
    """A copy of the package ``nobody`` can import: the checkout may sit in a folder only root can enter (CI clones
    into a 0700 temporary folder), and so do pytest's temporary folders."""
    shared = Path(tempfile.mkdtemp(prefix="pseudoclaude-nobody-"))
    shared.chmod(0o755)
    shutil.copytree(Path(__file__).resolve().parents[2] / "pseudoclaude", shared / "pseudoclaude", ignore=shutil.ignore_patterns("__pycache__"))
    for folder, _, files in os.walk(shared):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)
    yield shared
    shutil.rmtree(shared, ignore_errors=True)


V2_ONLY = (
    "0::/user.slice/user-1000.slice/session-2.scope\n",
    "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
    "35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n",
)
HYBRID = (
    "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/91b7\n1:cpu,cpuacct:/\n0::/\n",
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "38 31 0:35 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
    "40 31 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n",
)
CONTAINER_SUBTREE = (
    "garbage\n0::/docker/4f2a\n",
    "510 500 0:40 /docker/4f2a /sys/fs/cgroup ro,nosuid - cgroup2 cgroup rw\n",
)
SPACED_MOUNT = ("0::/work\n", "60 1 0:50 / /mnt/my\\040cgroups rw - cgroup2 cgroup2 rw\n")


@pytest.mark.parametrize(
    ("texts", "controller", "folder"),
    [
        pytest.param(V2_ONLY, "", "/sys/fs/cgroup/user.slice/user-1000.slice/session-2.scope", id="v2: the session's scope"),
        pytest.param(V2_ONLY, "pids", None, id="v2: no v1 hierarchy"),
        pytest.param(HYBRID, "pids", "/sys/fs/cgroup/pids", id="hybrid: v1 pids at its root"),
        pytest.param(HYBRID, "memory", "/sys/fs/cgroup/memory/process_api/91b7", id="hybrid: v1 memory in a group"),
        pytest.param(HYBRID, "cpuacct", "/sys/fs/cgroup/cpu,cpuacct", id="hybrid: a co-mounted controller"),
        pytest.param(HYBRID, "", "/sys/fs/cgroup/unified", id="hybrid: the unified hierarchy"),
        pytest.param(CONTAINER_SUBTREE, "", "/sys/fs/cgroup", id="a container's sub-tree mount, under a line that is no entry"),
        pytest.param(SPACED_MOUNT, "", "/mnt/my cgroups/work", id="a mount point with a space"),
    ],
)
def test_the_own_cgroup_is_found_through_proc_cgroup_and_mountinfo(texts: tuple[str, str], controller: str, folder: str | None) -> None:
    found = cgroup_folder(controller, *texts)
    assert (str(found) if found is not None else None) == folder
