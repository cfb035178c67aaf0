"""Small fakes for the permission tests: tools that only declare, an approver that answers from a script."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from pseudoclaude.tools import ToolContext, ToolKind, ToolOutput, ToolTraits, builtin_registry
from pseudoclaude.tools.permissions import ApprovalAnswer, ApprovalRequest

WORKSPACE = Path("/home/u/proj")
HOME = Path("/home/u")


@dataclass(frozen=True)
class DeclaredTool:
    """A tool that only declares its name and traits; running it is a test failure."""

    name: str
    traits: ToolTraits
    description: str = "fake"
    input_schema: Mapping[str, Any] = field(default_factory=dict)

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        raise AssertionError("the policy must never run a tool")


def declared(name: str, kind: ToolKind) -> DeclaredTool:
    """A tool unknown to the built-ins, declaring only its kind."""
    return DeclaredTool(name, ToolTraits(kind=kind, clearable=False))


def tool(name: str) -> DeclaredTool:
    """The built-in tool ``name`` with its own declaration."""
    builtin = builtin_registry().get(name)
    assert builtin is not None, name
    return DeclaredTool(name, builtin.traits)


@dataclass
class ScriptedApprover:
    answers: list[ApprovalAnswer]
    requests: list[ApprovalRequest] = field(default_factory=list)

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.requests.append(request)
        return self.answers.pop(0)
