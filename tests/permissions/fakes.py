"""Small fakes for the permission tests: tools that only declare, an approver that answers from a script."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from pseudoclaude.tools.base import ToolContext, ToolOutput
from pseudoclaude.tools.permissions import ApprovalAnswer, ApprovalRequest

WORKSPACE = Path("/home/u/proj")
HOME = Path("/home/u")


@dataclass(frozen=True)
class DeclaredTool:
    """A tool that only declares its name and read_only flag; running it is a test failure."""

    name: str
    read_only: bool
    description: str = "fake"
    input_schema: Mapping[str, Any] = field(default_factory=dict)

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        raise AssertionError("the policy must never run a tool")


def tool(name: str) -> DeclaredTool:
    """The built-in tool ``name`` with its honest read_only declaration."""
    return DeclaredTool(name, read_only=name in ("read_file", "glob", "grep", "list_dir", "todo_write"))


@dataclass
class ScriptedApprover:
    answers: list[ApprovalAnswer]
    requests: list[ApprovalRequest] = field(default_factory=list)

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.requests.append(request)
        return self.answers.pop(0)
