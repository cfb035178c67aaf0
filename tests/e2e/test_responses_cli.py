"""The CLI on an OpenAI reasoning model through the Responses API, against the strict fake.

The fake refuses what OpenAI refuses (a reasoning item out of place or with
content it never issued, a call without its output), so these runs show the
reasoning carried across tool rounds, faults and a resume.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.support import cli_command, cli_env, fake_server, json_lines, run_cli
from tests.fakes.openai_server import RESPONSES_PATH
from tests.fakes.script import Call, CutStream, Reply, StallStream, StreamError

pytestmark = pytest.mark.slow


def script() -> list[Any]:
    return [
        Reply(
            text="Let me read the notes.",
            thinking="The notes are in notes.txt.",
            reasoning_tokens=40,
            calls=(Call("read_file", json.dumps({"path": "notes.txt"})),),
        ),
        Reply(
            text="Now count.", thinking="Counting needs wc.", reasoning_tokens=30, calls=(Call("run_command", json.dumps({"command": "wc -l < notes.txt"})),)
        ),
        Reply(text="The notes have 3 lines.", thinking="Three.", reasoning_tokens=10),
    ]


def env(url: str, home: Path) -> dict[str, str]:
    return {**cli_env("openai", url, home), "PSEUDOCLAUDE_MODEL": "gpt-5", "PSEUDOCLAUDE_OPENAI_API": "responses"}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    return ws


def reasoning_items(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [item for item in body["input"] if item.get("type") == "reasoning"]


def test_a_tool_task_carries_each_rounds_reasoning_into_every_later_request(workspace: Path, tmp_path: Path) -> None:
    with fake_server("openai", script()) as server:
        proc = run_cli(["-p", "count my notes", "--output-format", "json", "--permission-mode", "bypass"], workspace, env(server.url, tmp_path / "home"))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["result"] == "The notes have 3 lines."
    assert server.rejections == [] and set(server.paths) == {RESPONSES_PATH}
    assert [len(reasoning_items(body)) for body in server.requests] == [0, 1, 2]
    assert reasoning_items(server.requests[1])[0] == reasoning_items(server.requests[2])[0]
    assert all(body["store"] is False for body in server.requests)


@pytest.mark.parametrize(
    "fault",
    [
        CutStream(Reply(text="Reading.", thinking="plan", calls=(Call("read_file", json.dumps({"path": "notes.txt"})),))),
        CutStream(Reply(thinking="plan", calls=(Call("read_file", json.dumps({"path": "notes.txt"})),)), name_only=True),
        StreamError(Reply(text="partial words here"), after_deltas=1),
    ],
    ids=["cut-mid-arguments", "cut-after-name", "failed-event"],
)
def test_a_dropped_stream_leaves_a_session_the_service_still_accepts(fault: Any, workspace: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    with fake_server("openai", [fault, *script(), Reply(text="Still 3.")]) as server:
        first = run_cli(["-p", "count", "--output-format", "json", "--permission-mode", "bypass"], workspace, env(server.url, home))
        again = run_cli(["-p", "and now?", "--continue", "--output-format", "json", "--permission-mode", "bypass"], workspace, env(server.url, home))
    assert first.returncode == 0, first.stderr
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["result"] == "Still 3."
    assert server.rejections == []
    assert len(reasoning_items(server.requests[-1])) == 3


def test_a_resumed_session_sends_the_same_bytes_for_what_came_before(workspace: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    with fake_server("openai", [*script(), Reply(text="Still 3.")]) as server:
        run_cli(["-p", "count", "--permission-mode", "bypass"], workspace, env(server.url, home))
        proc = run_cli(["-p", "and now?", "--continue", "--permission-mode", "bypass"], workspace, env(server.url, home))
    assert proc.returncode == 0, proc.stderr
    last_before, resumed = server.requests[2]["input"], server.requests[3]["input"]
    answer = {"role": "assistant", "content": "The notes have 3 lines."}
    expected = [*last_before, reasoning_items(server.requests[3])[-1], answer, {"role": "user", "content": "and now?"}]
    assert resumed == expected
    assert server.requests[2]["prompt_cache_key"] == server.requests[3]["prompt_cache_key"]


def test_effort_reaches_the_request_and_the_summary_and_reasoning_tokens_reach_the_output(workspace: Path, tmp_path: Path) -> None:
    with fake_server("openai", script()) as server:
        args = ["-p", "count", "--effort", "high", "--output-format", "events", "--permission-mode", "bypass"]
        proc = run_cli(args, workspace, env(server.url, tmp_path / "home"))
    assert proc.returncode == 0, proc.stderr
    assert all(body["reasoning"] == {"effort": "high", "summary": "auto"} for body in server.requests)
    events = json_lines(proc.stdout)
    thought = "".join(e["text"] for e in events if e["type"] == "thinking_delta")
    assert "The notes are in notes.txt." in thought and "Counting needs wc." in thought
    usage = events[-1]["usage"]
    assert usage["reasoning_tokens"] == 80 and usage["output_tokens"] == 3 * 20 + 80


def test_a_local_server_gets_chat_completions_with_only_reasoning_effort(workspace: Path, tmp_path: Path) -> None:
    local = {**cli_env("openai", "", tmp_path / "home"), "PSEUDOCLAUDE_MODEL": "gpt-5"}
    with fake_server("openai", script()) as server:
        proc = run_cli(["-p", "count", "--effort", "high", "--permission-mode", "bypass"], workspace, {**local, "OPENAI_BASE_URL": server.url})
    assert proc.returncode == 0, proc.stderr
    assert set(server.paths) == {"/v1/chat/completions"} and server.rejections == []
    assert not any({"reasoning", "include", "input", "max_tokens"} & set(body) for body in server.requests)
    assert {body["reasoning_effort"] for body in server.requests} == {"high"}


def test_interrupting_while_the_model_reasons_leaves_a_session_that_resumes(processes: list[subprocess.Popen[str]], workspace: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    stall = StallStream(Reply(thinking="a long chain of thought " * 20, text="never"), after_deltas=2)
    with fake_server("openai", [*script()[:1], stall, Reply(text="Back.")]) as server:
        args = ["-p", "count", "--effort", "max", "--output-format", "events", "--permission-mode", "bypass"]
        proc = subprocess.Popen(cli_command(*args), cwd=workspace, env=env(server.url, home), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        processes.append(proc)
        assert server.stalled.wait(60), "the reasoning stream never started"
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 130, err
        assert any(e.get("type") == "thinking_delta" for e in json_lines(out))
        resumed = run_cli(["--continue", "-p", "go on", "--permission-mode", "bypass"], workspace, env(server.url, home))
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout == "Back.\n"
    assert server.rejections == []
    assert len(reasoning_items(server.requests[-1])) == 1
