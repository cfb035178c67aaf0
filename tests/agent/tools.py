"""Small tools for runner tests: fakes at the Tool seam."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Mapping

from pseudoclaude.tools.base import ToolContext, ToolError, ToolOutput, ToolTraits

READS = ToolTraits(kind="read", clearable=True)
WRITES = ToolTraits(kind="write", clearable=True)


@dataclass
class EchoTool:
    name: str = "echo"
    description: str = "Echo the text back."
    input_schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
    traits: ToolTraits = READS
    calls: list[Mapping[str, Any]] = field(default_factory=list)

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        if not isinstance(args.get("text"), str):
            raise ToolError("'text' must be a string")
        self.calls.append(dict(args))
        return ToolOutput(f"echo: {args['text']}", summary=f"echoed {len(args['text'])} chars")


@dataclass
class SlowTool:
    """Sleeps ``seconds`` (an argument); records start and finish."""

    name: str = "slow"
    description: str = "Sleep."
    input_schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {"seconds": {"type": "number"}}})
    traits: ToolTraits = READS
    started: list[float] = field(default_factory=list)
    finished: list[float] = field(default_factory=list)

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        loop = asyncio.get_running_loop()
        self.started.append(loop.time())
        await asyncio.sleep(float(args.get("seconds", 0.1)))
        self.finished.append(loop.time())
        return ToolOutput("slept")


@dataclass
class WriterTool:
    """A tool that is not read-only (so rounds with it run one call at a time)."""

    name: str = "write"
    description: str = "Pretend to write."
    input_schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    traits: ToolTraits = WRITES
    order: list[str] = field(default_factory=list)

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        self.order.append(str(args.get("tag", "")))
        await asyncio.sleep(0.01)
        return ToolOutput("written")


@dataclass
class CrashingTool:
    name: str = "crash"
    description: str = "Always raises."
    input_schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    traits: ToolTraits = READS

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        raise RuntimeError("boom")
