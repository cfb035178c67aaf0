"""The MCP client's parts: declarations and names, trust of .mcp.json, rules by name, the HTTP transport, /mcp."""

from __future__ import annotations

import asyncio
import io
import json
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

import pytest
from rich.console import Console

from pseudoclaude.config import Flags, load_settings, trusted_settings_files
from pseudoclaude.mcp_client import McpServers, expand, input_schema, server_specs, tool_name
from pseudoclaude.tools import ToolContext, ToolOutput, ToolTraits
from pseudoclaude.tools.permissions import PermissionMode, PermissionPolicy, Rules
from pseudoclaude.trust import TrustStore
from pseudoclaude.tui.repl import Repl
from pseudoclaude.tui.slash import dispatch

DEMO = Path(__file__).with_name("mcp_demo_server.py")
ENV = {"ANTHROPIC_API_KEY": "k"}


def test_tool_names_are_claude_codes_and_safe_for_both_providers() -> None:
    assert tool_name("demo", "echo") == "mcp__demo__echo"
    assert tool_name("my server.v2", "get/item") == "mcp__my_server_v2__get_item"
    long = tool_name("s" * 40, "t" * 40)
    assert len(long) == 64 and long.startswith("mcp__ssss") and long != tool_name("s" * 40, "t" * 41)


def test_schemas_become_plain_object_schemas() -> None:
    assert input_schema({"$schema": "x", "anyOf": [{}], "properties": {"a": {"type": "string"}}, "required": ["a"]}) == {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "required": ["a"],
    }
    assert input_schema(None) == {"type": "object", "properties": {}}


def test_variables_expand_with_defaults_and_an_unset_one_is_the_servers_problem() -> None:
    assert expand("${A}-${B:-two}-${C:-}", {"A": "one"}) == "one-two-"
    specs = server_specs(
        {
            "ok": ("here", {"command": "run", "args": ["--token=${T}"], "env": {"K": "${T}"}}),
            "unset": ("here", {"url": "https://${HOST}/mcp"}),
            "odd": ("here", {"type": "websocket", "url": "ws://x"}),
            "args": ("here", {"command": "x", "args": "not a list"}),
        },
        {"T": "secret"},
    )
    assert specs[0].args == ("--token=secret",) and specs[0].env == {"K": "secret"}
    assert [s.problem for s in specs[1:]] == [
        "the environment variable HOST is not set (used as ${HOST})",
        "unknown server type 'websocket': use stdio, http or sse",
        "`args` must be a list of strings",
    ]
    assert specs[0].target == "run --token=${T}" and specs[1].target == "https://${HOST}/mcp"


def write_mcp_json(ws: Path, servers: Mapping[str, Any]) -> None:
    ws.mkdir(exist_ok=True)
    (ws / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))


def test_mcp_json_servers_wait_for_the_users_consent_and_an_edit_asks_again(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    write_mcp_json(ws, {"demo": {"command": "node", "args": ["server.js"]}})
    environ = {**ENV, "PSEUDOCLAUDE_HOME": str(home)}
    settings = load_settings(ws, Flags(), environ=environ)
    assert settings.mcp_servers == {}
    assert [entry.describe() for entry in settings.trust.pending] == ["starts the MCP server 'demo': runs node server.js  (.mcp.json)"]
    assert "MCP servers" in (settings.trust.ignored_notice() or "")
    TrustStore(home).record(ws.resolve(), settings.trust.pending, trusted=True)
    assert list(load_settings(ws, Flags(), environ=environ).mcp_servers) == ["demo"]
    write_mcp_json(ws, {"demo": {"command": "node", "args": ["other.js"]}})
    _, trust = trusted_settings_files(ws, home)
    assert [entry.value for entry in trust.pending] == ["demo"]


def test_the_user_settings_and_the_flag_declare_servers_the_flag_winning(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"mcpServers": {"a": {"command": "one"}, "b": {"command": "two"}}}))
    flag = json.dumps({"mcpServers": {"b": {"command": "three"}}})
    settings = load_settings(tmp_path, Flags(mcp_config=(flag,)), environ={**ENV, "PSEUDOCLAUDE_HOME": str(home)})
    assert {name: (source, raw["command"]) for name, (source, raw) in settings.mcp_servers.items()} == {
        "a": ("user settings", "one"),
        "b": ("--mcp-config", "three"),
    }
    strict = load_settings(tmp_path, Flags(mcp_config=(flag,), strict_mcp_config=True), environ={**ENV, "PSEUDOCLAUDE_HOME": str(home)})
    assert list(strict.mcp_servers) == ["b"]


@dataclass
class Remote:
    name: str
    description: str = "a remote tool"
    input_schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    traits: ToolTraits = ToolTraits(kind="write", clearable=True)

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        return ToolOutput("ran")


@pytest.mark.parametrize(
    ("rule", "tool", "allowed"),
    [
        ("mcp__demo", "mcp__demo__echo", True),
        ("mcp__demo__*", "mcp__demo__echo", True),
        ("mcp__demo__echo", "mcp__demo__echo", True),
        ("mcp__demo__echo", "mcp__demo__echo2", False),
        ("mcp__demo", "mcp__demo2__echo", False),
        ("mcp__dem*", "mcp__demo2__echo", True),
        ("read*", "read_file", False),
    ],
)
def test_rules_name_mcp_tools_as_claude_code_does(tmp_path: Path, rule: str, tool: str, allowed: bool) -> None:
    policy = PermissionPolicy(mode=PermissionMode.DEFAULT, workspace=tmp_path, rules=Rules.from_settings({"permissions": {"allow": [rule]}}))
    assert asyncio.run(policy.check(Remote(tool), {})).allowed is allowed


def test_mcp_tools_are_refused_in_plan_mode(tmp_path: Path) -> None:
    policy = PermissionPolicy(mode=PermissionMode.PLAN, workspace=tmp_path)
    assert asyncio.run(policy.check(Remote("mcp__demo__echo"), {})).source == "plan"


@pytest.fixture
def http_server(processes: list[subprocess.Popen[Any]]) -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    processes.append(subprocess.Popen([sys.executable, str(DEMO), "--http", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        with socket.socket() as client:
            if client.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.1)
    yield f"http://127.0.0.1:{port}/mcp"


@pytest.mark.slow
def test_a_streamable_http_server_serves_its_tools(http_server: str, tmp_path: Path) -> None:
    async def go() -> tuple[list[str], str, list[str]]:
        servers = McpServers(server_specs({"web": ("test", {"type": "http", "url": http_server, "headers": {"X-Demo": "1"}})}, {}), tmp_path)
        try:
            await servers.start()
            tools = {tool.name: tool for tool in servers.tools()}
            out = await tools["mcp__web__echo"].run({"text": "over http"}, ToolContext(workspace=tmp_path))
            return sorted(tools), out.content, servers.take_notices()
        finally:
            await servers.aclose()

    names, text, notices = asyncio.run(go())
    assert names == [
        "list_mcp_resources",
        "mcp__web__ask",
        "mcp__web__big",
        "mcp__web__crash",
        "mcp__web__echo",
        "mcp__web__env_var",
        "mcp__web__exit_soon",
        "mcp__web__picture",
        "mcp__web__roots",
        "mcp__web__snapshot",
        "mcp__web__token",
        "read_mcp_resource",
    ]
    assert text == "echo: over http" and notices == []


@pytest.mark.slow
def test_slash_mcp_lists_servers_their_state_and_tools(tmp_path: Path) -> None:
    config = json.dumps({"mcpServers": {"demo": {"command": sys.executable, "args": [str(DEMO)]}, "gone": {"command": str(tmp_path / "nothing")}}})
    settings = load_settings(tmp_path, Flags(mcp_config=(config,)), environ={**ENV, "PSEUDOCLAUDE_HOME": str(tmp_path / "home")})
    repl = Repl(settings, Console(file=io.StringIO(), width=200, color_system=None))

    async def go() -> None:
        try:
            await dispatch(repl, "/mcp")
        finally:
            await repl.close_agent()

    asyncio.run(go())
    shown = repl.console.file.getvalue()  # type: ignore[attr-defined]
    assert "demo ready  stdio · --mcp-config" in shown
    assert "mcp__demo__echo, mcp__demo__token, mcp__demo__big, mcp__demo__picture, mcp__demo__snapshot" in shown
    assert "gone failed" in shown and "nothing not found" in shown
    assert shown.count("MCP server 'gone'") == 1


def test_hook_matchers_select_mcp_tools_by_name() -> None:
    from pseudoclaude.agent import HookConfig

    hooks = {"PreToolUse": [{"matcher": "mcp__demo__.*", "hooks": [{"type": "command", "command": "./guard.sh"}]}]}
    config = HookConfig.from_settings({"hooks": hooks})
    assert [c.command for c in config.commands("PreToolUse", "mcp__demo__echo")] == ["./guard.sh"]
    assert config.commands("PreToolUse", "mcp__other__echo") == ()


@pytest.mark.slow
def test_a_server_that_dies_between_turns_is_reported_before_the_next_request(tmp_path: Path) -> None:
    from pseudoclaude.agent import Progress, build_agent
    from tests.e2e.support import KEYS, fake_server
    from tests.fakes.script import Call, Reply

    config = json.dumps({"mcpServers": {"demo": {"command": sys.executable, "args": [str(DEMO)]}}})
    script = [Reply(calls=(Call("mcp__demo__exit_soon"),)), Reply(text="It said bye."), Reply(text="Fine without it.")]
    with fake_server("anthropic", script) as server:
        environ = {"ANTHROPIC_API_KEY": KEYS["anthropic"], "ANTHROPIC_BASE_URL": server.url, "PSEUDOCLAUDE_HOME": str(tmp_path / "home")}
        flags = Flags(model="claude-sonnet-4-6", mcp_config=(config,), allowed_tools=("mcp__demo",))
        agent = build_agent(load_settings(tmp_path, flags, environ=environ))

        async def go() -> list[str]:
            try:
                [event async for event in agent.run("say bye")]
                await asyncio.sleep(1.0)
                return [e.message for e in [event async for event in agent.run("and now?")] if isinstance(e, Progress) and e.kind == "warning"]
            finally:
                await agent.aclose()

        warnings = asyncio.run(go())
        requests = list(server.requests)
    assert len(warnings) == 1 and "MCP server 'demo'" in warnings[0] and "exited" in warnings[0]
    assert "mcp__demo__exit_soon" in tool_names_of(requests[0]) and not [n for n in tool_names_of(requests[2]) if n.startswith("mcp__")]


def tool_names_of(request: Mapping[str, Any]) -> list[str]:
    return [tool["name"] for tool in request.get("tools", [])]


def run_demo(tool: str, calls: list[Mapping[str, Any]], tmp_path: Path, *, vision: bool = True) -> list[ToolOutput]:
    """Calls of one demo tool over stdio."""

    async def go() -> list[ToolOutput]:
        servers = McpServers(server_specs({"demo": ("test", {"command": sys.executable, "args": [str(DEMO)]})}, {}), tmp_path)
        try:
            await servers.start()
            tools = {t.name: t for t in servers.tools()}
            return [await tools[f"mcp__demo__{tool}"].run(args, ToolContext(workspace=tmp_path).at(vision=vision)) for args in calls]
        finally:
            await servers.aclose()

    return asyncio.run(go())


@pytest.mark.slow
def test_an_mcp_image_reaches_the_model_as_an_image_and_bad_data_as_a_note(tmp_path: Path) -> None:
    out, broken, many = run_demo("picture", [{"width": 64, "height": 48}, {"broken": True}, {"count": 9}], tmp_path)
    [image] = out.images
    assert (image.media_type, image.width, image.height, image.name) == ("image/png", 64, 48, "demo/picture image")
    assert out.content == f"a 64x48 picture\n[image {image.describe()}]" and not out.is_error
    assert broken.images == () and broken.content == "a 64x48 picture\n[demo/picture image (image/png) could not be used: not a PNG, JPEG, GIF or WebP image]"
    assert len(many.images) == 8 and many.content.endswith("\n[demo/picture image 9: not sent, a result may carry at most 8 images]")


@pytest.mark.slow
def test_an_mcp_image_is_a_note_for_a_model_without_vision(tmp_path: Path) -> None:
    [out] = run_demo("picture", [{"width": 20, "height": 10}], tmp_path, vision=False)
    assert out.images == () and "20x10 PNG" in out.content and "the current model cannot see images" in out.content
