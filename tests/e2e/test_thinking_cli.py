"""Extended thinking through the real CLI against the fake Anthropic server.

The fake signs each thinking block and rejects one that comes back changed,
missing or out of place, so a passing run means the agent stored the blocks
and sent them back exactly as the API requires.
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

from tests.e2e.support import cli_command, cli_env, fake_server, json_lines, run_cli
from tests.fakes.script import Call, Reply, StallStream, Step

pytestmark = pytest.mark.slow

MODEL = "claude-opus-4-5"


def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("alpha\n")
    return ws


def two_rounds() -> list[Step]:
    return [
        Reply(thinking="The user wants a.txt; read it first.", text="Reading.", calls=(Call("read_file", json.dumps({"path": "a.txt"})),), output_tokens=700),
        Reply(thinking="It says alpha; answer briefly.", text="It says alpha.", output_tokens=300),
    ]


def session_lines(home: Path) -> list[dict[str, Any]]:
    [path] = list((home / "sessions").rglob("session.jsonl"))
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_a_tool_round_with_thinking_sends_the_signed_block_back_and_reports_it(tmp_path: Path) -> None:
    ws, home = workspace(tmp_path), tmp_path / "home"
    with fake_server("anthropic", two_rounds()) as server:
        env = cli_env("anthropic", server.url, home)
        done = run_cli(
            ["-p", "What does a.txt say?", "--model", MODEL, "--effort", "medium", "--output-format", "events", "--permission-mode", "bypass"], ws, env
        )
    assert done.returncode == 0, done.stderr
    assert server.rejections == []
    first, second = server.requests
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 10_000} and first["max_tokens"] > 10_000
    assistant = second["messages"][1]["content"]
    assert assistant[0]["type"] == "thinking" and assistant[0]["thinking"] == "The user wants a.txt; read it first."
    events = json_lines(done.stdout)
    thought = "".join(e["text"] for e in events if e["type"] == "thinking_delta")
    assert "read it first" in thought and "answer briefly" in thought
    messages = [e for e in events if e["type"] == "assistant_message"]
    assert messages[0]["thinking"][0]["opaque"] == assistant[0]["signature"]
    result = events[-1]
    assert result["type"] == "result" and result["usage"]["output_tokens"] == 1000
    stored = [e["message"] for e in session_lines(home) if e["type"] == "message" and e["message"]["role"] == "assistant"]
    assert stored[0]["thinking"][0]["opaque"] == assistant[0]["signature"]


def test_redacted_thinking_survives_a_resume_and_goes_back_unchanged(tmp_path: Path) -> None:
    ws, home = workspace(tmp_path), tmp_path / "home"
    script: list[Step] = [
        Reply(redacted_thinking="hidden plan", calls=(Call("read_file", json.dumps({"path": "a.txt"})),)),
        Reply(text="Done."),
        Reply(text="Still fine."),
    ]
    with fake_server("anthropic", script) as server:
        env = cli_env("anthropic", server.url, home)
        assert run_cli(["-p", "read a.txt", "--model", MODEL, "--effort", "low", "--permission-mode", "bypass"], ws, env).returncode == 0
        resumed = run_cli(["--continue", "-p", "and now?", "--model", MODEL, "--effort", "low"], ws, env)
    assert resumed.returncode == 0, resumed.stderr
    assert server.rejections == []
    before, after = server.requests[1]["messages"][1], server.requests[2]["messages"][1]
    assert before["content"][0]["type"] == "redacted_thinking"
    assert after["content"][0] == before["content"][0]


class HangAt:
    """Plays ``steps``; the request number ``index`` hangs until ``release`` (the test kills the CLI there)."""

    def __init__(self, steps: list[Step], index: int) -> None:
        self.steps, self.index, self.calls = steps, index, 0
        self.hung, self.release = threading.Event(), threading.Event()

    def __call__(self, body: Mapping[str, Any]) -> Step:
        n, self.calls = self.calls, self.calls + 1
        if n == self.index and not self.hung.is_set():
            self.hung.set()
            self.release.wait(60)
        return self.steps[min(n, len(self.steps) - 1)]


def test_resume_of_a_session_with_thinking_sends_the_same_bytes(tmp_path: Path, processes: list[subprocess.Popen[Any]]) -> None:
    ws, home = workspace(tmp_path), tmp_path / "home"
    scenario = HangAt(two_rounds(), index=1)
    with fake_server("anthropic", scenario) as server:
        env = cli_env("anthropic", server.url, home)
        proc = subprocess.Popen(
            cli_command("-p", "What does a.txt say?", "--model", MODEL, "--effort", "high", "--permission-mode", "bypass"),
            cwd=ws,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        processes.append(proc)
        try:
            assert scenario.hung.wait(60), "the second request never came"
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)
        finally:
            scenario.release.set()
        resumed = run_cli(["--continue", "-p", "", "--model", MODEL, "--effort", "high", "--permission-mode", "bypass"], ws, env)
    assert resumed.returncode == 0, resumed.stderr
    assert server.rejections == []
    assert server.raw_bodies[2] == server.raw_bodies[1]
    assert server.requests[2]["messages"][1]["content"][0]["type"] == "thinking"


def test_interrupting_while_the_model_thinks_leaves_a_session_that_resumes(tmp_path: Path) -> None:
    ws, home = workspace(tmp_path), tmp_path / "home"
    script: list[Step] = [StallStream(Reply(thinking="a long chain of thought " * 20, text="never"), after_deltas=2), Reply(text="Back.")]
    with fake_server("anthropic", script) as server:
        env = cli_env("anthropic", server.url, home)
        proc = subprocess.Popen(
            cli_command("-p", "think hard", "--model", MODEL, "--effort", "max", "--output-format", "events"),
            cwd=ws,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert server.stalled.wait(60), "the thinking stream never started"
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 130, err
        assert any(e["type"] == "thinking_delta" for e in json_lines(out) if "type" in e)
        resumed = run_cli(["--continue", "-p", "go on", "--model", MODEL, "--effort", "max"], ws, env)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout == "Back.\n"
    assert server.rejections == []
    assert all(not m.get("thinking") for e in session_lines(home) if e["type"] == "message" for m in [e["message"]])


def test_a_model_without_thinking_gets_a_one_line_notice_and_a_plain_request(tmp_path: Path) -> None:
    ws, home = workspace(tmp_path), tmp_path / "home"
    with fake_server("anthropic", [Reply(text="Plain.", thinking="never sent")]) as server:
        done = run_cli(["-p", "hi", "--model", "claude-3-5-haiku-latest", "--effort", "high"], ws, cli_env("anthropic", server.url, home))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Plain.\n"
    assert "does not take an effort setting" in done.stderr
    assert "thinking" not in server.requests[0] and server.rejections == []


def test_a_budget_below_the_minimum_is_refused_before_any_request(tmp_path: Path) -> None:
    ws, home = workspace(tmp_path), tmp_path / "home"
    with fake_server("anthropic", [Reply(text="unused")]) as server:
        done = run_cli(["-p", "hi", "--model", MODEL, "--max-thinking-tokens", "500"], ws, cli_env("anthropic", server.url, home))
    assert done.returncode == 2 and "at least 1024" in done.stderr
    assert server.requests == []
