"""MCP servers end to end: a real stdio server written with the SDK's server API, the real CLI, the fake Anthropic server.

The model calls ``mcp__demo__<tool>``; the result reaches the next request; a
deny rule holds; a server that dies mid-session is reported in one line, its
tools are withdrawn and the session goes on; an untrusted ``.mcp.json`` starts
nothing; ``--mcp-config`` (a file or a JSON string) and ``--strict-mcp-config``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.support import cli_env, fake_server, run_cli
from tests.fakes.script import Call, Reply

pytestmark = pytest.mark.slow

DEMO = Path(__file__).with_name("mcp_demo_server.py")
SECRET = "tok-9f2c-very-secret-7d1"


def demo_server(**extra: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(DEMO)], **extra}


def mcp_json(ws: Path, servers: dict[str, Any]) -> None:
    (ws / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))


def tool_results(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for m in request["messages"] if m["role"] == "user" and isinstance(m["content"], list) for b in m["content"] if b.get("type") == "tool_result"]


def text_of(result: dict[str, Any]) -> str:
    content = result.get("content", "")
    return content if isinstance(content, str) else "".join(block.get("text", "") for block in content)


def tool_names(request: dict[str, Any]) -> list[str]:
    return [tool["name"] for tool in request.get("tools", [])]


def run(tmp_path: Path, script: list[Reply], *flags: str, env: dict[str, str] | None = None) -> tuple[Any, list[dict[str, Any]], Path]:
    ws = tmp_path / "ws"
    with fake_server("anthropic", script) as server:
        environment = {**cli_env("anthropic", server.url, tmp_path / "home"), **(env or {})}
        proc = run_cli(["-p", "use the demo tools", "--output-format", "json", *flags], ws, environment)
        assert server.rejections == []
        requests = list(server.requests)
    return proc, requests, ws


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


def test_a_trusted_mcp_json_server_answers_and_its_crash_is_reported_while_the_session_goes_on(tmp_path: Path, ws: Path) -> None:
    mcp_json(ws, {"demo": demo_server(env={"DEMO_TOKEN": "${DEMO_TOKEN}"})})
    script = [
        Reply(text="Echo.", calls=(Call("mcp__demo__echo", json.dumps({"text": "hello"})),)),
        Reply(text="Token.", calls=(Call("mcp__demo__token"),)),
        Reply(text="Crash.", calls=(Call("mcp__demo__crash"),)),
        Reply(text="Again.", calls=(Call("mcp__demo__echo", json.dumps({"text": "still there?"})),)),
        Reply(text="Done."),
    ]
    proc, requests, _ = run(tmp_path, script, "--trust-workspace", "--allowed-tools", "mcp__demo", env={"DEMO_TOKEN": SECRET})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["result"] == "Done."
    echo = next(t for t in requests[0]["tools"] if t["name"] == "mcp__demo__echo")
    assert echo["input_schema"]["properties"]["text"]["type"] == "string" and echo["input_schema"]["type"] == "object"
    assert text_of(tool_results(requests[1])[-1]) == "echo: hello"
    assert text_of(tool_results(requests[2])[-1]) == "token length 24, ends with '7d1'"
    crashed = tool_results(requests[3])[-1]
    assert crashed.get("is_error") is True and "'demo' is not running" in text_of(crashed)
    assert not [name for name in tool_names(requests[3]) if name.startswith("mcp__")]
    assert "Unknown tool 'mcp__demo__echo'" in text_of(tool_results(requests[4])[-1])
    reported = [line for line in proc.stderr.splitlines() if "MCP server 'demo'" in line]
    assert len(reported) == 1 and "crashing on purpose" in reported[0]
    sessions = list((tmp_path / "home").rglob("session.jsonl"))
    assert sessions and all(SECRET not in path.read_text() for path in sessions)


def test_a_deny_rule_on_an_mcp_tool_holds_even_in_bypass_mode(tmp_path: Path, ws: Path) -> None:
    mcp_json(ws, {"demo": demo_server()})
    (ws / ".pseudoclaude").mkdir()
    (ws / ".pseudoclaude" / "settings.json").write_text(json.dumps({"permissions": {"deny": ["mcp__demo__echo"]}}))
    script = [
        Reply(text="Echo.", calls=(Call("mcp__demo__echo", json.dumps({"text": "x"})), Call("mcp__demo__big", json.dumps({"n": 3})))),
        Reply(text="Done."),
    ]
    proc, requests, _ = run(tmp_path, script, "--trust-workspace", "--dangerously-skip-permissions")
    assert proc.returncode == 0, proc.stderr
    denied, allowed = tool_results(requests[1])
    assert denied.get("is_error") is True and "mcp__demo__echo" in text_of(denied)
    assert text_of(allowed) == "line 1\nline 2\nline 3"


def test_headless_default_mode_asks_for_an_mcp_tool_and_names_the_rule(tmp_path: Path, ws: Path) -> None:
    mcp_json(ws, {"demo": demo_server()})
    proc, requests, _ = run(tmp_path, [Reply(calls=(Call("mcp__demo__echo", json.dumps({"text": "x"})),)), Reply(text="Done.")], "--trust-workspace")
    refused = tool_results(requests[1])[-1]
    assert refused.get("is_error") is True and "--allowed-tools 'mcp__demo__echo'" in text_of(refused)


def test_an_untrusted_mcp_json_server_does_not_start(tmp_path: Path, ws: Path) -> None:
    marker = ws / "server-started"
    mcp_json(ws, {"demo": {"command": "sh", "args": ["-c", f"touch {marker}; exec {sys.executable} {DEMO}"]}})
    proc, requests, _ = run(tmp_path, [Reply(text="Done.")])
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()
    assert not [name for name in tool_names(requests[0]) if name.startswith("mcp__")]
    assert "MCP servers" in proc.stderr and "not trusted" in proc.stderr


@pytest.mark.parametrize("as_file", [True, False])
def test_mcp_config_brings_a_server_and_strict_leaves_the_others_out(tmp_path: Path, ws: Path, as_file: bool) -> None:
    marker = ws / "other-started"
    mcp_json(ws, {"other": {"command": "sh", "args": ["-c", f"touch {marker}; exec {sys.executable} {DEMO}"]}})
    config = json.dumps({"mcpServers": {"demo": demo_server()}})
    if as_file:
        (tmp_path / "servers.json").write_text(config)
        config = str(tmp_path / "servers.json")
    script = [Reply(calls=(Call("mcp__demo__echo", json.dumps({"text": "flag"})),)), Reply(text="Done.")]
    proc, requests, _ = run(tmp_path, script, "--trust-workspace", "--mcp-config", config, "--strict-mcp-config", "--allowed-tools", "mcp__demo__*")
    assert proc.returncode == 0, proc.stderr
    assert text_of(tool_results(requests[1])[-1]) == "echo: flag"
    assert not marker.exists() and "mcp__other__echo" not in tool_names(requests[0])


def test_a_server_that_cannot_start_is_one_line_and_the_run_goes_on(tmp_path: Path, ws: Path) -> None:
    config = json.dumps(
        {"mcpServers": {"broken": {"command": str(tmp_path / "no-such-server")}, "unset": {"command": "x", "args": ["${PC_NOT_SET_ANYWHERE}"]}}}
    )
    proc, requests, _ = run(tmp_path, [Reply(text="Done.")], "--mcp-config", config)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "MCP server" in line]
    assert len(lines) == 2
    assert "no-such-server not found" in lines[0] and "PC_NOT_SET_ANYWHERE is not set" in lines[1]


def test_a_bad_mcp_config_is_one_line_and_exit_2(tmp_path: Path, ws: Path) -> None:
    proc = run_cli(["-p", "x", "--mcp-config", "{not json"], ws, cli_env("anthropic", "http://127.0.0.1:9", tmp_path / "home"))
    assert proc.returncode == 2 and "--mcp-config" in proc.stderr and "Traceback" not in proc.stderr


def test_an_mcp_tool_works_through_the_openai_wire_format_too(tmp_path: Path, ws: Path) -> None:
    config = json.dumps({"mcpServers": {"demo": demo_server()}})
    script = [Reply(calls=(Call("mcp__demo__echo", json.dumps({"text": "via openai"})),)), Reply(text="Done.")]
    with fake_server("openai", script) as server:
        env = cli_env("openai", server.url, tmp_path / "home")
        proc = run_cli(["-p", "echo", "--output-format", "json", "--mcp-config", config, "--allowed-tools", "mcp__demo__echo"], ws, env)
        assert server.rejections == []
        requests = list(server.requests)
    assert proc.returncode == 0, proc.stderr
    functions = {tool["function"]["name"]: tool["function"] for tool in requests[0]["tools"]}
    assert functions["mcp__demo__echo"]["parameters"]["type"] == "object"
    tool_messages = [m for m in requests[1]["messages"] if m["role"] == "tool"]
    assert tool_messages[-1]["content"] == "echo: via openai"
