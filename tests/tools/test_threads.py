"""A tool's blocking work cannot keep the process alive after Ctrl-C or SIGTERM.

A real process awaits a read that never returns (a pipe nobody writes), on
``in_thread`` as the tools do, with the CLI's signal handling; the signal ends
it within seconds. The same program on ``asyncio.to_thread`` (what the tools
used before) is still alive: that is what the fix changes.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from pseudoclaude.tools.threads import in_thread

PROGRAM = textwrap.dedent(
    """
    import asyncio, os, sys
    from pseudoclaude.tools.threads import in_thread
    from pseudoclaude.interrupts import Interrupted, run_until_signalled, unwind_on_signals

    async def main() -> None:
        read_end, _ = os.pipe()
        runner = in_thread if sys.argv[1] == "in_thread" else asyncio.to_thread
        print("blocked", flush=True)
        await runner(os.read, read_end, 1)

    unwind_on_signals()
    try:
        run_until_signalled(main)
    except Interrupted:
        print("stopped", flush=True)
    """
)


def _start(runner: str, processes: list[subprocess.Popen[str]]) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", PROGRAM, runner], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    processes.append(proc)
    assert proc.stdout is not None and proc.stdout.readline() == "blocked\n"
    time.sleep(0.2)
    return proc


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_ends_a_process_whose_tool_is_blocked_in_a_read(signum: int, processes: list[subprocess.Popen[str]]) -> None:
    proc = _start("in_thread", processes)
    started = time.monotonic()
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=10)
    assert time.monotonic() - started < 5
    assert out == "stopped\n", err


def test_the_default_executor_would_have_kept_it_alive(processes: list[subprocess.Popen[str]]) -> None:
    proc = _start("to_thread", processes)
    proc.send_signal(signal.SIGTERM)
    with pytest.raises(subprocess.TimeoutExpired):
        proc.communicate(timeout=2)


def test_in_thread_returns_the_result_and_raises_the_error() -> None:
    def fail() -> None:
        raise ValueError("boom")

    async def main() -> tuple[int, str]:
        value = await in_thread(sum, [1, 2, 3])
        try:
            await in_thread(fail)
        except ValueError as error:
            return value, str(error)
        return value, ""

    assert asyncio.run(main()) == (6, "boom")


def test_a_cancelled_call_returns_at_once_and_its_thread_does_not_hold_exit() -> None:
    release = threading.Event()

    async def main() -> float:
        task = asyncio.ensure_future(in_thread(release.wait))
        await asyncio.sleep(0.05)
        started = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return time.monotonic() - started

    assert asyncio.run(main()) < 1
    blocked = [t for t in threading.enumerate() if t.name == "pseudoclaude-wait"]
    assert blocked and all(t.daemon for t in blocked)
    release.set()
