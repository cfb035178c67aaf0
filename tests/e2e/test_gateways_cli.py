"""The real CLI through a gateway: Claude Code's ANTHROPIC_AUTH_TOKEN and ANTHROPIC_CUSTOM_HEADERS, and an
OpenAI reasoning model behind OPENAI_BASE_URL, against the strict fakes.

The Anthropic fake plays a gateway (LiteLLM, a corporate proxy): it takes only
its own token and refuses a request without its routing header, so a run that
answers shows both arrived; the OpenAI fake refuses ``max_tokens`` for a
reasoning model as OpenAI does. An effort the route cannot carry is said in
one line on stderr.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.support import KEYS, cli_env, fake_server, run_cli
from tests.fakes.openai_server import RESPONSES_PATH
from tests.fakes.script import Call, Reply

pytestmark = pytest.mark.slow

TOKEN = "gw-virtual-key-5f2c9e"
HEADERS = "X-Team: team-core-7f3a\nX-Route: eu-west"
GATEWAY: dict[str, Any] = {"credentials": frozenset({TOKEN}), "required_headers": {"X-Team": "team-core-7f3a", "X-Route": "eu-west"}}


def gateway_env(url: str, home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in cli_env("anthropic", url, home).items() if k != "ANTHROPIC_API_KEY"}
    return {**env, "ANTHROPIC_AUTH_TOKEN": TOKEN, "ANTHROPIC_CUSTOM_HEADERS": HEADERS, **extra}


def test_a_gateway_token_is_sent_as_bearer_with_the_custom_headers_and_no_api_key(tmp_path: Path) -> None:
    with fake_server("anthropic", [Reply(text="through the gateway")], **GATEWAY) as server:
        proc = run_cli(["-p", "hello", "--output-format", "json"], tmp_path, gateway_env(server.url, tmp_path / "home"))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["result"] == "through the gateway"
    assert server.rejections == [] and len(server.headers) == 1
    sent = server.headers[0]
    assert sent["authorization"] == f"Bearer {TOKEN}" and "x-api-key" not in sent
    assert (sent["x-team"], sent["x-route"]) == ("team-core-7f3a", "eu-west")


def test_with_a_key_and_a_token_only_the_token_reaches_the_gateway(tmp_path: Path) -> None:
    key = KEYS["anthropic"]
    with fake_server("anthropic", [Reply(text="ok")], **GATEWAY) as server:
        proc = run_cli(["-p", "hello"], tmp_path, gateway_env(server.url, tmp_path / "home", ANTHROPIC_API_KEY=key))
    assert proc.returncode == 0, proc.stderr
    assert server.headers[0]["authorization"] == f"Bearer {TOKEN}"
    assert key not in json.dumps(server.headers)


def test_the_models_commands_get_neither_the_token_nor_the_headers(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    script = [Reply(calls=(Call("run_command", json.dumps({"command": "env"})),)), Reply(text="done")]
    with fake_server("anthropic", script, **GATEWAY) as server:
        proc = run_cli(["-p", "look", "--permission-mode", "bypass"], ws, gateway_env(server.url, tmp_path / "home"))
    assert proc.returncode == 0, proc.stderr
    results = [
        block for message in server.requests[1]["messages"] for block in message["content"] if isinstance(block, dict) and block.get("type") == "tool_result"
    ]
    shown = json.dumps(results)
    assert "PATH=" in shown
    assert TOKEN not in shown and "team-core-7f3a" not in shown and "ANTHROPIC_CUSTOM_HEADERS" not in shown


def test_a_malformed_custom_header_line_is_one_line_exit_2_and_no_request(tmp_path: Path) -> None:
    with fake_server("anthropic", [Reply(text="never")], **GATEWAY) as server:
        proc = run_cli(["-p", "hello"], tmp_path, gateway_env(server.url, tmp_path / "home", ANTHROPIC_CUSTOM_HEADERS="X-Team: a\nBearer x"))
        assert server.requests == []
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2, proc.stderr
    assert len(lines) == 1 and "ANTHROPIC_CUSTOM_HEADERS line 2" in lines[0], proc.stderr


def openai_env(url: str, home: Path, model: str, **extra: str) -> dict[str, str]:
    return {**cli_env("openai", url, home), "PSEUDOCLAUDE_MODEL": model, **extra}


def notices(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "effort" in line]


def test_gpt_5_behind_a_base_url_gets_reasoning_effort_and_max_completion_tokens_said_once(tmp_path: Path) -> None:
    script = [Reply(calls=(Call("read_file", json.dumps({"path": "a.txt"})),)), Reply(text="read it")]
    (tmp_path / "a.txt").write_text("alpha\n")
    with fake_server("openai", script) as server:
        proc = run_cli(["-p", "read a.txt", "--effort", "high", "--permission-mode", "bypass"], tmp_path, openai_env(server.url, tmp_path / "home", "gpt-5"))
    assert proc.returncode == 0, proc.stderr
    assert server.rejections == [] and set(server.paths) == {"/v1/chat/completions"} and len(server.requests) == 2
    assert all(body["reasoning_effort"] == "high" and "max_tokens" not in body and body["max_completion_tokens"] > 32_768 for body in server.requests)
    said = notices(proc.stderr)
    assert len(said) == 1 and said[0].startswith(f"pseudoclaude: gpt-5: the server at {server.url} gets effort high as Chat Completions' reasoning_effort"), (
        proc.stderr
    )


def test_effort_max_where_high_is_the_most_is_said_once_and_sent_as_high(tmp_path: Path) -> None:
    env = openai_env("", tmp_path / "home", "gpt-5", PSEUDOCLAUDE_OPENAI_API="responses")
    with fake_server("openai", [Reply(text="ok")]) as server:
        proc = run_cli(["-p", "hi", "--effort", "max"], tmp_path, {**env, "OPENAI_BASE_URL": server.url})
    assert proc.returncode == 0, proc.stderr
    assert server.paths == [RESPONSES_PATH] and server.requests[0]["reasoning"]["effort"] == "high"
    assert notices(proc.stderr) == ["pseudoclaude: gpt-5: effort max is sent as high, the most gpt-5 takes"], proc.stderr


def test_an_effort_on_a_model_without_reasoning_is_said_once_and_not_sent(tmp_path: Path) -> None:
    with fake_server("openai", [Reply(text="ok")]) as server:
        proc = run_cli(["-p", "hi", "--effort", "high"], tmp_path, openai_env(server.url, tmp_path / "home", "gpt-4.1"))
    assert proc.returncode == 0, proc.stderr
    assert "reasoning_effort" not in server.requests[0] and server.rejections == []
    assert notices(proc.stderr) == ["pseudoclaude: gpt-4.1 does not take an effort setting: effort high is ignored"], proc.stderr
