"""A second signal during a run ends the process at once, and no command group it started survives it.

The program's run ignores its first cancel (as a command's cleanup that hangs
would), so only the second signal can end it; it runs a real command group
through ``start_group``, as the tools do.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

PROGRAM = textwrap.dedent(
    """
    import asyncio, sys
    from pseudoclaude.interrupts import Interrupted, run_until_signalled, unwind_on_signals
    from pseudoclaude.tools import start_group

    async def main() -> None:
        proc = await start_group("sleep", sys.argv[1])
        print(proc.pid, flush=True)
        while True:
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                print("cancelled", flush=True)

    unwind_on_signals()
    try:
        run_until_signalled(main)
    except Interrupted as stop:
        print("unwound", stop.exit_code, flush=True)
    """
)


@pytest.mark.parametrize("second", [signal.SIGINT, signal.SIGTERM])
def test_a_second_signal_leaves_at_once_with_the_first_signals_code_and_kills_the_groups_left(
    second: int, processes: list[subprocess.Popen[str]], tmp_path: Path
) -> None:
    lasting = f"30.{uuid.uuid4().int % 10**9:09d}"
    proc = subprocess.Popen([sys.executable, "-c", PROGRAM, lasting], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=Path(__file__).parents[1])
    processes.append(proc)
    assert proc.stdout is not None
    group = int(proc.stdout.readline())
    proc.send_signal(signal.SIGINT)
    assert proc.stdout.readline() == "cancelled\n"
    time.sleep(0.3)
    assert proc.poll() is None, "the first signal only cancels: the run decides when it ends"
    proc.send_signal(second)
    out, err = proc.communicate(timeout=10)
    assert proc.returncode == 128 + signal.SIGINT
    assert "unwound" not in out
    assert err.startswith("pseudoclaude: " + ("interrupted" if second == signal.SIGINT else "stopped by SIGTERM") + " again; leaving now")
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(group):
        time.sleep(0.05)
    assert not _alive(group), "the command group outlived the process"


def test_one_signal_cancels_the_run_and_unwinds_with_its_code(processes: list[subprocess.Popen[str]]) -> None:
    program = PROGRAM.replace('print("cancelled", flush=True)', "raise")
    proc = subprocess.Popen([sys.executable, "-c", program, "30"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=Path(__file__).parents[1])
    processes.append(proc)
    assert proc.stdout is not None
    proc.stdout.readline()
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=10)
    assert (proc.returncode, out, err) == (0, f"unwound {128 + signal.SIGTERM}\n", "")


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its reaper counts as gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


PROBE_PROGRAM = textwrap.dedent(
    """
    import os, signal, sys
    from pseudoclaude.interrupts import Interrupted, run_probe, unwind_on_signals

    lasting, moment, program = sys.argv[1], sys.argv[2], sys.argv[3]

    def profile(frame, event, arg):
        if event == "return" and frame.f_code.co_name == moment:
            sys.setprofile(None)
            os.kill(os.getpid(), signal.SIGTERM)

    unwind_on_signals()
    sys.setprofile(profile)
    try:
        run_probe([program, "-c", f"exec sleep {lasting}"], timeout=60)
    except Interrupted as stop:
        print("unwound", stop.exit_code, flush=True)
    """
)


@pytest.mark.parametrize(
    ("moment", "program"),
    [
        pytest.param("_execute_child", "sh", id="inside Popen after the fork"),
        pytest.param("__init__", "sh", id="as Popen returns"),
        pytest.param("unwind_on_signals", "sh", id="as the held signals are given back"),
        pytest.param("register", "sh", id="while waiting for its output"),
        pytest.param("_execute_child", "/nonexistent/sh", id="while a probe fails to start"),
    ],
)
def test_a_signal_at_any_moment_of_a_start_up_probe_kills_the_probe_and_unwinds(moment: str, program: str, processes: list[subprocess.Popen[str]]) -> None:
    """The signal is sent by the program to itself when ``moment`` returns; inside ``Popen``'s constructor,
    ``subprocess.run`` had no object to kill and the child outlived the process."""
    lasting = f"30.{uuid.uuid4().int % 10**9:09d}"
    proc = subprocess.Popen(
        [sys.executable, "-c", PROBE_PROGRAM, lasting, moment, program],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).parents[1],
    )
    processes.append(proc)
    out, err = proc.communicate(timeout=20)
    assert (proc.returncode, out, err) == (0, f"unwound {128 + signal.SIGTERM}\n", "")
    assert _running(lasting) == [], "the probe outlived the process"


def _running(marker: str) -> list[int]:
    """Live processes whose command line holds ``marker``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if marker.encode() in stat.read_bytes() and _alive(int(stat.parent.name)):
                found.append(int(stat.parent.name))
        except OSError:
            continue
    return found


def test_a_probe_past_its_timeout_is_killed_and_reaped() -> None:
    from pseudoclaude.interrupts import run_probe

    lasting = f"30.{uuid.uuid4().int % 10**9:09d}"
    with pytest.raises(subprocess.TimeoutExpired):
        run_probe(["sleep", lasting], timeout=0.2)
    assert _running(lasting) == []
