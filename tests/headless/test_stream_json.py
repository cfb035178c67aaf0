"""Claude Code's stream-json shapes from our events, without a process (the e2e tests run the real SDK)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import pytest

from pseudoclaude.agent import AgentFacts, Current, AssistantMessage, ErrorEvent, Progress, Stop, TextDelta, ToolCallFinished, ToolCallStarted, UsageReport
from pseudoclaude.config import PermissionMode
from pseudoclaude.tools import ToolTraits, builtin_registry
from pseudoclaude.headless import ClaudeStream


class BuiltinDeclarations:
    def tool_traits(self) -> Mapping[str, ToolTraits]:
        return {tool.name: tool.traits for tool in builtin_registry()}


class NoServers:
    def servers(self) -> tuple[Any, ...]:
        return ()


@dataclass
class FakeAgent:
    """The printer's view of an agent (``headless.stream.StreamAgent``): the built-in tools, no MCP server."""

    model: str = "claude-sonnet-4-5"
    facts: AgentFacts = AgentFacts("20261130-120000-abcdef", Path("/work/project"))
    extensions: BuiltinDeclarations = field(default_factory=BuiltinDeclarations)
    mcp: NoServers = field(default_factory=NoServers)

    @property
    def current(self) -> Current:
        return Current("anthropic", self.model, None, PermissionMode.ACCEPT_EDITS, 0)


@dataclass
class Lines:
    items: list[dict[str, Any]] = field(default_factory=list)

    def __call__(self, data: Mapping[str, Any]) -> None:
        self.items.append(json.loads(json.dumps(data)))


def stream(partial: bool = False) -> tuple[ClaudeStream, Lines]:
    lines = Lines()
    claude = ClaudeStream(FakeAgent(), lines, partial=partial)
    claude.begin()
    return claude, lines


def tool_turn(claude: ClaudeStream, *, denied: bool) -> None:
    arguments = {"path": "src/app.py", "content": "x = 1\n"}
    claude.feed(TextDelta("Writing."))
    claude.feed(AssistantMessage("Writing.", ({"id": "toolu_1", "name": "write_file", "arguments": json.dumps(arguments)},)))
    claude.feed(UsageReport(100, 20, 50, 10, {"input_tokens": 300}))
    claude.feed(ToolCallStarted("toolu_1", "write_file", arguments))
    content = "Permission denied: asks in default mode" if denied else "Wrote src/app.py"
    claude.feed(ToolCallFinished("toolu_1", "write_file", denied, "denied" if denied else "wrote", {}, content, denied))


def test_a_tool_turn_reads_as_claude_code_messages() -> None:
    claude, lines = stream()
    tool_turn(claude, denied=False)
    claude.feed(AssistantMessage("Done."))
    claude.feed(UsageReport(10, 5, 0, 0, {}))
    claude.feed(Stop("end_turn", "Done.", 2))
    result = claude.finish()
    assistant, user, last, printed = lines.items
    assert assistant["type"] == "assistant" and assistant["session_id"] == "20261130-120000-abcdef"
    assert assistant["message"]["content"] == [
        {"type": "text", "text": "Writing."},
        {"type": "tool_use", "id": "toolu_1", "name": "Write", "input": {"file_path": "src/app.py", "content": "x = 1\n"}},
    ]
    assert assistant["message"]["stop_reason"] == "tool_use" and assistant["message"]["usage"] == {
        "input_tokens": 100,
        "cache_creation_input_tokens": 10,
        "cache_read_input_tokens": 50,
        "output_tokens": 20,
    }
    assert user["message"]["content"] == [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "Wrote src/app.py", "is_error": False}]
    assert last["message"]["stop_reason"] == "end_turn"
    assert printed == result and result["subtype"] == "success" and result["num_turns"] == 2 and result["permission_denials"] == []
    assert result["usage"]["input_tokens"] == 110 and result["total_cost_usd"] > 0
    assert result["modelUsage"]["claude-sonnet-4-5"]["cacheReadInputTokens"] == 50
    assert len({line["uuid"] for line in lines.items}) == len(lines.items)


def test_a_denied_call_is_listed_with_claude_code_names() -> None:
    claude, _ = stream()
    tool_turn(claude, denied=True)
    claude.feed(Stop("end_turn", "I could not write.", 2))
    (denial,) = claude.finish()["permission_denials"]
    assert denial == {"tool_name": "Write", "tool_use_id": "toolu_1", "tool_input": {"file_path": "src/app.py", "content": "x = 1\n"}}


@pytest.mark.parametrize(
    ("stop", "subtype"),
    [(Stop("max_turns", "", 5, "stopped after 5 turns"), "error_max_turns"), (Stop("context_overflow", "", 1, "too long"), "error_during_execution")],
)
def test_a_failed_run_has_an_error_subtype_and_says_why(stop: Stop, subtype: str) -> None:
    claude, _ = stream()
    claude.feed(ErrorEvent("PromptTooLong", "the prompt is too long"))
    claude.feed(stop)
    result = claude.finish()
    assert result["subtype"] == subtype and result["is_error"] and result["errors"][-1] == stop.message
    assert "PromptTooLong: the prompt is too long" in result["errors"]


def test_an_interrupted_run_still_gets_its_result() -> None:
    claude, lines = stream()
    claude.feed(AssistantMessage("", ({"id": "c1", "name": "run_command", "arguments": '{"command": "sleep 9"}'},)))
    result = claude.finish(interrupted=True)
    assert lines.items[0]["message"]["content"][0] == {"type": "tool_use", "id": "c1", "name": "Bash", "input": {"command": "sleep 9"}}
    assert result["subtype"] == "error_during_execution" and result["errors"] == ["interrupted"] and result["stop_reason"] == "interrupted"


def test_partial_messages_stream_text_then_close_the_message() -> None:
    claude, lines = stream(partial=True)
    for piece in ("Hel", "lo"):
        claude.feed(TextDelta(piece))
    claude.feed(AssistantMessage("Hello"))
    claude.feed(UsageReport(1, 1, 0, 0, {}))
    kinds = [line["event"]["type"] for line in lines.items if line["type"] == "stream_event"]
    assert kinds == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert lines.items[-1]["type"] == "assistant"


def test_init_names_tools_and_mode_as_claude_code_does() -> None:
    claude, _ = stream()
    init = claude.init_event()
    assert init["subtype"] == "init" and init["permissionMode"] == "acceptEdits" and init["cwd"] == "/work/project"
    assert init["tools"][:8] == ["Read", "Write", "Edit", "Glob", "Grep", "LS", "Bash", "TodoWrite"]


def test_compaction_and_notices_are_system_lines() -> None:
    claude, lines = stream()
    claude.feed(Progress("compacting", "compacting...", {"trigger": "auto", "before_tokens": 9000}))
    claude.feed(Progress("retry", "retrying in 1s"))
    boundary, notice = lines.items
    assert boundary["subtype"] == "compact_boundary" and boundary["compact_metadata"] == {"trigger": "auto", "pre_tokens": 9000}
    assert notice["subtype"] == "notice" and notice["kind"] == "retry"


@pytest.mark.parametrize("tool", [tool.name for tool in builtin_registry()])
def test_claude_argument_names_map_back_to_ours(tool: str) -> None:
    traits = builtin_registry().get(tool).traits  # type: ignore[union-attr]
    ours = {name: f"value of {name}" for name in builtin_registry().get(tool).input_schema["properties"]}  # type: ignore[union-attr]
    assert traits.from_claude(traits.to_claude(ours)) == ours


def test_permission_modes_parse_either_name() -> None:
    assert PermissionMode.parse("acceptEdits") is PermissionMode.ACCEPT_EDITS and PermissionMode.parse("bypass") is PermissionMode.BYPASS
    assert PermissionMode.BYPASS.claude_name == "bypassPermissions"
    with pytest.raises(ValueError, match="acceptEdits"):
        PermissionMode.parse("yolo")


def test_reasoning_parts_lead_the_message_as_claude_code_thinking_blocks() -> None:
    claude, lines = stream()
    thinking = (
        {"provider": "anthropic", "kind": "thinking", "text": "Check the file first.", "opaque": "sig-1"},
        {"provider": "anthropic", "kind": "redacted_thinking", "opaque": "c2VjcmV0"},
        {"provider": "openai", "kind": "reasoning", "text": "**Plan** read it", "opaque": '{"encrypted_content": "x"}'},
        {"provider": "openai", "kind": "reasoning", "opaque": '{"encrypted_content": "y"}'},
    )
    claude.feed(AssistantMessage("Reading.", (), thinking))
    claude.feed(UsageReport(10, 5, 0, 0, {}))
    (assistant,) = lines.items
    assert assistant["message"]["content"] == [
        {"type": "thinking", "thinking": "Check the file first.", "signature": "sig-1"},
        {"type": "redacted_thinking", "data": "c2VjcmV0"},
        {"type": "thinking", "thinking": "**Plan** read it", "signature": ""},
        {"type": "text", "text": "Reading."},
    ], "Anthropic's blocks as they are; OpenAI's summary without its encrypted item; an empty summary left out"


def test_an_image_result_is_described_in_text_blocks_and_listed_in_tool_use_result() -> None:
    from pseudoclaude.agent.events import ImageShown

    claude, lines = stream()
    claude.feed(AssistantMessage("", ({"id": "toolu_1", "name": "read_file", "arguments": json.dumps({"path": "shot.png"})},)))
    claude.feed(UsageReport(100, 20, 0, 0, {}))
    claude.feed(ToolCallStarted("toolu_1", "read_file", {"path": "shot.png"}))
    shot = ImageShown("shot.png", "image/png", 1280, 720, 84 * 1024, "ab" * 32)
    claude.feed(
        ToolCallFinished("toolu_1", "read_file", False, "Read image shot.png", {"path": "shot.png"}, "Image shot.png (1280x720 PNG, 84 KB)\n", images=(shot,))
    )
    _, user = lines.items
    assert user["message"]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "toolu_1",
            "content": [{"type": "text", "text": "Image shot.png (1280x720 PNG, 84 KB)\n"}, {"type": "text", "text": "[image shot.png 1280x720 PNG 84 KB]"}],
            "is_error": False,
        }
    ]
    assert user["tool_use_result"]["images"] == [
        {"name": "shot.png", "media_type": "image/png", "width": 1280, "height": 720, "bytes": 86016, "sha256": "ab" * 32}
    ]


def test_a_model_without_a_known_price_is_named_in_the_result_not_shown_as_free() -> None:
    from pseudoclaude.llm import PROVIDERS, price_known

    unpriced = next(model for entry in PROVIDERS for row in entry.models for model in row.full_ids() if not price_known(model))
    for model, known in ((unpriced, False), (FakeAgent.model, True)):
        lines = Lines()
        claude = ClaudeStream(FakeAgent(model=model), lines)
        claude.begin()
        claude.feed(AssistantMessage("Done."))
        claude.feed(UsageReport(1000, 50, 0, 0, {}))
        claude.feed(Stop("end_turn", "Done.", 1))
        result = claude.finish()
        assert result["cost_unknown_models"] == ([] if known else [model])
        assert result["modelUsage"][model]["costKnown"] is known
        assert (result["total_cost_usd"] > 0) is known
