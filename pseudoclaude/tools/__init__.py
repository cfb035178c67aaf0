"""The tools the model calls, and the contract every tool keeps (see ``base``).

The built-in tools are imported lazily through ``default_tools()``; the
session-bound ones (``task``, ``command_output``, ``kill_command``) are added by
``agent.build_agent``, which owns what they need. Importing
this package stays cheap. So are the two the terminal and the hooks reach
for directly (the ``run_command`` tool behind ``!command``, and ``start_group`` /
``stop_group`` that start and end a process group): ``__getattr__`` loads them on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pseudoclaude.lazy import lazy_getattr
from pseudoclaude.tools.base import (
    FactStore,
    FileStamp,
    HistorySearch,
    MemoryScope,
    OutputBudget,
    PastMessage,
    Tool,
    ToolContext,
    ToolError,
    ToolKind,
    ToolOutput,
    ToolTraits,
    TurnFacts,
    spec_of,
)
from pseudoclaude.tools.child_env import ChildEnvironment
from pseudoclaude.tools.registry import ToolRegistry, builtin_registry, default_tools

if TYPE_CHECKING:
    from pseudoclaude.tools.structured_output import SchemaProblem, StructuredOutputTool, checked_schema
    from pseudoclaude.tools.budgeted import budgeted_output
    from pseudoclaude.tools.background import BackgroundJobs, JobView, RunningCommand, background_recap
    from pseudoclaude.tools.command_output import CommandOutputTool
    from pseudoclaude.tools.files import open_if_regular
    from pseudoclaude.tools.kill_command import KillCommandTool
    from pseudoclaude.tools.run_command import RunCommandTool
    from pseudoclaude.tools.shell import start_group, stop_group
    from pseudoclaude.tools.task import SubagentResult, Subagents, SubagentType, TaskTool

_LAZY = {
    "SchemaProblem": "structured_output",
    "StructuredOutputTool": "structured_output",
    "checked_schema": "structured_output",
    "BackgroundJobs": "background",
    "CommandOutputTool": "command_output",
    "KillCommandTool": "kill_command",
    "open_if_regular": "files",
    "JobView": "background",
    "RunningCommand": "background",
    "background_recap": "background",
    "RunCommandTool": "run_command",
    "start_group": "shell",
    "stop_group": "shell",
    "budgeted_output": "budgeted",
    "SubagentResult": "task",
    "SubagentType": "task",
    "Subagents": "task",
    "TaskTool": "task",
}

if not TYPE_CHECKING:  # mypy sees the names above; a misspelt one stays an error
    __getattr__ = lazy_getattr(__name__, _LAZY)


__all__ = [
    "SchemaProblem",
    "StructuredOutputTool",
    "checked_schema",
    "ChildEnvironment",
    "BackgroundJobs",
    "CommandOutputTool",
    "KillCommandTool",
    "open_if_regular",
    "JobView",
    "RunningCommand",
    "background_recap",
    "FactStore",
    "FileStamp",
    "HistorySearch",
    "MemoryScope",
    "OutputBudget",
    "PastMessage",
    "RunCommandTool",
    "SubagentResult",
    "SubagentType",
    "Subagents",
    "TaskTool",
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
    "start_group",
    "stop_group",
]
