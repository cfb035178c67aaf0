"""Each package's public surface is pinned, and importing it stays cheap."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

PUBLIC = {
    "pseudoclaude.llm": {
        "Compaction",
        "openai_reasoning_model",
        "MIN_COMPACT_TRIGGER",
        "ServerContext",
        "ServerWork",
        "refuses_server_context",
        "AuthError",
        "Image",
        "ImageLoader",
        "MEDIA_TYPES",
        "IMAGE_RULES",
        "image_tokens",
        "images_for_model",
        "sniff_media_type",
        "supports_vision",
        "BadRequest",
        "Completed",
        "ConnectionFailed",
        "Message",
        "ModelRow",
        "Overloaded",
        "PROVIDERS",
        "PromptTooLong",
        "Provider",
        "ProviderEntry",
        "ProviderError",
        "RateLimited",
        "Request",
        "RetryPolicy",
        "Retrying",
        "ServerError",
        "StreamCut",
        "StreamEvent",
        "TextChunk",
        "ToolCall",
        "ToolCallStart",
        "ToolArgsChunk",
        "ToolChoice",
        "ToolResult",
        "ToolSpec",
        "Usage",
        "build_provider",
        "context_window",
        "model_info",
        "stream_with_retry",
        "DEFAULT_FALLBACK_CONTEXT_WINDOW",
        "UnknownProvider",
        "cost_usd",
        "CachePrices",
        "cache_prices",
        "encoding_for",
        "provider_entry",
        "provider_for_model",
        "table_model_ids",
        "warm_up",
        "parser_ready",
        "sdk_ready",
        "start_warm_up",
        "EFFORTS",
        "Effort",
        "ReasoningStyle",
        "Thinking",
        "ThinkingChunk",
        "ThinkingMode",
        "effort_notice",
        "reasoning_style",
        "request_cost",
        "price_known",
        "price_notice",
        "unknown_model_notice",
        "explained",
        "ModelNotFound",
        "UsageSoFar",
        "PromptTruncated",
        "LocalServer",
        "WindowProbe",
        "WindowProber",
        "fetch_models",
        "find_local_servers",
        "probe_window",
        "CustomHeadersError",
        "parse_custom_headers",
        "FactsLookup",
        "ModelFacts",
        "begin_facts_lookup",
        "forget_facts",
        "learn_facts",
        "learned_facts",
        "table_info",
        "window_source",
    },
    "pseudoclaude.agent": {
        "AssistantMessage",
        "ErrorEvent",
        "Event",
        "Progress",
        "RunConfig",
        "Runner",
        "SessionWriteFailed",
        "Stop",
        "TextDelta",
        "ToolCallFinished",
        "ToolCallStarted",
        "ToolInputStart",
        "ToolInputDelta",
        "UsageReport",
        "event_to_dict",
        "repair",
        "ThinkingDelta",
        "Agent",
        "AgentFacts",
        "Current",
        "BackgroundControl",
        "Extensions",
        "McpControl",
        "Memory",
        "AgentDefinition",
        "sdk_agents",
        "AgentStatus",
        "ContextBreakdown",
        "FactRejected",
        "HOOK_EVENTS",
        "NEVER_FIRED",
        "HookCallback",
        "HookConfig",
        "HookReply",
        "INIT_PROMPT",
        "MemoryScope",
        "PLAIN_CONTEXT_EVENTS",
        "SessionHooks",
        "build_agent",
        "sample_data",
        "subject_of",
        "AgentSession",
        "PromptChoice",
        "CompactionEngine",
        "ContextEngine",
        "NoCompaction",
        "PrepareRequest",
        "SessionRecorder",
        "SessionStore",
        "CommandSet",
        "CustomCommand",
        "Expansion",
        "load_custom_commands",
        "workspace_trusted",
        "FileChange",
        "RestoredFile",
        "UserTurn",
        "restore_files",
        "rewind_session",
        "session_changes",
        "user_turns",
    },
    "pseudoclaude.tools": {
        "FileStamp",
        "SchemaProblem",
        "StructuredOutputTool",
        "checked_schema",
        "Tool",
        "ToolContext",
        "TurnFacts",
        "ToolError",
        "ToolKind",
        "ToolOutput",
        "ToolRegistry",
        "ToolTraits",
        "budgeted_output",
        "builtin_registry",
        "default_tools",
        "spec_of",
        "RunCommandTool",
        "start_group",
        "stop_group",
        "FactStore",
        "MemoryScope",
        "OutputBudget",
        "HistorySearch",
        "PastMessage",
        "SubagentResult",
        "SubagentType",
        "Subagents",
        "TaskTool",
        "BackgroundJobs",
        "JobView",
        "RunningCommand",
        "background_recap",
        "CommandOutputTool",
        "KillCommandTool",
        "open_if_regular",
        "ChildEnvironment",
    },
    "pseudoclaude.acp": {"AcpOptions", "serve_acp"},
    "pseudoclaude.mcp_client": {
        "install_sdk_bridge",
        "ElicitAnswer",
        "ElicitRequest",
        "Elicitor",
        "McpServers",
        "Prepared",
        "ServerSpec",
        "ServerView",
        "expand",
        "input_schema",
        "server_specs",
        "timeouts",
        "tool_name",
    },
    "pseudoclaude.tui": {
        "run_repl",
        "settle_workspace_trust",
        "render_session_list",
        "render_transcript",
        "safe_console",
        "load_image_options",
        "vision_notice",
    },
    "pseudoclaude.headless": {
        "agents_value",
        "refused_flag",
        "SlashCommand",
        "slash_commands",
        "print_events",
        "ClaudeStream",
        "ControlChannel",
        "HeadlessOptions",
        "StdioApprover",
        "StreamDriver",
        "error_result",
        "json_line_writer",
        "Write",
        "print_claude",
        "ClaudeFlags",
        "split_tool_rules",
        "with_claude_flags",
    },
}


@pytest.mark.parametrize("package", sorted(PUBLIC))
def test_the_public_surface_is_pinned(package: str) -> None:
    module = importlib.import_module(package)
    assert set(module.__all__) == PUBLIC[package]
    assert all(hasattr(module, name) for name in module.__all__)


@pytest.mark.parametrize("package", ["pseudoclaude.session", "pseudoclaude.compact", "pseudoclaude.tools.permissions"])
def test_every_exported_name_exists(package: str) -> None:
    module = importlib.import_module(package)
    assert module.__all__ and all(hasattr(module, name) for name in module.__all__)


def test_the_start_up_path_imports_no_sdk_and_no_terminal_library() -> None:
    code = (
        "import sys, pseudoclaude.cli, pseudoclaude.config, pseudoclaude.llm, pseudoclaude.agent, pseudoclaude.tools;"
        "heavy = [m for m in ('anthropic', 'openai', 'tiktoken', 'rich', 'prompt_toolkit', 'httpx', 'httpx2') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_the_faces_load_their_heavy_names_on_first_use() -> None:
    """The REPL reads events before its first paint; the runner, build and Rich load only when used."""
    code = (
        "import sys, pseudoclaude.agent, pseudoclaude.tools, pseudoclaude.tui, pseudoclaude.headless;"
        "loaded = [m for m in ('pseudoclaude.agent.runner', 'pseudoclaude.agent.build', 'pseudoclaude.agent.facade',"
        " 'pseudoclaude.tools.run_command', 'pseudoclaude.tui.sessions_view', 'pseudoclaude.headless.stream', 'rich') if m in sys.modules];"
        "print(','.join(loaded))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_a_lazy_name_is_the_submodule_s_own_object() -> None:
    import pseudoclaude.agent
    from pseudoclaude.agent.runner import Runner

    assert pseudoclaude.agent.Runner is Runner
    with pytest.raises(AttributeError):
        pseudoclaude.agent.NoSuchName  # noqa: B018
