"""A foreground run_command sent to the background (Ctrl-B): it returns at once, runs on as a job, and nothing is lost."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

from pseudoclaude.tools import BackgroundJobs, CommandOutputTool, OutputBudget, RunCommandTool, ToolContext


def _alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


async def _when(condition: object, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not callable(condition) or not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


def _context(workspace: Path, jobs: BackgroundJobs, inline_bytes: int = 11_200) -> ToolContext:
    return ToolContext(workspace=workspace, spill_dir=jobs.spill_dir, background=jobs).at(call_id="call_1", budget=OutputBudget(inline_bytes=inline_bytes))


def test_a_detached_command_returns_its_job_id_runs_on_and_keeps_all_its_output(tmp_path: Path) -> None:
    marker = tmp_path / "finished"

    async def scenario() -> tuple[str, str, str, int]:
        jobs = BackgroundJobs(spill_dir=tmp_path / "spill")
        ctx = _context(tmp_path, jobs)
        call = asyncio.ensure_future(RunCommandTool().run({"command": f"echo one; sleep 0.4; echo two; touch {marker}; sleep 30"}, ctx))
        await _when(lambda: [c.call_id for c in jobs.running()] == ["call_1"])
        await asyncio.sleep(0.2)
        assert jobs.detach_foreground() == 1
        output = await asyncio.wait_for(call, 2)
        assert jobs.running() == ()
        await _when(marker.exists)
        await asyncio.sleep(0.1)
        read = await CommandOutputTool().run({"id": "bg1"}, ctx)
        pgid = int(output.display["pid"])
        alive = _alive(pgid)
        await jobs.aclose()
        return output.content, output.summary, read.content, pgid if alive else -1

    content, summary, read, pgid = asyncio.run(scenario())
    assert "sent this command to the background" in content and 'command_output(id="bg1")' in content
    assert summary.endswith("(sent to the background as bg1)")
    assert pgid > 0 and not _alive(pgid)  # it ran on after the call returned, and the session's end stopped it
    assert "bg1 is running" in read and read.splitlines()[1:] == ["one", "two"]


def test_output_past_the_budget_before_the_key_stays_in_one_log_that_the_job_goes_on(tmp_path: Path) -> None:
    async def scenario() -> tuple[str, str, bytes]:
        jobs = BackgroundJobs(spill_dir=tmp_path / "spill")
        ctx = _context(tmp_path, jobs, inline_bytes=2000)
        call = asyncio.ensure_future(RunCommandTool().run({"command": "seq 1 5000; sleep 0.5; echo after-the-key; sleep 30"}, ctx))
        await _when(lambda: bool(jobs.running()))
        await asyncio.sleep(0.3)
        jobs.detach_foreground()
        output = await asyncio.wait_for(call, 2)
        await asyncio.sleep(0.6)
        read = await CommandOutputTool().run({"id": "bg1"}, ctx)
        await jobs.aclose()
        log = jobs.jobs()[0].log
        return output.content, read.content, Path(log).read_bytes() if log else b""

    content, read, log = asyncio.run(scenario())
    before = "".join(f"{n}\n" for n in range(1, 5001))
    assert f"({len(before):,} bytes; the first " in content and "are only in " in content
    assert read.rstrip().endswith("5000\nafter-the-key") and "older unread bytes were dropped" in read
    assert log == (before + "after-the-key\n").encode()  # one complete log: the spill of the foreground run, continued


def test_a_command_that_finishes_is_no_longer_listed_and_ctrl_b_then_does_nothing(tmp_path: Path) -> None:
    async def scenario() -> tuple[int, str]:
        jobs = BackgroundJobs()
        output = await RunCommandTool().run({"command": "echo done"}, _context(tmp_path, jobs))
        return jobs.detach_foreground(), output.content

    asked, content = asyncio.run(scenario())
    assert asked == 0 and content == "done\n[exit code 0]"
