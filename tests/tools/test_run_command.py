"""run_command: exit codes, timeouts and cancellation kill the whole group, bounded output and memory."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pseudoclaude.tools import ToolContext, ToolError
from pseudoclaude.tools.base import OutputBudget
from pseudoclaude.tools.run_command import RunCommandTool

from .conftest import Call

run = RunCommandTool()


def _live(field: int, value: int) -> list[int]:
    """Non-zombie processes whose ``/proc/<pid>/stat`` field after the state (0: parent, 1: process group) is ``value``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_bytes()
            except OSError:
                continue
            fields = stat[stat.rfind(b")") + 2 :].split()
            if fields[0] != b"Z" and int(fields[1 + field]) == value:
                found.append(int(entry))
    return found


def _live_members(pgid: int) -> list[int]:
    """Non-zombie processes whose process group is ``pgid``."""
    return _live(1, pgid)


def _wait_gone(pgid: int, seconds: float = 3.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while (members := _live_members(pgid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return members


def test_output_and_exit_code(call: Call) -> None:
    out = call(run, command="echo out; echo err >&2; exit 3")
    assert out.content == "out\nerr\n[exit code 3]"
    assert out.display["exit_code"] == 3
    assert out.display["timed_out"] is False


def test_runs_in_the_workspace(call: Call, workspace: Path) -> None:
    assert call(run, command="pwd").content.splitlines()[0] == str(workspace)


def test_stdin_is_empty_so_cat_returns_at_once(call: Call) -> None:
    started = time.monotonic()
    out = call(run, command="cat; echo done", timeout=10)
    assert out.content.startswith("done\n")
    assert time.monotonic() - started < 2


def test_timeout_kills_the_whole_group(call: Call) -> None:
    started = time.monotonic()
    out = call(run, command="echo $$; sh -c 'sleep 1000 & wait'", timeout=2)
    assert time.monotonic() - started < 6
    assert out.display["timed_out"] is True
    assert "timed out after 2 s" in out.content
    pgid = int(out.content.splitlines()[0])
    assert _wait_gone(pgid) == []


def test_background_process_holding_the_pipe_is_stopped(call: Call) -> None:
    started = time.monotonic()
    out = call(run, command="echo $$; sleep 1000 &", timeout=30)
    assert time.monotonic() - started < 5
    assert out.display["exit_code"] == 0
    assert _wait_gone(int(out.content.splitlines()[0])) == []


def test_cancellation_kills_the_group_and_propagates(ctx: ToolContext, workspace: Path) -> None:
    pid_file = workspace / "pid"

    async def scenario() -> None:
        task = asyncio.create_task(run.run({"command": "echo $$ > pid; sleep 1000 & sleep 1000 & wait"}, ctx))
        deadline = time.monotonic() + 5
        while not (pid_file.exists() and pid_file.read_text().strip()) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    pgid = int(pid_file.read_text())
    assert _wait_gone(pgid) == []


def test_large_output_keeps_head_and_tail_and_spills_everything(call: Call, ctx: ToolContext) -> None:
    out = call(run, command="seq 1 100000")
    expected = "".join(f"{i}\n" for i in range(1, 100_001))
    assert out.display["total_bytes"] == len(expected)
    assert out.display["output_lines"] == 100_000
    status, first = out.content.splitlines()[:2]
    assert status.startswith(f"[exit code 0 · {len(expected):,} bytes, 100,000 lines · ")
    assert first == "1"
    assert out.content.endswith("99999\n100000\n")
    assert "bytes omitted: lines 13-" in out.content
    assert len(out.content.encode()) < ctx.budget.inline_bytes + 300
    spilled = Path(out.display["output_path"])
    assert spilled.parent == ctx.spill_dir
    assert spilled.read_text() == expected
    assert status.endswith(f"complete output: {spilled}]")
    assert out.shaped and out.full_output == str(spilled)


def test_spill_names_do_not_collide(call: Call) -> None:
    first = call(run, command="seq 1 50000").display["output_path"]
    second = call(run, command="seq 1 50000").display["output_path"]
    assert first != second


def test_large_output_without_spill_dir_is_still_capped(workspace: Path) -> None:
    context = ToolContext(workspace=workspace)
    out = asyncio.run(run.run({"command": "seq 1 100000"}, context))
    assert out.display["output_path"] is None and out.full_output is None
    assert out.content.splitlines()[0].endswith("the complete output was not saved (this session keeps no files)]")
    assert len(out.content.encode()) < context.budget.inline_bytes + 300


def test_invalid_utf8_is_replaced(call: Call) -> None:
    assert "a\ufffdb" in call(run, command=r"printf 'a\377b\n'").content


def test_binary_output_is_summarized(call: Call) -> None:
    out = call(run, command=r"printf '\211PNG\r\n\032\n\000\000\000'")
    assert out.content.startswith("[exit code 0 · binary output: 11 bytes, looks like PNG image; not shown · complete output: ")
    assert out.display["binary"] is True
    assert Path(out.display["output_path"]).read_bytes() == b"\x89PNG\r\n\x1a\n\x00\x00\x00"
    assert out.shaped and out.full_output == out.display["output_path"]


def test_vanished_workspace_is_a_clear_error(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    context = ToolContext(workspace=gone)
    gone.rmdir()
    with pytest.raises(ToolError, match="no longer exists"):
        asyncio.run(run.run({"command": "true"}, context))


def test_timeout_above_maximum_is_refused(call: Call) -> None:
    with pytest.raises(ToolError, match="'timeout' must be <= 600"):
        call(run, command="true", timeout=601)


_MEMORY_PROBE = """
import asyncio, json, sys
from pathlib import Path
from typing import Any
from pseudoclaude.tools import ToolContext
from pseudoclaude.tools.run_command import RunCommandTool

def hwm_kb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])

ws, spill = Path(sys.argv[1]), Path(sys.argv[2])
before = hwm_kb()
out = asyncio.run(RunCommandTool().run({"command": "yes", "timeout": 5}, ToolContext(workspace=ws, spill_dir=spill)))
print(json.dumps({"growth_kb": hwm_kb() - before, "total": out.display["total_bytes"],
                  "chars": len(out.content), "timed_out": out.display["timed_out"],
                  "spilled": Path(out.display["output_path"]).stat().st_size, "head": out.content[:400]}))
"""


@pytest.mark.slow
def test_yes_until_its_timeout_keeps_memory_bounded(tmp_path: Path) -> None:
    """A 5 s timeout (10 s was waiting): past the 32 MiB spill cap even on a loaded machine; 2 GB is ``bench/bench_bounded_memory.py``."""
    (tmp_path / "ws").mkdir()
    probe = subprocess.run(
        [sys.executable, "-c", _MEMORY_PROBE, str(tmp_path / "ws"), str(tmp_path / "spill")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert probe.returncode == 0, probe.stderr
    report = json.loads(probe.stdout)
    assert report["timed_out"] is True
    assert report["total"] > 40 * 1024 * 1024
    assert report["growth_kb"] < 100 * 1024 and report["growth_kb"] * 1024 < report["total"] / 4, "the output is streamed, not held"
    assert report["chars"] < OutputBudget().inline_bytes + 400
    assert f"{report['total']:,} bytes" in report["head"]
    assert report["spilled"] == 32 * 1024 * 1024


_PYTEST_LIKE = r"""
import sys
w = sys.stdout.write
for i in range(1, 4001):
    w(f"tests/test_mod.py::test_case_{i:04} PASSED                                  [ 50%]\n")
w("Traceback (most recent call last):\n")
w('  File "src/app.py", line 42, in handler\n')
w("ValueError: bad input in the middle\n")
for i in range(4001, 4301):
    w(f"tests/test_mod.py::test_case_{i:04} PASSED                                  [ 75%]\n")
w("=================================== FAILURES ===================================\n")
w("E       AssertionError: assert 1 == 2\n")
w("tests/test_last.py:12: AssertionError\n")
w("FAILED tests/test_last.py::test_final - AssertionError: assert 1 == 2\n")
w("========================= 1 failed, 4300 passed in 9.87s =========================\n")
"""


def _pytest_like(workspace: Path) -> str:
    (workspace / "gen.py").write_text(_PYTEST_LIKE)
    return f"{sys.executable} gen.py; exit 1"


@pytest.mark.parametrize("inline", [6_000, 8_960, 14_000])
def test_a_long_output_shows_its_failures_and_its_end_at_every_budget(workspace: Path, tmp_path: Path, inline: int) -> None:
    context = ToolContext(workspace=workspace, spill_dir=tmp_path / "spill").at(budget=OutputBudget(inline_bytes=inline))
    out = asyncio.run(run.run({"command": _pytest_like(workspace)}, context))
    spilled = Path(out.display["output_path"])
    complete = spilled.read_bytes()
    lines = complete.decode().splitlines()
    assert len(complete) > 300_000 and out.display["total_bytes"] == len(complete)
    status = out.content.splitlines()[0]
    assert status.startswith(f"[exit code 1 · {len(complete):,} bytes, {len(lines):,} lines · ")
    assert status.endswith(f"complete output: {spilled}]")
    assert len(out.content.encode()) <= inline + len(status) + 1
    assert out.shaped and out.full_output == str(spilled)
    assert out.content.endswith("\n".join(lines[-4:]) + "\n")
    assert "FAILED tests/test_last.py::test_final - AssertionError: assert 1 == 2" in out.content
    assert "4001: Traceback (most recent call last):\n" in out.content
    assert '4002:   File "src/app.py", line 42, in handler\n' in out.content
    assert "4003: ValueError: bad input in the middle\n" in out.content
    assert lines[4000:4003] == ["Traceback (most recent call last):", '  File "src/app.py", line 42, in handler', "ValueError: bad input in the middle"]


def test_middle_error_lines_are_numbered_as_in_the_complete_output(call: Call) -> None:
    out = call(run, command="seq 1 20000 | sed -e 's/^7777$/src\\/x.c:7777:3: error: expected ;/' -e 's/^15000$/npm ERR! code 15000/'")
    assert "7777: src/x.c:7777:3: error: expected ;\n" in out.content
    assert "15000: npm ERR! code 15000\n" in out.content
    assert out.content.endswith("19999\n20000\n")


def test_an_output_of_nothing_but_error_lines_stays_bounded(call: Call, ctx: ToolContext) -> None:
    out = call(run, command="yes 'error: it broke' | head -n 500000")
    assert out.display["output_lines"] == 500_000
    assert len(out.content.encode()) < ctx.budget.inline_bytes + 300
    assert "… [more error-like lines (too many to count) not listed]" in out.content
    assert out.content.endswith("error: it broke\n")
    assert Path(out.display["output_path"]).stat().st_size == 500_000 * 16


def test_a_single_100_mb_line_stays_bounded(call: Call, ctx: ToolContext) -> None:
    out = call(run, command="head -c 100000000 /dev/zero | tr '\\0' 'x'; echo; echo done")
    assert out.display["total_bytes"] == 100_000_006
    assert out.display["output_lines"] == 2
    assert len(out.content.encode()) < ctx.budget.inline_bytes + 300
    assert " … [line 1 continues]" in out.content
    assert "xxx … [line 1 continues]\n… [99,98" in out.content
    assert "… [the end of line 1, then line 2:]\n" + "x" * 100 in out.content
    assert out.content.endswith("x" * 100 + "\ndone\n")
    status = out.content.splitlines()[0]
    assert "only the first 33,554,432 of 100,000,006 bytes (32 MiB disk cap) saved to" in status
    assert Path(out.display["output_path"]).stat().st_size == 33_554_432


def test_a_spill_that_cannot_be_written_says_so_and_names_no_file(workspace: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    context = ToolContext(workspace=workspace, spill_dir=blocker / "spill")
    out = asyncio.run(run.run({"command": "seq 1 100000"}, context))
    status = out.content.splitlines()[0]
    assert "the complete output could not be saved: " in status
    assert out.display["output_path"] is None and out.full_output is None
    assert out.shaped
    assert out.content.endswith("100000\n")


_BIG_PROBE = """
import asyncio, json, sys
from pathlib import Path
from typing import Any
from pseudoclaude.tools import ToolContext
from pseudoclaude.tools.run_command import RunCommandTool

def hwm_kb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])

ws, spill, size = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
before = hwm_kb()
command = f"yes 'a fairly ordinary line of output' | head -c {size}; echo; echo 'ERROR: the last line'"
out = asyncio.run(RunCommandTool().run({"command": command, "timeout": 120}, ToolContext(workspace=ws, spill_dir=spill)))
print(json.dumps({"growth_kb": hwm_kb() - before, "total": out.display["total_bytes"], "bytes": len(out.content.encode()),
                  "end": out.content[-200:], "status": out.content.splitlines()[0]}))
"""


def _probe(tmp_path: Path, size: int) -> dict[str, Any]:
    (tmp_path / "ws").mkdir()
    probe = subprocess.run(
        [sys.executable, "-c", _BIG_PROBE, str(tmp_path / "ws"), str(tmp_path / "spill"), str(size)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert probe.returncode == 0, probe.stderr
    report: dict[str, Any] = json.loads(probe.stdout)
    return report


def test_200_mb_of_output_stays_bounded(tmp_path: Path) -> None:
    """The same bound for 2 GB (~50 s) is measured by ``bench/bench_bounded_memory.py``."""
    report = _probe(tmp_path, 200_000_000)
    assert report["total"] == 200_000_000 + 22
    assert report["growth_kb"] < 60 * 1024
    assert report["bytes"] < OutputBudget().inline_bytes + 400
    assert report["end"].endswith("\nERROR: the last line\n")
    assert "200,000,022 bytes" in report["status"]


def _children() -> list[int]:
    """Live processes whose parent is this one (the command's bash, once it was forked)."""
    return _live(0, os.getpid())


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except OSError:
        return False


def test_a_cancel_while_the_command_is_still_starting_stops_what_it_started_at_once(ctx: ToolContext, workspace: Path) -> None:
    """The Ctrl-C that came before the group was known: asyncio's own cancel path killed only bash, then waited for its child (30 s)."""
    pid_file = workspace / "pid"

    async def scenario() -> tuple[bool, float]:
        task = asyncio.create_task(run.run({"command": "sleep 30 & echo $! > pid; wait"}, ctx))
        deadline = time.monotonic() + 10
        while not _children() and time.monotonic() < deadline:
            await asyncio.sleep(0)  # one step at a time: the cancel must land while the start is still connecting the pipes
        while not (pid_file.exists() and pid_file.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.01)  # blocking on purpose: the loop must not finish the start meanwhile
        started = time.monotonic()
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=5)
        return task in done, time.monotonic() - started

    try:
        ended, seconds = asyncio.run(scenario())
        assert ended and seconds < 3
        deadline = time.monotonic() + 3
        while _running(int(pid_file.read_text())) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _running(int(pid_file.read_text()))
    finally:
        if pid_file.exists() and _running(pid := int(pid_file.read_text())):
            os.kill(pid, 9)
