"""Background commands: a real HTTP server started with run_command background, read, killed; none outlives the session."""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import sys
import time
from pathlib import Path
from typing import Any, Mapping

import pytest

from pseudoclaude.tools import BackgroundJobs, CommandOutputTool, KillCommandTool, OutputBudget, RunCommandTool, ToolContext
from tests.e2e.support import cli_env, fake_server, run_cli
from tests.fakes.script import Call, Reply

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return any(
        Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[2] == str(pgid)
        and Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
        for pid in os.listdir("/proc")
        if pid.isdigit() and Path(f"/proc/{pid}/stat").exists()
    )


def results(request: Mapping[str, Any]) -> str:
    return json.dumps(request["messages"])


def test_a_background_server_is_read_killed_and_nothing_survives_the_session(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "index.html").write_text("hello")
    port, other = free_port(), free_port()
    server_cmd = f"{sys.executable} -u -m http.server {port} --bind 127.0.0.1"
    fetch = f"{sys.executable} -c \"import urllib.request,time; time.sleep(0.5); print(urllib.request.urlopen('http://127.0.0.1:{port}/index.html').read())\""
    steps = [
        Reply(
            text="Starting.",
            calls=(
                Call("run_command", json.dumps({"command": server_cmd, "background": True})),
                Call("run_command", json.dumps({"command": f"{sys.executable} -u -m http.server {other} --bind 127.0.0.1", "background": True})),
            ),
        ),
        Reply(calls=(Call("run_command", json.dumps({"command": fetch})),)),
        Reply(calls=(Call("command_output", json.dumps({"id": "bg1"})),)),
        Reply(calls=(Call("kill_command", json.dumps({"id": "bg1"})),)),
        Reply(calls=(Call("command_output", json.dumps({"id": "bg1"})),)),
        Reply(text="Done; bg2 left running."),
    ]
    with fake_server("anthropic", steps) as server:
        env = {**cli_env("anthropic", server.url, tmp_path / "home"), "HOME": str(tmp_path)}
        proc = run_cli(["-p", "serve it", "--permission-mode", "bypass"], ws, env)
    assert proc.returncode == 0, proc.stderr
    started = results(server.requests[1])
    groups = [int(n) for n in re.findall(r"process group (\d+)", started)]
    assert len(groups) == 2 and "bg1" in started and "bg2" in started
    assert "b'hello'" in results(server.requests[2])
    first_read = results(server.requests[3])
    assert "bg1 is running" in first_read and f"Serving HTTP on 127.0.0.1 port {port}" in first_read and "GET /index.html" in first_read
    assert "Stopped bg1" in results(server.requests[4])
    assert "bg1 was killed" in results(server.requests[5])
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(alive(g) for g in groups):
        time.sleep(0.1)
    assert not any(alive(g) for g in groups)
    state = json.loads(next((tmp_path / "home").rglob("background.json")).read_text())
    assert state["closed"] is True
    assert [(j["id"], j["running"], j["stopped_at_close"]) for j in state["jobs"]] == [("bg1", False, False), ("bg2", False, True)]
    with fake_server("anthropic", [Reply(text="Resumed.")]) as again:
        env = {**cli_env("anthropic", again.url, tmp_path / "home"), "HOME": str(tmp_path)}
        resumed = run_cli(["-p", "what is running?", "--continue"], ws, env)
    assert resumed.returncode == 0, resumed.stderr
    assert "bg2" in resumed.stderr and "was running when the session ended; it was stopped" in resumed.stderr
    assert "bg1" not in resumed.stderr


def test_output_past_the_budget_is_cut_and_the_log_keeps_it_all(tmp_path: Path) -> None:
    asyncio.run(cut_and_logged(tmp_path))


async def cut_and_logged(tmp_path: Path) -> None:
    jobs = BackgroundJobs(tmp_path / "spill", tmp_path / "background.json")
    ctx = ToolContext(workspace=tmp_path, background=jobs).at(budget=OutputBudget(inline_bytes=2000))
    out = await RunCommandTool().run({"command": "seq 1 20000; sleep 30", "background": True}, ctx)
    assert "bg1" in out.content
    tools = {t.name: t for t in (CommandOutputTool(), KillCommandTool())}
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and jobs.jobs()[0].total_bytes < 108894:
        await asyncio.sleep(0.05)
    read = await tools["command_output"].run({"id": "bg1"}, ctx)
    assert read.shaped and "bytes of new output omitted" in read.content and read.content.rstrip().endswith("20000")
    assert len(read.content.encode()) < 2600
    again = await tools["command_output"].run({"id": "bg1"}, ctx)
    assert "(no new output)" in again.content
    log = jobs.jobs()[0].log
    assert log is not None and Path(log).read_text().splitlines()[-1] == "20000"
    await jobs.aclose()
    assert not jobs.jobs()[0].running
