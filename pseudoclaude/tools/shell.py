"""Running a shell command so that nothing outlives it and memory stays bounded.

Invariants:

- The command runs as ``bash -c`` in a new session, hence its own process
  group (pgid == the bash pid), with stdin from ``/dev/null`` so a command that
  reads input gets end-of-file at once instead of hanging.
- On timeout, on cancellation (``asyncio.CancelledError``) and on any other
  exit through an exception the *whole group* is stopped: SIGTERM, a short
  grace, then SIGKILL; the cancellation is re-raised afterwards.
- When bash has exited but something it started in the background still holds
  the output pipe open, we wait ``PIPE_GRACE_S`` more and then stop the group
  too, rather than hang until the timeout or leave orphans behind.
- Output (stdout and stderr interleaved in one pipe) is read as a stream into
  a ``StreamCapture``: memory use does not depend on how much a command prints.
- A cancel that comes while the process is still starting (``start_group``)
  waits for the start to end and stops the group too: asyncio's own cancel
  path kills only bash and then waits until whatever bash had already started
  closes the pipes (``sleep 30``: 30 s, the CLI deaf to Ctrl-C all along).
- A ``detach`` event set while the command runs (the user's Ctrl-B) ends the
  wait without stopping anything: the result's ``detached`` carries the
  running process and the sandbox context, for ``BackgroundJobs.adopt``; what
  was printed until then is in the capture, closed. Whoever gets a detached
  result owns the process.
- With a ``sandbox`` the argv is the sandbox's (``CommandSandbox.prepare``), and
  its context stays open until the command and everything it started are gone.
  Stopping the group still stops everything: the group's leader is the sandbox,
  which takes its PID namespace down with it.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import secrets
import signal
import time
from dataclasses import dataclass, replace
from pathlib import Path
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any, BinaryIO, Mapping

from pseudoclaude.tools.output import StreamCapture
from pseudoclaude.tools.child_env import command_environment

if TYPE_CHECKING:
    from pseudoclaude.sandbox import CommandSandbox

KILL_GRACE_S = 0.5
PIPE_GRACE_S = 1.0
EXIT_POLL_S = 0.05
READ_CHUNK = 256 * 1024


@dataclass(frozen=True)
class Detached:
    """A command that goes on running after ``run_shell`` returned: its process and what keeps its sandbox open."""

    proc: asyncio.subprocess.Process
    confinement: AsyncExitStack


@dataclass(frozen=True)
class CommandResult:
    """What a finished (or stopped) command left: exit status, captured output and where the rest went.

    ``detached``: the command did not finish but was sent to the background (``exit_code`` is None).
    """

    exit_code: int | None
    timed_out: bool
    capture: StreamCapture
    duration_s: float
    pgid: int
    stopped_background: bool = False
    detached: Detached | None = None


async def run_shell(
    command: str,
    *,
    cwd: Path,
    timeout_s: float,
    capture: StreamCapture,
    env: dict[str, str] | None = None,
    sandbox: CommandSandbox | None = None,
    detach: asyncio.Event | None = None,
) -> CommandResult:
    """Run ``command`` with ``bash -c`` in ``cwd`` (inside ``sandbox`` when given), feeding its output to ``capture``;
    never leaves its group behind, unless ``detach`` is set first (then the result's ``detached`` owns it)."""
    async with AsyncExitStack() as stack:
        argv, environment = await prepared(stack, command, cwd, env if env is not None else command_environment(), sandbox)
        result = await _run(argv, cwd, environment, timeout_s, capture, detach)
        if result.detached is not None:
            result = replace(result, detached=Detached(result.detached.proc, stack.pop_all()))
        return result


async def prepared(
    stack: AsyncExitStack, command: str, cwd: Path, env: Mapping[str, str] | None, sandbox: CommandSandbox | None
) -> tuple[tuple[str, ...], dict[str, str] | None]:
    """The argv and environment (None: ours) that run ``command``: ``bash -c`` itself, or the sandbox's (whose context
    ``stack`` keeps open)."""
    if sandbox is None:
        return ("bash", "-c", command), dict(env) if env is not None else None
    ready = await stack.enter_async_context(sandbox.prepare(command, cwd=cwd, env=env if env is not None else dict(os.environ)))
    return ready.argv, dict(ready.env)


async def _run(
    argv: tuple[str, ...], cwd: Path, env: dict[str, str] | None, timeout_s: float, capture: StreamCapture, detach: asyncio.Event | None
) -> CommandResult:
    started = time.monotonic()
    proc = await start_group(
        *argv,
        cwd=str(cwd),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env=env,
        limit=READ_CHUNK,
    )
    pgid = proc.pid
    timed_out = False
    stopped_background: bool | None = False
    try:
        try:
            async with asyncio.timeout(timeout_s):
                stopped_background = await _pump(proc, capture, detach)
        except TimeoutError:
            timed_out = True
            await stop_group(proc)
            await _drain(proc, capture)
    except BaseException:
        await stop_group(proc)
        capture.close()
        raise
    capture.close()
    if stopped_background is None:
        return CommandResult(None, False, capture, time.monotonic() - started, pgid, detached=Detached(proc, AsyncExitStack()))
    return CommandResult(
        exit_code=None if timed_out else proc.returncode,
        timed_out=timed_out,
        capture=capture,
        duration_s=time.monotonic() - started,
        pgid=pgid,
        stopped_background=stopped_background,
    )


async def start_group(program: str, *args: str, **kwargs: Any) -> asyncio.subprocess.Process:
    """``create_subprocess_exec`` in a new session (its own process group) that a cancel cannot orphan.

    The start (fork, exec, pipes connected: milliseconds) runs to its end
    shielded; a cancel that arrives meanwhile stops the new group, then goes on.
    """
    starting = asyncio.ensure_future(asyncio.create_subprocess_exec(program, *args, start_new_session=True, **kwargs))
    starting.add_done_callback(_track)
    try:
        return await asyncio.shield(starting)
    except asyncio.CancelledError:
        proc = await _outlast_cancels(starting)
        if proc is not None:
            await _outlast_cancels(asyncio.ensure_future(stop_group(proc)))
        raise


_STARTED: set[asyncio.subprocess.Process] = set()
"""The processes ``start_group`` started, for ``_kill_unreaped_groups``; the reaped ones are dropped at each start."""


def _track(starting: asyncio.Future[asyncio.subprocess.Process]) -> None:
    _STARTED.difference_update([proc for proc in _STARTED if proc.returncode is not None])
    if not starting.cancelled() and starting.exception() is None:
        _STARTED.add(starting.result())


@atexit.register
def _kill_unreaped_groups() -> None:
    """At exit, SIGKILL the group of every started process not reaped yet.

    The process left while a group was still starting or stopping (a second
    Ctrl-C during a command's grace period, ``interrupts.leave``). Only
    unreaped leaders are signalled: their pid, hence the group id, cannot have
    been reused.
    """
    for proc in list(_STARTED):
        if proc.returncode is None:
            _signal_group(proc.pid, signal.SIGKILL)


async def _outlast_cancels(work: asyncio.Future[Any]) -> Any:
    """The result of short cleanup ``work`` (None if it failed), awaited to its end through further cancels."""
    while True:
        try:
            return await asyncio.shield(work)
        except asyncio.CancelledError:
            if work.cancelled():
                return None
        except Exception:  # the process never started: nothing to stop
            return None


async def stop_group(proc: asyncio.subprocess.Process) -> None:
    """SIGTERM the process group of ``proc``, wait a short grace, SIGKILL whatever is left, reap ``proc``."""
    pgid = proc.pid
    _signal_group(pgid, signal.SIGTERM)
    try:
        deadline = time.monotonic() + KILL_GRACE_S
        while time.monotonic() < deadline and group_alive(pgid):
            await asyncio.sleep(0.02)
    finally:
        _signal_group(pgid, signal.SIGKILL)
    try:
        await asyncio.wait_for(proc.wait(), timeout=5)
    except TimeoutError:
        pass


def group_alive(pgid: int) -> bool:
    """True while any process (zombies aside, which cannot run) is still in group ``pgid``."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return any(True for _ in live_group_members(pgid))


def live_group_members(pgid: int) -> list[int]:
    """Pids of non-zombie processes in group ``pgid`` (Linux ``/proc``; empty elsewhere)."""
    members: list[int] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return members
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 2 and fields[0] not in (b"Z", b"X") and int(fields[2]) == pgid:
            members.append(int(entry))
    return members


def open_spill_file(spill_dir: Path, prefix: str) -> tuple[Path, BinaryIO]:
    """A new file in ``spill_dir`` with a collision-free name (exclusive create), open for binary writing."""
    spill_dir.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    while True:
        path = spill_dir / f"{prefix}-{stamp}-{secrets.token_hex(4)}.txt"
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        return path, os.fdopen(fd, "wb")


async def _pump(proc: asyncio.subprocess.Process, capture: StreamCapture, detach: asyncio.Event | None = None) -> bool | None:
    """Read until end-of-output; returns True when background processes holding the pipe had to be stopped, None when
    ``detach`` was set first (the process runs on; what it prints next stays in the pipe for the next reader)."""
    assert proc.stdout is not None
    reader = proc.stdout
    exited = asyncio.ensure_future(_exit_status(proc))
    detached = asyncio.ensure_future(detach.wait()) if detach is not None else None
    read: asyncio.Future[bytes] | None = None
    try:
        while not exited.done():
            read = asyncio.ensure_future(reader.read(READ_CHUNK))
            await asyncio.wait({read, exited} | ({detached} if detached is not None else set()), return_when=asyncio.FIRST_COMPLETED)
            if detached is not None and detached.done() and not read.done() and not exited.done():
                return None
            if read.done():
                chunk, read = read.result(), None
                if not chunk:
                    await proc.wait()
                    return False
                capture.feed(chunk)
        try:
            async with asyncio.timeout(PIPE_GRACE_S):
                if read is not None:
                    chunk, read = await read, None
                    capture.feed(chunk)
                while chunk := await reader.read(READ_CHUNK):
                    capture.feed(chunk)
            return False
        except TimeoutError:
            read = None
            await stop_group(proc)
            await _drain(proc, capture)
            return True
    finally:
        pending = [t for t in (read, exited, detached) if t is not None and not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending)


async def _exit_status(proc: asyncio.subprocess.Process) -> int:
    """Bash's exit status as soon as it exits (``proc.wait()`` also waits for the pipes to close)."""
    while proc.returncode is None:
        await asyncio.sleep(EXIT_POLL_S)
    return proc.returncode


async def _drain(proc: asyncio.subprocess.Process, capture: StreamCapture) -> None:
    """Collect what is still buffered after the group was stopped (the pipe closes once all writers died)."""
    assert proc.stdout is not None
    try:
        async with asyncio.timeout(1.0):
            while chunk := await proc.stdout.read(READ_CHUNK):
                capture.feed(chunk)
    except TimeoutError:
        pass


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass
