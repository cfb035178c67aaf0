"""Background commands: dev servers, watchers and long builds that run while the conversation goes on.

``run_command`` with ``background: true`` starts the command here and returns
at once with an id (``bg1``, ``bg2``...); ``command_output`` reads what it
printed since the last read, ``kill_command`` stops it. Invariants:

- A job is ``bash -c`` in a new session (its own process group, stdin from
  ``/dev/null``), as a foreground command, inside the session's sandbox when it
  has one (whose context lives as long as the job); killing it stops the whole
  group (``shell.stop_group``).
- Memory stays bounded: the complete output goes to a log file in the session's
  ``tool-results/`` (up to ``SPILL_LIMIT_BYTES``); only the unread part is kept
  in memory, at most ``UNREAD_LIMIT`` bytes (the oldest unread bytes are dropped
  and counted, the log keeps them).
- Nothing outlives the session: ``aclose()`` (the agent's close) stops every
  job still running, and an ``atexit`` fallback SIGKILLs the groups if the
  process ends without it.
- The jobs are written to ``background.json`` in the session folder at every
  change, so a resumed session can say which were running when it ended.
- A foreground ``run_command`` registers here while it runs (``foreground``),
  so the terminal can show its elapsed time (``running``) and send it to the
  background (``detach_foreground``, Ctrl-B): the command then stops waiting
  and hands its process, sandbox context and output so far to ``adopt``,
  which makes it a job like one started in the background.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import signal
import time
from contextlib import AsyncExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Iterator

from pseudoclaude.tools.output import SPILL_LIMIT_BYTES
from pseudoclaude.tools.shell import READ_CHUNK, group_alive, open_spill_file, prepared, start_group, stop_group
from pseudoclaude.tools.child_env import ChildEnvironment
from pseudoclaude.redaction import Redactor, StreamRedactor

if TYPE_CHECKING:
    from pseudoclaude.sandbox import CommandSandbox

UNREAD_LIMIT = 4 * 1024 * 1024
STATE_FILE = "background.json"


@dataclass(frozen=True)
class JobView:
    """What ``/tasks`` and the model see of a job."""

    id: str
    command: str
    pid: int
    running: bool
    exit_code: int | None
    started: float
    ended: float | None
    total_bytes: int
    log: str | None
    killed: bool


@dataclass(frozen=True)
class RunningCommand:
    """A foreground command running now (``call_id``: its tool call); ``started`` is ``time.monotonic()`` at its start."""

    call_id: str
    command: str
    started: float


@dataclass(frozen=True)
class NewOutput:
    """Output printed since the last read; ``dropped``: unread bytes lost to the memory bound (the log has them)."""

    text: str
    dropped: int
    job: JobView


@dataclass
class _Job:
    id: str
    command: str
    proc: asyncio.subprocess.Process
    started: float = field(default_factory=time.time)
    ended: float | None = None
    unread: bytearray = field(default_factory=bytearray)
    dropped: int = 0
    total_bytes: int = 0
    log_path: Path | None = None
    log: BinaryIO | None = None
    killed: bool = False
    stopped_at_close: bool = False
    reader: asyncio.Task[None] | None = None
    redacting: StreamRedactor = field(default_factory=Redactor().stream)
    confinement: AsyncExitStack | None = None

    def view(self) -> JobView:
        running = self.proc.returncode is None
        log = str(self.log_path) if self.log_path is not None else None
        return JobView(self.id, self.command, self.proc.pid, running, self.proc.returncode, self.started, self.ended, self.total_bytes, log, self.killed)

    def feed(self, chunk: bytes) -> None:
        self.keep(self.redacting.feed(chunk))

    def finish(self) -> None:
        self.keep(self.redacting.flush())

    def keep(self, chunk: bytes) -> None:
        self.total_bytes += len(chunk)
        self.unread += chunk
        if len(self.unread) > UNREAD_LIMIT:
            cut = len(self.unread) - UNREAD_LIMIT
            del self.unread[:cut]
            self.dropped += cut
        if self.log is not None and self.total_bytes <= SPILL_LIMIT_BYTES:
            try:
                self.log.write(chunk)
                self.log.flush()
            except OSError:
                self.log = None


class BackgroundJobs:
    """The background commands of one session (shared by its sub-agents)."""

    def __init__(self, spill_dir: Path | None = None, state_path: Path | None = None) -> None:
        self.spill_dir = spill_dir
        self.state_path = state_path
        self._jobs: dict[str, _Job] = {}
        self._notices: list[str] = []
        self._count = 0
        self._foreground: dict[str, tuple[RunningCommand, asyncio.Event]] = {}
        atexit.register(self._kill_now)

    @contextmanager
    def foreground(self, call_id: str, command: str) -> Iterator[asyncio.Event]:
        """While the block runs, ``command`` is listed by ``running``; the event is set when it is to go to the background."""
        detach = asyncio.Event()
        key = call_id or f"call-{id(detach)}"
        self._foreground[key] = (RunningCommand(call_id, command, time.monotonic()), detach)
        try:
            yield detach
        finally:
            del self._foreground[key]

    def running(self) -> tuple[RunningCommand, ...]:
        """The foreground commands running now, oldest first."""
        return tuple(command for command, _ in self._foreground.values())

    def detach_foreground(self) -> int:
        """Ask every foreground command to go on in the background (the user's Ctrl-B); how many were asked."""
        waiting = [detach for _, detach in self._foreground.values() if not detach.is_set()]
        for detach in waiting:
            detach.set()
        return len(waiting)

    async def start(self, command: str, cwd: Path, env: ChildEnvironment | None = None, *, sandbox: CommandSandbox | None = None) -> JobView:
        env = env if env is not None else ChildEnvironment.from_process()
        confinement = AsyncExitStack()
        try:
            argv, environment = await prepared(confinement, command, cwd, env.environ(), sandbox)
            proc = await start_group(
                *argv,
                cwd=str(cwd),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                limit=READ_CHUNK,
                env=environment,
            )
        except BaseException:
            await confinement.aclose()
            raise
        job = _Job(self._next_id(), command, proc, redacting=env.redactor.stream(), confinement=confinement)
        self._open_log(job)
        return self._add(job)

    def adopt(
        self,
        command: str,
        proc: asyncio.subprocess.Process,
        confinement: AsyncExitStack,
        env: ChildEnvironment,
        *,
        printed: bytes = b"",
        dropped: int = 0,
        log: Path | None = None,
        running_for: float = 0.0,
    ) -> JobView:
        """A foreground command's process (and its sandbox context) goes on as a job.

        ``printed``: its output so far as kept (redacted), the first thing
        ``read`` returns; ``dropped``: bytes printed before those that were
        not kept; ``log``: the file that already holds all of it (the
        command's spill file), which the job's log goes on.
        """
        job = _Job(self._next_id(), command, proc, started=time.time() - running_for, redacting=env.redactor.stream(), confinement=confinement)
        if log is not None:
            try:
                job.log_path, job.log = log, open(log, "ab")
            except OSError:
                log = None
        job.total_bytes = dropped
        if log is None:
            self._open_log(job)
            job.keep(printed)
        else:
            job.total_bytes += len(printed)
            job.unread += printed
        job.dropped = dropped
        return self._add(job)

    def _next_id(self) -> str:
        self._count += 1
        return f"bg{self._count}"

    def _open_log(self, job: _Job) -> None:
        if self.spill_dir is not None:
            try:
                job.log_path, job.log = open_spill_file(self.spill_dir, f"background-{job.id}")
            except OSError:
                pass

    def _add(self, job: _Job) -> JobView:
        self._jobs[job.id] = job
        job.reader = asyncio.ensure_future(self._pump(job))
        self._save()
        return job.view()

    async def _pump(self, job: _Job) -> None:
        assert job.proc.stdout is not None
        try:
            while chunk := await job.proc.stdout.read(READ_CHUNK):
                job.feed(chunk)
            await job.proc.wait()
        finally:
            job.finish()
            job.ended = time.time()
            if job.log is not None:
                job.log.close()
            if job.confinement is not None:
                await job.confinement.aclose()
            if not job.killed:
                self._notices.append(f"background command {job.id} exited with code {job.proc.returncode}: {_short(job.command)}")
            self._save()

    def read(self, job_id: str) -> NewOutput:
        job = self._find(job_id)
        text = bytes(job.unread).decode("utf-8", errors="replace")
        dropped, job.dropped = job.dropped, 0
        job.unread.clear()
        return NewOutput(text, dropped, job.view())

    async def kill(self, job_id: str) -> JobView:
        job = self._find(job_id)
        if job.proc.returncode is None or group_alive(job.proc.pid):
            job.killed = True
            await stop_group(job.proc)
        if job.reader is not None:
            await asyncio.wait({job.reader}, timeout=2)
        self._save()
        return job.view()

    def jobs(self) -> tuple[JobView, ...]:
        return tuple(job.view() for job in self._jobs.values())

    def take_notices(self) -> tuple[str, ...]:
        """Jobs that exited on their own since the last call, one line each."""
        taken, self._notices = tuple(self._notices), []
        return taken

    async def aclose(self) -> None:
        """Stop every job still running (the session ends)."""
        for job in list(self._jobs.values()):
            if job.proc.returncode is None or group_alive(job.proc.pid):
                job.stopped_at_close = True
                await self.kill(job.id)
        self._save(closing=True)
        atexit.unregister(self._kill_now)

    def _find(self, job_id: str) -> _Job:
        job = self._jobs.get(job_id.strip())
        if job is None:
            known = ", ".join(self._jobs) or "none"
            raise KeyError(f"no background command {job_id!r} in this session (known: {known})")
        return job

    def _kill_now(self) -> None:
        for job in self._jobs.values():
            try:
                os.killpg(job.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def _save(self, *, closing: bool = False) -> None:
        if self.state_path is None:
            return
        rows: list[dict[str, Any]] = [
            {
                "id": v.id,
                "command": v.command,
                "pid": v.pid,
                "running": v.running,
                "exit_code": v.exit_code,
                "killed": v.killed,
                "stopped_at_close": job.stopped_at_close,
                "started": v.started,
                "log": v.log,
            }
            for job in self._jobs.values()
            for v in (job.view(),)
        ]
        try:
            fd = os.open(self.state_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(json.dumps({"closed": closing, "jobs": rows}, indent=1))
        except OSError:
            pass


def background_recap(session_folder: Path) -> tuple[str, ...]:
    """What a resumed session says about the background commands of its previous run."""
    try:
        state = json.loads((session_folder / STATE_FILE).read_text())
    except (OSError, ValueError):
        return ()
    lines = []
    for row in state.get("jobs", []) if isinstance(state, dict) else []:
        if not isinstance(row, dict):
            continue
        name, command = row.get("id", "?"), _short(str(row.get("command", "")))
        if row.get("running"):
            pid = row.get("pid")
            alive = isinstance(pid, int) and _alive(pid)
            fate = f"it may still be running (process group {pid})" if alive else "it is no longer running"
            lines.append(f"background command {name} ({command}) was running when the last run ended without closing; {fate}")
        elif row.get("stopped_at_close"):
            lines.append(f"background command {name} ({command}) was running when the session ended; it was stopped")
    return tuple(lines)


def _alive(pgid: int) -> bool:
    return group_alive(pgid)


def _short(command: str) -> str:
    first = command.strip().splitlines()[0] if command.strip() else command
    return first[:80]
