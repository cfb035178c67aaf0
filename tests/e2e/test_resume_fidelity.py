"""Kill -9 mid-session, resume, and the next request is byte-identical.

The session offloads a large tool result (Layer 1) and compacts (Layer 2)
before the kill, so the replay must restore the replacement ledger, the
compaction boundary and the usage anchor to reproduce the request exactly.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Mapping

import pytest

from tests.e2e.support import cli_command, cli_env, fake_server
from tests.fakes.script import Call, Reply, Step, is_summary_request

pytestmark = pytest.mark.slow

WINDOW = 20_000


class Scenario:
    """Answers summary requests with a summary and main requests from ``steps``; hangs once at ``hang_at``."""

    def __init__(self, steps: list[Step], hang_at: int, server_ref: list[Any]) -> None:
        self.steps = steps
        self.hang_at = hang_at
        self.main_calls = 0
        self.summaries = 0
        self.hung = threading.Event()
        self.release = threading.Event()
        self.hang_body_index: int | None = None
        self._server_ref = server_ref

    def __call__(self, body: Mapping[str, Any]) -> Step:
        if is_summary_request(body):
            self.summaries += 1
            return Reply(text="<analysis>scratch</analysis><summary>1. Primary request: read every file.\n9. Next step: keep reading.</summary>")
        index = self.main_calls
        self.main_calls += 1
        if index == self.hang_at and not self.hung.is_set():
            self.hang_body_index = len(self._server_ref[0].raw_bodies) - 1
            self.main_calls = index
            self.hung.set()
            self.release.wait(60)
        return self.steps[index] if index < len(self.steps) else Reply(text="all done")


def make_workspace(root: Path) -> Path:
    ws = root / "ws"
    ws.mkdir()
    (ws / "big").mkdir()
    for i in range(200):
        (ws / "big" / f"a_rather_long_file_name_for_a_long_listing_{i:04d}.txt").write_text("")
    for n in range(14):
        (ws / f"s{n}.txt").write_text("".join(f"file {n} line {i:04d} lorem ipsum dolor sit amet\n" for i in range(110)))
    return ws


def steps() -> list[Step]:
    big = Reply(text="Listing big/.", calls=(Call("glob", json.dumps({"pattern": "big/*.txt"})),))
    reads = [f"s{n}.txt" for n in range(14)]
    return [big] + [Reply(text=f"Reading {name}.", calls=(Call("read_file", json.dumps({"path": name})),)) for name in reads] + [Reply(text="Read them all.")]


def entry_types(home: Path) -> list[str]:
    files = list((home / "sessions").rglob("session.jsonl"))
    assert len(files) == 1
    return [json.loads(line)["type"] for line in files[0].read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_resume_after_sigkill_sends_the_identical_next_request(kind: str, tmp_path: Path, processes: list[subprocess.Popen[Any]]) -> None:
    ws = make_workspace(tmp_path)
    home = tmp_path / "home"
    ref: list[Any] = []
    scenario = Scenario(steps(), hang_at=15, server_ref=ref)
    with fake_server(kind, scenario, context_window=WINDOW) as server:
        ref.append(server)
        args = cli_command("-p", "Read every file.", "--context-window", str(WINDOW), "--permission-mode", "bypass")
        proc = subprocess.Popen(args, cwd=ws, env=cli_env(kind, server.url, home), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        processes.append(proc)
        try:
            assert scenario.hung.wait(90), "the run never reached the request to kill at"
            time.sleep(0.2)
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)
        finally:
            scenario.release.set()
        types = entry_types(home)
        assert "replacement" in types and "compaction" in types, types
        assert scenario.summaries >= 1
        resumed = subprocess.run(
            cli_command("--continue", "-p", "", "--context-window", str(WINDOW), "--permission-mode", "bypass"),
            cwd=ws,
            env=cli_env(kind, server.url, home),
            capture_output=True,
            text=True,
            timeout=90,
        )
        assert resumed.returncode == 0, resumed.stderr
        assert scenario.hang_body_index is not None
        before_kill = server.raw_bodies[scenario.hang_body_index]
        after_resume = server.raw_bodies[scenario.hang_body_index + 1]
        assert json.loads(after_resume) == json.loads(before_kill)
        assert after_resume == before_kill
        assert server.rejections == []
