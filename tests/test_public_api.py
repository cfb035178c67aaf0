"""Each package's public surface is pinned, and importing it stays cheap."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

PUBLIC = {
    "pseudoclaude.llm": {
        "AuthError", "BadRequest", "Completed", "ConnectionFailed", "Message", "ModelRow", "Overloaded", "PROVIDERS",
        "PromptTooLong", "Provider", "ProviderEntry", "ProviderError", "RateLimited", "Request", "RetryPolicy", "Retrying",
        "ServerError", "StreamCut", "StreamEvent", "TextChunk", "ToolCall", "ToolCallStart", "ToolResult", "ToolSpec",
        "Usage", "build_provider", "context_window", "model_info", "stream_with_retry",
    },
    "pseudoclaude.agent": {
        "AssistantMessage", "ErrorEvent", "Event", "Progress", "RunConfig", "Runner", "Stop", "TextDelta",
        "ToolCallFinished", "ToolCallStarted", "UsageReport", "event_to_dict", "repair",
    },
    "pseudoclaude.tools": {
        "FileStamp", "Tool", "ToolContext", "ToolError", "ToolKind", "ToolOutput", "ToolRegistry", "ToolTraits",
        "builtin_registry", "default_tools", "spec_of",
    },
    "pseudoclaude.tui": {"run_repl"},
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
