"""A tool defined only here, in its own file, is handled everywhere as it declares.

Nothing outside this file names these tools: permissions, plan mode, display,
hook matching, rule aliases and cold-cache clearing all follow from their
``ToolTraits``, through the session's ``ToolRegistry``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from pseudoclaude.agent.hooks.config import HookConfig
from pseudoclaude.compact import ContextState, manage_context
from pseudoclaude.compact.clear import CLEARED_RESULT, COLD_CACHE_SECONDS, KEEP_RECENT_TOOL_RESULTS
from pseudoclaude.llm.messages import Message, ToolCall
from pseudoclaude.tools import Tool, ToolContext, ToolOutput, ToolRegistry, ToolTraits, default_tools
from pseudoclaude.tools.permissions import Decision, PermissionMode, PermissionPolicy, Rules
from pseudoclaude.tui.toolview import key_argument
from tests.compact.support import SummaryProvider
from tests.tools.builtins import plan_mode_tools

WORKSPACE = Path("/home/u/proj")
HOME = Path("/home/u")


@dataclass(frozen=True)
class FetchTool:
    """Observes the network: read-only, clearable, Claude Code's ``WebSearch``."""

    name: str = "fetch"
    description: str = "Fetch a URL."
    traits: ToolTraits = ToolTraits(kind="read", clearable=True, claude_names=("WebSearch",), key_argument="url")

    @property
    def input_schema(self) -> Mapping[str, Any]:
        return {"type": "object", "properties": {"url": {"type": "string"}, "timeout": {"type": "number"}}}

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        return ToolOutput("fetched")


@dataclass(frozen=True)
class PatchTool:
    """Edits the file named by ``target``; Claude Code would call it ``ApplyPatch``."""

    name: str = "patch"
    description: str = "Apply a patch."
    traits: ToolTraits = ToolTraits(kind="edit", clearable=True, claude_names=("ApplyPatch",), key_argument="target", path_arguments=("target",))

    @property
    def input_schema(self) -> Mapping[str, Any]:
        return {"type": "object", "properties": {"target": {"type": "string"}, "diff": {"type": "string"}}}

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        return ToolOutput("patched")


@dataclass(frozen=True)
class NoteTool:
    """Keeps a note for the session: read-only, but its result is state and never cleared."""

    name: str = "note"
    description: str = "Keep a note."
    traits: ToolTraits = ToolTraits(kind="read", clearable=False, key_argument="text")

    @property
    def input_schema(self) -> Mapping[str, Any]:
        return {"type": "object", "properties": {"text": {"type": "string"}}}

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        return ToolOutput("noted")


def registry() -> ToolRegistry:
    return ToolRegistry([*default_tools(), FetchTool(), PatchTool(), NoteTool()])


def decide(mode: PermissionMode, tool: Tool, args: Mapping[str, Any], **kwargs: Any) -> Decision:
    policy = PermissionPolicy(mode=mode, workspace=WORKSPACE, home=HOME, tools=registry(), **kwargs)
    return asyncio.run(policy.check(tool, args))


def test_plan_mode_allows_the_read_tool_and_refuses_the_edit_tool() -> None:
    assert decide(PermissionMode.PLAN, FetchTool(), {"url": "https://example.com"}) == Decision(True, "", "plan")
    refused = decide(PermissionMode.PLAN, PatchTool(), {"target": "a.py"})
    assert not refused.allowed and refused.source == "plan"


def test_plan_mode_instructions_name_the_new_read_tools() -> None:
    policy = PermissionPolicy(mode=PermissionMode.PLAN, workspace=WORKSPACE, home=HOME, tools=registry())
    offered = plan_mode_tools(registry())
    assert offered.endswith(", fetch, note)") and plan_mode_tools() == offered.replace(", fetch, note)", ")")
    assert offered in policy.mode_instructions()


def test_default_mode_runs_the_read_tool_and_asks_for_the_edit_tool() -> None:
    assert decide(PermissionMode.DEFAULT, FetchTool(), {"url": "https://example.com"}).allowed
    headless = decide(PermissionMode.DEFAULT, PatchTool(), {"target": "a.py"})
    assert not headless.allowed and headless.source == "headless"
    assert "--allowed-tools 'patch(/a.py)'" in headless.reason


def test_accept_edits_approves_the_edit_tool() -> None:
    assert decide(PermissionMode.ACCEPT_EDITS, PatchTool(), {"target": "src/a.py"}) == Decision(True, "", "mode")
    assert registry().edit_names() == ("write_file", "edit_file", "patch")


def test_rules_may_use_the_claude_code_name_and_match_the_declared_path_argument() -> None:
    allow = {"allowed_tools": ["ApplyPatch(src/**)"]}
    assert decide(PermissionMode.DEFAULT, PatchTool(), {"target": "src/a.py"}, **allow).source == "rule"
    assert not decide(PermissionMode.DEFAULT, PatchTool(), {"target": "setup.py"}, **allow).allowed
    deny = Rules.from_settings({"permissions": {"deny": ["WebSearch"]}})
    denied = decide(PermissionMode.BYPASS, FetchTool(), {"url": "https://example.com"}, rules=deny)
    assert not denied.allowed and "`fetch`" in denied.reason


def test_the_transcript_shows_the_declared_key_argument() -> None:
    keys = registry().display_keys()
    assert key_argument("fetch", {"timeout": 5, "url": "https://example.com"}, keys) == "https://example.com"
    assert key_argument("patch", {"diff": "@@", "target": "src/a.py"}, keys) == "src/a.py"


def test_a_hook_matcher_with_the_claude_code_name_fires_for_the_tool() -> None:
    hooks = {"PreToolUse": [{"matcher": "WebSearch|ApplyPatch", "hooks": [{"type": "command", "command": "./check.sh"}]}]}
    config = HookConfig.from_settings({"hooks": hooks}, claude_names=registry().claude_names())
    assert [c.command for c in config.commands("PreToolUse", "fetch")] == ["./check.sh"]
    assert [c.command for c in config.commands("PreToolUse", "patch")] == ["./check.sh"]
    assert config.commands("PreToolUse", "note") == ()


def test_after_a_cold_cache_results_are_cleared_as_declared() -> None:
    now = [1_000_000.0]
    runtime = ContextState(model="m", context_window=200_000, clock=lambda: now[0], clearable_tools=registry().clearable_names())
    runtime.record_usage(5_000, 3)
    conversation = [Message.user("go")]
    for n in range(12):
        tool = "fetch" if n % 2 else "note"
        conversation += [Message.assistant(f"step {n}", [ToolCall(f"c{n}", tool, "{}")]), Message.tool(f"c{n}", f"{tool} result {n} " * 50)]
    conversation += [Message.assistant("done"), Message.user("next?")]
    now[0] += COLD_CACHE_SECONDS
    result = asyncio.run(manage_context(conversation, runtime, SummaryProvider()))
    contents = {m.tool_result.call_id: m.tool_result.content for m in result.conversation if m.tool_result is not None}
    fetches = [f"c{n}" for n in range(12) if n % 2]
    assert [contents[c] for c in fetches[: len(fetches) - KEEP_RECENT_TOOL_RESULTS]] == [CLEARED_RESULT]
    assert all(contents[c].startswith("fetch result") for c in fetches[len(fetches) - KEEP_RECENT_TOOL_RESULTS :])
    assert all(contents[f"c{n}"].startswith("note result") for n in range(0, 12, 2))
