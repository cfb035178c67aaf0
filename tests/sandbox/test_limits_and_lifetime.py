"""Per-command limits end a runaway command, and nothing a confined command started outlives it."""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from pathlib import Path

from pseudoclaude.sandbox import SandboxLimits
from pseudoclaude.tools import BackgroundJobs, RunCommandTool, ToolContext
from tests.sandbox.support import exit_code, real_sandbox, run

SMALL = SandboxLimits(processes=64, memory_bytes=256 << 20, file_bytes=1 << 20)

FORK_LOOP = """python3 -c '
import os, time
children = 0
try:
    while True:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        children += 1
except OSError as error:
    print("stopped after", children, "forks:", error.strerror)
'"""


def test_a_fork_loop_ends_at_the_process_limit_and_the_next_command_runs(workspace: Path) -> None:
    sandbox = real_sandbox(workspace, limits=SMALL)
    output = run(FORK_LOOP, workspace, sandbox)
    assert "stopped after" in output.content
    assert int(output.content.split("stopped after")[1].split()[0]) < 64
    assert run("echo next", workspace, sandbox).content.startswith("next")


def test_a_command_that_dies_at_a_limit_is_told_which(workspace: Path) -> None:
    sandbox = real_sandbox(workspace, limits=SMALL)
    output = run(FORK_LOOP + "; exit 1", workspace, sandbox)
    assert "limit of 64 processes" in output.display["sandbox_blocked"]


def test_a_memory_hog_ends_at_the_memory_limit_and_the_next_command_runs(workspace: Path) -> None:
    sandbox = real_sandbox(workspace, limits=SMALL)
    output = run("python3 -c 'blocks = [bytearray(32 << 20) for _ in range(64)]; print(\"survived\")'", workspace, sandbox)
    assert exit_code(output) != 0 and "survived" not in output.content
    assert "memory limit" in output.display["sandbox_blocked"]
    assert run("echo next", workspace, sandbox).content.startswith("next")


def test_a_file_over_the_size_limit_cannot_be_written(workspace: Path) -> None:
    output = run("head -c 4M /dev/zero > big.bin", workspace, real_sandbox(workspace, limits=SMALL))
    assert exit_code(output) != 0 and (workspace / "big.bin").stat().st_size <= 1 << 20
    assert "file size limit" in output.display["sandbox_blocked"]


def live_processes_with(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
                state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if marker.encode() in cmdline and state != "Z":
                found.append(int(entry))
    return found


def gone_soon(marker: str) -> bool:
    deadline = time.monotonic() + 3
    while live_processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not live_processes_with(marker)


def test_a_timeout_kills_everything_the_command_started(workspace: Path) -> None:
    marker = f"{uuid.uuid4().int % 10**6}.5"
    output = run(f"setsid sleep {marker} & (sleep {marker} &); sleep {marker}", workspace, real_sandbox(workspace), timeout=1)
    assert output.display["timed_out"] is True
    assert gone_soon(marker)


def test_an_interrupt_kills_everything_the_command_started(workspace: Path) -> None:
    sandbox = real_sandbox(workspace)
    marker = f"{uuid.uuid4().int % 10**6}.25"

    async def interrupted() -> None:
        task = asyncio.ensure_future(
            RunCommandTool().run({"command": f"setsid sleep {marker} & sleep {marker}"}, ToolContext(workspace=workspace, sandbox=sandbox))
        )
        while not live_processes_with(marker):
            await asyncio.sleep(0.05)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    asyncio.run(interrupted())
    assert gone_soon(marker)


def test_a_killed_background_job_takes_its_children_along(workspace: Path) -> None:
    sandbox = real_sandbox(workspace)
    marker = f"{uuid.uuid4().int % 10**6}.75"

    async def start_and_kill() -> None:
        jobs = BackgroundJobs()
        job = await jobs.start(f"setsid sleep {marker} & sleep {marker}", workspace, sandbox=sandbox)
        while not live_processes_with(marker):
            await asyncio.sleep(0.05)
        await jobs.kill(job.id)
        await jobs.aclose()

    asyncio.run(start_and_kill())
    assert gone_soon(marker)


def test_a_background_job_runs_inside_the_sandbox(workspace: Path, outside: Path) -> None:
    sandbox = real_sandbox(workspace)

    async def started() -> str:
        jobs = BackgroundJobs()
        job = await jobs.start(f"touch {outside}/bg 2>&1; echo done", workspace, sandbox=sandbox)
        for _ in range(200):
            if not jobs.read(job.id).job.running:
                break
            await asyncio.sleep(0.05)
        await jobs.aclose()
        return str(job.id)

    asyncio.run(started())
    assert not (outside / "bg").exists()


def own_command_cgroups() -> list[str]:
    """The cgroups this process made for its commands, in every hierarchy it can see."""
    found = []
    for root, folders, _ in os.walk("/sys/fs/cgroup"):
        found += [os.path.join(root, name) for name in folders if name.startswith(f"pseudoclaude-{os.getpid()}-")]
        if root.count("/") > 8:
            folders.clear()
    return found


def test_no_cgroup_is_left_behind_once_the_command_returned(workspace: Path) -> None:
    sandbox = real_sandbox(workspace, limits=SMALL)
    for command in ("true", "python3 -c 'x = bytearray(8 << 20)'", FORK_LOOP):
        run(command, workspace, sandbox)
        assert own_command_cgroups() == []
