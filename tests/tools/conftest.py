"""Shared fixtures for the tool tests: a workspace, a context, a way to call a tool."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Callable

import pytest

from pseudoclaude.tools import Tool, ToolContext, ToolOutput

Call = Callable[..., ToolOutput]


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
    def _call(tool: Tool, **args: Any) -> ToolOutput:
        return asyncio.run(tool.run(args, ctx))

    return _call
