"""The real CLI in a subprocess against the wire-level fake servers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.support import KEYS, cli_env, fake_server, json_lines, run_cli
from tests.fakes.script import Call, CutStream, HttpError, Reply, StreamError

pytestmark = pytest.mark.slow


def three_turn_script() -> list[Any]:
    return [
        Reply(text="Let me read the notes.", calls=(Call("read_file", json.dumps({"path": "notes.txt"}), chunks=4),)),
        Reply(text="Now count the lines.", calls=(Call("run_command", json.dumps({"command": "wc -l < notes.txt"}), chunks=5),)),
        Reply(text="The notes have 3 lines."),
    ]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    return ws


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_three_turn_tool_task_in_stream_json(kind: str, workspace: Path, tmp_path: Path) -> None:
    with fake_server(kind, three_turn_script()) as server:
        proc = run_cli(
            ["-p", "How many lines do my notes have?", "--output-format", "events", "--permission-mode", "bypass"],
            workspace,
            cli_env(kind, server.url, tmp_path / "home"),
        )
    assert proc.returncode == 0, proc.stderr
    events = json_lines(proc.stdout)
    types = [e["type"] for e in events]
    assert types.count("tool_call_started") == 2 and types.count("tool_call_finished") == 2
    started = [e for e in events if e["type"] == "tool_call_started"]
    assert [e["name"] for e in started] == ["read_file", "run_command"]
    assert all(not e["is_error"] for e in events if e["type"] == "tool_call_finished")
    assert events[-2]["type"] == "stop" and events[-2]["reason"] == "end_turn"
    assert events[-1]["type"] == "result" and events[-1]["result"] == "The notes have 3 lines." and events[-1]["turns"] == 3
    assert len(server.requests) == 3 and server.rejections == []
    assert "gamma" in json.dumps(server.requests[1])
    assert "3" in json.dumps(server.requests[2]["messages"][-1])
    secret = KEYS[kind]
    for path in (tmp_path / "home").rglob("*"):
        if path.is_file():
            assert secret not in path.read_text(errors="replace")
    assert secret not in proc.stdout + proc.stderr


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_text_and_json_output_formats(kind: str, workspace: Path, tmp_path: Path) -> None:
    with fake_server(kind, [Reply(text="Plain answer.")]) as server:
        text = run_cli(["-p", "hi"], workspace, cli_env(kind, server.url, tmp_path / "home"))
    assert text.returncode == 0 and text.stdout == "Plain answer.\n"
    with fake_server(kind, [Reply(text="Json answer.", input_tokens=120, cache_read_tokens=30)] * 2) as server:
        env = cli_env(kind, server.url, tmp_path / "home")
        run_cli(["-p", "hi"], workspace, env)  # writes the prompt cache the next run reads (the fake reports no more than that)
        out = run_cli(["-p", "hi", "--output-format", "json"], workspace, env)
    result = json.loads(out.stdout)
    assert result["result"] == "Json answer." and result["stop_reason"] == "end_turn" and result["turns"] == 1
    assert result["usage"]["cache_read_input_tokens"] == 30 and result["session_id"]


def test_prompt_from_stdin(workspace: Path, tmp_path: Path) -> None:
    with fake_server("anthropic", [Reply(text="from stdin")]) as server:
        proc = run_cli(["-p"], workspace, cli_env("anthropic", server.url, tmp_path / "home"), stdin="what is this?")
    assert proc.returncode == 0 and proc.stdout == "from stdin\n"
    assert "what is this?" in json.dumps(server.requests[0]["messages"])


def test_no_provider_configured_exits_2_naming_the_variables(workspace: Path, tmp_path: Path) -> None:
    proc = run_cli(["-p", "hi"], workspace, {"PSEUDOCLAUDE_HOME": str(tmp_path / "home")})
    assert proc.returncode == 2
    assert "ANTHROPIC_API_KEY" in proc.stderr and "OPENAI_API_KEY" in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "fault",
    [
        HttpError(429, "rate_limit", retry_after=0),
        HttpError(529, "overloaded", retry_after=0),
        HttpError(500, "server", retry_after=0),
        StreamError(Reply(text="partial words here"), after_deltas=1),
        CutStream(Reply(calls=(Call("read_file", json.dumps({"path": "notes.txt"})),))),
        CutStream(Reply(calls=(Call("read_file", json.dumps({"path": "notes.txt"})),)), name_only=True),
    ],
    ids=["429", "529", "500", "error-event", "cut-mid-json", "cut-after-name"],
)
@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_each_fault_ends_in_a_successful_retry(kind: str, fault: Any, workspace: Path, tmp_path: Path) -> None:
    script = [fault, *three_turn_script()]
    with fake_server(kind, script) as server:
        proc = run_cli(["-p", "count", "--output-format", "json", "--permission-mode", "bypass"], workspace, cli_env(kind, server.url, tmp_path / "home"))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["result"] == "The notes have 3 lines."
    assert server.rejections == []
    assert len(server.requests) == 4


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_auth_failure_is_one_clear_line(kind: str, workspace: Path, tmp_path: Path) -> None:
    with fake_server(kind, [HttpError(401, "auth", "invalid x-api-key")]) as server:
        proc = run_cli(["-p", "hi"], workspace, cli_env(kind, server.url, tmp_path / "home"))
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert ("ANTHROPIC_API_KEY" if kind == "anthropic" else "OPENAI_API_KEY") in proc.stderr
    assert len(server.requests) == 1
