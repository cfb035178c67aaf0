"""The sandbox in the status line and in ``/status``: read from the agent's ``AgentStatus``, never from its internals.

The agent is built at its seams (a scripted provider, a real session, a fake
``CommandSandbox`` in its ``ToolContext``); renders go to fixed-width consoles.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest
from rich.console import Console

from pseudoclaude.agent import Agent, AgentStatus, RunConfig, Runner
from pseudoclaude.config import Flags, load_settings
from pseudoclaude.sandbox import CommandSandbox, SandboxStatus
from pseudoclaude.session import create_session
from pseudoclaude.tools import ToolContext
from pseudoclaude.tools.permissions import PermissionPolicy
from pseudoclaude.tui.repl import Repl
from pseudoclaude.tui.slash import dispatch
from pseudoclaude.tui.status import status_fragments
from tests.fakes.sandbox import BUBBLEWRAP, FakeSandbox
from tests.fakes.scripted import ScriptedProvider


def agent_with(sandbox: CommandSandbox | None, tmp_path: Path) -> Agent:
    workspace = tmp_path / "ws"
    workspace.mkdir(parents=True, exist_ok=True)
    session = create_session(tmp_path / "sessions", workspace, model="scripted-model", provider="scripted")
    runner = Runner(
        provider=ScriptedProvider([]),
        tools=[],
        tool_context=ToolContext(workspace=workspace, sandbox=sandbox),
        config=RunConfig(model="scripted-model", system="You help."),
        session=session,
    )
    return Agent(runner=runner, session=session, policy=PermissionPolicy(mode="default", workspace=workspace))


def repl_with(agent: Agent | None, tmp_path: Path) -> Repl:
    settings = load_settings(tmp_path, Flags(), environ={"ANTHROPIC_API_KEY": "k", "PSEUDOCLAUDE_HOME": str(tmp_path / "home")})
    repl = Repl(settings, Console(file=io.StringIO(), width=120, color_system=None))
    repl.agent = agent
    repl.refresh_status()
    return repl


def toolbar(info: AgentStatus, width: int) -> tuple[str, list[tuple[str, str]]]:
    fragments = status_fragments(info, width)
    return "".join(text for _, text in fragments).split("\n")[0], fragments


def test_the_agent_hands_the_sandbox_status_of_its_tool_context(tmp_path: Path) -> None:
    confined, unconfined = agent_with(FakeSandbox(), tmp_path / "a"), agent_with(None, tmp_path / "b")
    try:
        assert confined.status().sandbox == BUBBLEWRAP and confined.status().sandbox_known
        assert unconfined.status().sandbox is None and unconfined.status().sandbox_known
    finally:
        asyncio.run(confined.aclose())
        asyncio.run(unconfined.aclose())


def test_the_status_line_names_kind_mode_and_network(tmp_path: Path) -> None:
    agent = agent_with(FakeSandbox(), tmp_path)
    try:
        line, fragments = toolbar(agent.status(), 125)
    finally:
        asyncio.run(agent.aclose())
    assert line == " ⏵⏵ default mode · asks before edits and commands (shift+tab to cycle) · sandbox: bubblewrap · workspace-write · network off"
    assert ("ansigreen", " · sandbox: bubblewrap · workspace-write · network off") in fragments


def test_no_sandbox_is_said_in_the_warning_colour_and_survives_a_narrow_terminal(tmp_path: Path) -> None:
    agent = agent_with(None, tmp_path)
    try:
        info = agent.status()
    finally:
        asyncio.run(agent.aclose())
    wide, fragments = toolbar(info, 125)
    assert wide.endswith("(shift+tab to cycle) · no sandbox") and ("bold ansiyellow", " · no sandbox") in fragments
    assert toolbar(info, 30)[0] == " ⏵⏵ default mode · no sandbox"
    assert toolbar(info, 20)[0].endswith("no sandbox")


def test_a_narrow_terminal_drops_the_hints_then_the_sandboxs_kind_and_network(tmp_path: Path) -> None:
    agent = agent_with(FakeSandbox(), tmp_path)
    try:
        info = agent.status()
    finally:
        asyncio.run(agent.aclose())
    assert toolbar(info, 110)[0] == " ⏵⏵ default mode (shift+tab to cycle) · sandbox: bubblewrap · workspace-write · network off"
    assert toolbar(info, 80)[0] == " ⏵⏵ default mode · sandbox: bubblewrap · workspace-write · network off"
    assert toolbar(info, 50)[0] == " ⏵⏵ default mode · sandbox: workspace-write"


@pytest.mark.parametrize(
    ("status", "shown"),
    [
        (SandboxStatus("bubblewrap", "read-only", "allowed", True), "sandbox: bubblewrap · read-only · allowed domains only"),
        (SandboxStatus("seatbelt", "workspace-write", "all", True), "sandbox: seatbelt · workspace-write · network on"),
        (SandboxStatus("bubblewrap", "workspace-write", "off", False, "bwrap cannot create a user namespace"), "no sandbox"),
        (SandboxStatus("none", "off", "all", True), "no sandbox"),
    ],
)
def test_every_kind_of_sandbox_reads_as_what_it_does(status: SandboxStatus, shown: str, tmp_path: Path) -> None:
    agent = agent_with(FakeSandbox(status), tmp_path)
    try:
        assert toolbar(agent.status(), 200)[0].endswith(f" · {shown}")
    finally:
        asyncio.run(agent.aclose())


def test_before_a_session_exists_the_status_line_claims_nothing(tmp_path: Path) -> None:
    repl = repl_with(None, tmp_path)
    assert "sandbox" not in toolbar(repl.status, 200)[0]


def test_slash_status_shows_the_sandbox_and_what_it_confines(tmp_path: Path) -> None:
    repl = repl_with(agent_with(FakeSandbox(), tmp_path), tmp_path)
    asyncio.run(dispatch(repl, "/status"))
    assert repl.agent is not None
    asyncio.run(repl.agent.aclose())
    row = next(line for line in repl.console.file.getvalue().splitlines() if line.startswith("sandbox"))  # type: ignore[attr-defined]
    assert row.split() == "sandbox bubblewrap · workspace-write · network off the workspace and /tmp are writable".split()


def test_slash_status_without_a_sandbox_says_commands_run_unconfined(tmp_path: Path) -> None:
    repl = repl_with(agent_with(None, tmp_path), tmp_path)
    asyncio.run(dispatch(repl, "/status"))
    assert repl.agent is not None
    asyncio.run(repl.agent.aclose())
    row = next(line for line in repl.console.file.getvalue().splitlines() if line.startswith("sandbox"))  # type: ignore[attr-defined]
    assert row.split() == "sandbox no sandbox commands run unconfined, as you could run them".split()


def test_slash_status_in_colour_shows_no_sandbox_in_the_warning_colour(tmp_path: Path) -> None:
    repl = repl_with(agent_with(None, tmp_path), tmp_path)
    repl.console = Console(file=io.StringIO(), width=120, color_system="standard", force_terminal=True)
    asyncio.run(dispatch(repl, "/status"))
    assert repl.agent is not None
    asyncio.run(repl.agent.aclose())
    assert "\x1b[1;33mno sandbox" in repl.console.file.getvalue()  # type: ignore[attr-defined]
