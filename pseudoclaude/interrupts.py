"""Ctrl-C and the termination signals, at every moment of the process's life, and the process's quick end.

Three phases, one policy:

- **Outside a run's event loop** (start-up, building the agent, shutdown),
  SIGINT, SIGTERM and SIGHUP raise ``Interrupted``, which unwinds to the entry
  point (``__main__``): it says so on stderr and exits 128 + N. It is not a
  ``KeyboardInterrupt`` on purpose: typer turns that into a silent exit 130,
  and one that escaped while the CLI module was still importing made CPython
  kill itself with SIGINT (status -2, nothing said).
- **Inside a run** (``run_until_signalled``), the loop's own signal handlers
  cancel the run's main task, so every layer runs its cancellation path: the
  command's group is killed, open tool calls get a result, the session records
  the interrupt and is synced. The handler runs as a loop callback, between
  steps, never in the middle of one (asyncio's default SIGINT handler runs
  inside whatever bytecode was executing). SIGINT cancels with no message (the
  record says the user interrupted); the others name themselves.
- **A second signal during a run** means the user insists (or the first
  cancel is stuck in a child's cleanup): the process leaves at once, as Claude
  Code does on a second Ctrl-C. The session is durable up to its last entry
  (every entry is written as it happens) and the exit handlers still kill the
  command groups left behind.

A short child the start-up waits for (the git branch, the sandbox probe, an
``apiKeyHelper``) runs through ``run_probe``: a signal that unwinds kills it
first, also one that lands inside ``Popen``'s constructor after the fork,
where ``subprocess.run`` has no object to kill and the child outlived us.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING, Any, Callable, Coroutine, Iterator, NoReturn, Sequence, TypeVar

from pseudoclaude.exitcodes import exit_code_for_signal

if TYPE_CHECKING:
    import asyncio
    import subprocess

T = TypeVar("T")

STOPPING_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Interrupted(BaseException):
    """A signal that ends the process: raised outside a run's loop, or for a run its signal cancelled."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return exit_code_for_signal(self.signum)

    def describe(self) -> str:
        """``interrupted`` for Ctrl-C, ``stopped by SIGTERM`` for the others."""
        return describe_signal(self.signum)


def describe_signal(signum: int) -> str:
    return "interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}"


def unwind_on_signals() -> None:
    """From now on, outside a run's loop, a stopping signal raises ``Interrupted`` (main thread only)."""
    for signum in STOPPING_SIGNALS:
        signal.signal(signum, _raise_interrupted)


def _raise_interrupted(signum: int, frame: FrameType | None) -> NoReturn:
    raise Interrupted(signum)


def run_probe(argv: str | Sequence[str], *, timeout: float, **options: Any) -> subprocess.CompletedProcess[str]:
    """``subprocess.run(argv, capture_output=True, text=True, timeout=...)`` whose child never outlives a signal.

    Outside a run a stopping signal raises ``Interrupted`` wherever the main
    thread is, also inside ``Popen``'s constructor after the fork, where
    nothing holds the child to kill. Here the signals wait until the child is
    held; from then on anything that ends the probe (a signal, the timeout:
    ``TimeoutExpired`` as from ``subprocess.run``) kills and reaps it first.
    """
    import subprocess

    process: subprocess.Popen[str] | None = None
    try:
        with _signals_held() as held:
            process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **options)
        if held:
            raise Interrupted(held[0])
        stdout, stderr = process.communicate(timeout=timeout)
    except BaseException:
        if process is not None:
            _kill(process)
        raise
    return subprocess.CompletedProcess(argv, process.returncode, stdout, stderr)


@contextmanager
def _signals_held() -> Iterator[list[int]]:
    """The stopping signals that arrive in the block, recorded instead of raised (only where they would raise)."""
    held: list[int] = []
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is not _raise_interrupted:
        yield held  # a run's loop handles signals between its steps, and another thread never sees one raise
        return
    for signum in STOPPING_SIGNALS:
        signal.signal(signum, lambda signum, frame: held.append(signum))
    try:
        yield held
    except BaseException:
        unwind_on_signals()
        if held:
            raise Interrupted(held[0]) from None  # the spawn failed meanwhile: the signal still ends the process
        raise
    unwind_on_signals()


def _kill(process: subprocess.Popen[str]) -> None:
    """SIGKILL, reap and close its pipes (a child that is gone already is fine)."""
    try:
        process.kill()
        process.wait()
    except OSError:
        pass
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()


def run_until_signalled(main: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """``asyncio.run(main())`` whose main task a stopping signal cancels; a run so cancelled raises ``Interrupted``.

    Once the loop is closed (which puts back Python's default handlers),
    signals unwind again (``unwind_on_signals``). asyncio loads here, not with
    this module, which the entry point imports before ``--help``.
    """
    import asyncio

    stopped_by: list[int] = []

    async def guarded() -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        for signum in STOPPING_SIGNALS:
            loop.add_signal_handler(signum, _cancel_run, task, signum, stopped_by)
        return await main()

    try:
        return asyncio.run(guarded())
    except asyncio.CancelledError:
        if stopped_by:
            raise Interrupted(stopped_by[0]) from None
        raise
    finally:
        unwind_on_signals()


def _cancel_run(task: asyncio.Task[Any], signum: int, stopped_by: list[int]) -> None:
    stopped_by.append(signum)
    if len(stopped_by) > 1:
        sys.stderr.write(f"pseudoclaude: {describe_signal(signum)} again; leaving now (the session is saved up to its last entry)\n")
        leave(exit_code_for_signal(stopped_by[0]))
    task.cancel(None if signum == signal.SIGINT else f"the process received {signal.Signals(signum).name}")


def leave(code: int) -> NoReturn:
    """End the process with ``code`` at once, once a session run has returned.

    What had to happen has: the session was synced and closed, commands and
    hooks were stopped; here the output is flushed and the ``atexit`` handlers
    run (the fallback that kills leftover background groups). What is skipped is
    the interpreter's teardown, which once both provider SDKs are loaded takes
    0.4-0.8 s (seconds on a loaded machine) of garbage collection, and the join
    of threads a cancelled tool left blocked: after Ctrl-C or SIGTERM the user
    gets the terminal back at once.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader that went away: nothing more can reach it
            pass
    atexit._run_exitfuncs()
    os._exit(code)
