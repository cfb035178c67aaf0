"""run_command: exit codes, timeouts and cancellation kill the whole group, bounded output and memory."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pseudoclaude.tools import ToolContext, ToolError
from pseudoclaude.tools.base import OutputBudget
from pseudoclaude.tools.run_command import RunCommandTool

from .conftest import Call

run = RunCommandTool()


def _live_members(pgid: int) -> list[int]:
    """Non-zombie processes whose process group is ``pgid``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_bytes()
            except OSError:
                continue
            fields = stat[stat.rfind(b")") + 2 :].split()
            if fields[0] != b"Z" and int(fields[2]) == pgid:
                found.append(int(entry))
    return found


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
from pseudoclaude.tools import ToolContext
from pseudoclaude.tools.run_command import RunCommandTool

def hwm_kb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])

ws, spill = Path(sys.argv[1]), Path(sys.argv[2])
before = hwm_kb()
out = asyncio.run(RunCommandTool().run({"command": "yes", "timeout": 10}, ToolContext(workspace=ws, spill_dir=spill)))
print(json.dumps({"growth_kb": hwm_kb() - before, "total": out.display["total_bytes"],
                  "chars": len(out.content), "timed_out": out.display["timed_out"],
                  "spilled": Path(out.display["output_path"]).stat().st_size, "head": out.content[:400]}))
"""


@pytest.mark.slow
def test_yes_for_ten_seconds_keeps_memory_bounded(tmp_path: Path) -> None:
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
    assert report["growth_kb"] < 100 * 1024
    assert report["total"] > 100 * 1024 * 1024
    assert report["chars"] < OutputBudget().inline_bytes + 400
    assert f"{report['total']:,} bytes" in report["head"]
    assert report["spilled"] == 32 * 1024 * 1024
