"""MCP as Claude Code runs it, end to end: the real CLI, the real demo server over stdio, the fake Anthropic server.

The server inherits the user's environment; its resources are listed and read
(by the model's tool calls and by an ``@demo:uri`` mention); its prompt runs
as ``/mcp__demo__greet``; ``roots/list`` answers with the workspace; an
elicitation is declined headless; a screenshot with ``structuredContent`` is
sent once; a PNG with a bad ancillary CRC reaches the model.
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
CONFIG = json.dumps({"mcpServers": {"demo": {"command": sys.executable, "args": [str(DEMO)], "env": {"DEMO_TOKEN": "${PC_DEMO_SOURCE}"}}}})


def run(tmp_path: Path, script: list[Reply], prompt: str = "use the demo server", env: dict[str, str] | None = None) -> tuple[Any, list[dict[str, Any]], Path]:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    with fake_server("anthropic", script) as server:
        environment = {**cli_env("anthropic", server.url, tmp_path / "home"), "PC_DEMO_SOURCE": "from-env-entry", **(env or {})}
        args = ["-p", prompt, "--output-format", "json", "--mcp-config", CONFIG, "--allowed-tools", "mcp__demo"]
        proc = run_cli(args, ws, environment)
        assert server.rejections == []
        requests = list(server.requests)
    return proc, requests, ws


def tool_results(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for m in request["messages"] if m["role"] == "user" and isinstance(m["content"], list) for b in m["content"] if b.get("type") == "tool_result"]


def text_of(block: dict[str, Any]) -> str:
    content = block.get("content", "")
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


def images_of(block: dict[str, Any]) -> list[dict[str, Any]]:
    content = block.get("content", "")
    return [part for part in content if part.get("type") == "image"] if isinstance(content, list) else []


def first_user_text(request: dict[str, Any]) -> str:
    content = request["messages"][0]["content"]
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content if part.get("type") == "text")


SHARED_ENV = {"PC_USERS_OWN": "proxy.example:3128", "DEMO_TOKEN": "overridden by the env entry"}
SHARED_SCRIPT = [
    Reply(calls=(Call("mcp__demo__env_var", json.dumps({"name": "PC_USERS_OWN"})), Call("mcp__demo__env_var", json.dumps({"name": "DEMO_TOKEN"})))),
    Reply(calls=(Call("list_mcp_resources"),)),
    Reply(
        calls=(
            Call("read_mcp_resource", json.dumps({"server": "demo", "uri": "demo://notes/today"})),
            Call("read_mcp_resource", json.dumps({"server": "demo", "uri": "demo://pixel.png"})),
        )
    ),
    Reply(calls=(Call("read_mcp_resource", json.dumps({"server": "nowhere", "uri": "x://y"})),)),
    Reply(calls=(Call("mcp__demo__roots"),)),
    Reply(calls=(Call("mcp__demo__ask"),)),
    Reply(calls=(Call("mcp__demo__snapshot"), Call("mcp__demo__picture", json.dumps({"bad_crc": True})))),
    Reply(text="Done."),
]


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, list[dict[str, Any]], Path]:
    """One CLI run whose steps the tests below read (each step's results are in the next request): a run costs seconds."""
    proc, requests, ws = run(tmp_path_factory.mktemp("shared"), SHARED_SCRIPT, env=SHARED_ENV)
    assert proc.returncode == 0, proc.stderr
    assert len(requests) == len(SHARED_SCRIPT)
    return proc, requests, ws


def test_a_stdio_server_inherits_the_users_environment_below_its_env_entry(shared: tuple[Any, list[dict[str, Any]], Path]) -> None:
    _, requests, _ = shared
    own, entry = tool_results(requests[1])[-2:]
    assert text_of(own) == "PC_USERS_OWN=proxy.example:3128"
    assert text_of(entry) == "DEMO_TOKEN=from-env-entry"


def test_resources_are_listed_and_read_by_the_models_tool_calls(shared: tuple[Any, list[dict[str, Any]], Path]) -> None:
    _, requests, _ = shared
    names = [tool["name"] for tool in requests[0]["tools"]]
    assert "list_mcp_resources" in names and "read_mcp_resource" in names
    listed = json.loads(text_of(tool_results(requests[2])[-1]))
    assert {"server": "demo", "uri": "demo://notes/today", "name": "today", "mimeType": "text/plain", "description": "Today's notes"} in listed
    notes, pixel = tool_results(requests[3])[-2:]
    assert text_of(notes) == "Notes for today: ship the MCP resources."
    assert [image["source"]["media_type"] for image in images_of(pixel)] == ["image/png"]
    unknown = tool_results(requests[4])[-1]
    assert unknown.get("is_error") is True and "no connected MCP server 'nowhere' offers resources" in text_of(unknown)


def test_an_at_mention_of_a_resource_attaches_its_content_to_the_prompt(tmp_path: Path) -> None:
    proc, requests, _ = run(tmp_path, [Reply(text="Done.")], prompt="summarize @demo:demo://notes/today please")
    assert proc.returncode == 0, proc.stderr
    sent = first_user_text(requests[0])
    assert sent.startswith("summarize @demo:demo://notes/today please")
    assert '<mcp-resource server="demo" uri="demo://notes/today">\nNotes for today: ship the MCP resources.\n</mcp-resource>' in sent


def test_a_server_prompt_runs_as_a_slash_command_with_its_argument(tmp_path: Path) -> None:
    proc, requests, _ = run(tmp_path, [Reply(text="Hello, Ann!")], prompt="/mcp__demo__greet Ann")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["result"] == "Hello, Ann!"
    assert first_user_text(requests[0]) == "Please greet Ann in a plain way, in one sentence."


def test_a_server_prompt_without_its_required_argument_is_refused_and_nothing_is_sent(tmp_path: Path) -> None:
    proc, requests, _ = run(tmp_path, [Reply(text="never")], prompt="/mcp__demo__greet")
    assert proc.returncode != 0
    assert requests == []
    assert "missing name: use /mcp__demo__greet <name> [style]" in proc.stdout + proc.stderr


def test_roots_list_is_answered_with_the_workspace_and_elicitation_is_declined_headless(shared: tuple[Any, list[dict[str, Any]], Path]) -> None:
    proc, requests, ws = shared
    assert text_of(tool_results(requests[5])[-1]) == f"root {ws.resolve().as_uri()} (ws)"
    assert text_of(tool_results(requests[6])[-1]) == "elicitation: decline"
    declined = [line for line in proc.stderr.splitlines() if "asked for input" in line]
    assert len(declined) == 1 and "MCP server 'demo'" in declined[0] and "declined: no one can answer in a headless run" in declined[0]


def test_an_image_with_structured_content_is_sent_once_and_a_bad_ancillary_crc_png_is_accepted(shared: tuple[Any, list[dict[str, Any]], Path]) -> None:
    _, requests, _ = shared
    snapshot, picture = tool_results(requests[7])[-2:]
    assert len(images_of(snapshot)) == 1
    image_data = images_of(snapshot)[0]["source"]["data"]
    assert len(json.dumps(requests[7])) - len(json.dumps(requests[6])) < 2 * len(image_data) + 20_000, "the screenshot is sent once, not twice"
    assert image_data[:200] not in text_of(snapshot)
    assert len(images_of(picture)) == 1 and "could not be used" not in text_of(picture)


def test_no_resource_tools_without_a_server_offering_resources(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    config = json.dumps({"mcpServers": {"broken": {"command": str(tmp_path / "no-such-server")}}})
    with fake_server("anthropic", [Reply(text="Done.")]) as server:
        proc = run_cli(["-p", "hi", "--mcp-config", config], ws, cli_env("anthropic", server.url, tmp_path / "home"))
        requests = list(server.requests)
    assert proc.returncode == 0, proc.stderr
    assert not {"list_mcp_resources", "read_mcp_resource"} & {tool["name"] for tool in requests[0]["tools"]}
