"""The built-in tools as the tests know them: their order pinned here once, every other list read from the registry.

A tool added by the recipe (``docs/ARCHITECTURE.md``) goes after these and breaks
no test: tests that need "the read-only tools" or "the tools plan mode offers" ask
the declarations, and the facts pinned for the built-ins are checked for those alone.
"""

from __future__ import annotations

from pseudoclaude.tools import ToolRegistry, default_tools

BUILTIN_ORDER = (
    "read_file",
    "write_file",
    "edit_file",
    "glob",
    "grep",
    "list_dir",
    "run_command",
    "todo_write",
    "remember",
    "recall",
    "web_fetch",
    "exit_plan_mode",
)
"""The order the built-in tools are offered in (part of the cached prompt prefix, so it must not change by accident)."""


def plan_mode_tools(registry: ToolRegistry | None = None) -> str:
    """The list plan mode's instructions name: the read-only tools in registry order, the plan-exit tool left out."""
    tools = registry if registry is not None else ToolRegistry(default_tools())
    return "(" + ", ".join(tool.name for tool in tools if tool.traits.read_only and not tool.traits.exits_plan) + ")"


def builtin_only(table: dict[str, object]) -> dict[str, object]:
    """``table`` restricted to the pinned built-ins (what a derived table says of the tools these tests know)."""
    return {name: value for name, value in table.items() if name in BUILTIN_ORDER}
