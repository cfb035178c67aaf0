"""Shared fixtures for the tool tests: a workspace, a context, a way to call a tool."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pseudoclaude.tools import Tool, ToolContext, ToolOutput


class Call:
    """Runs a tool with the test's context; a test that needs other facts sets ``context`` (``ctx.at(...)``)."""

    def __init__(self, context: ToolContext) -> None:
        self.context = context

    def __call__(self, tool: Tool, **args: Any) -> ToolOutput:
        return asyncio.run(tool.run(args, self.context))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    return path.resolve()


@pytest.fixture
def ctx(workspace: Path, tmp_path: Path) -> ToolContext:
    return ToolContext(workspace=workspace, spill_dir=(tmp_path / "spill").resolve())


@pytest.fixture
def call(ctx: ToolContext) -> Call:
    return Call(ctx)
