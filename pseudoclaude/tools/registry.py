"""The tool set of a session: names to tools, in a fixed order.

The order of ``default_tools()`` and every tool's description and schema are
constants, so the tool list sent to the provider is byte-identical from one
request (and one session) to the next: a prerequisite for prompt caching.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from pseudoclaude.llm.messages import ToolSpec
from pseudoclaude.tools.base import Tool, spec_of


def default_tools() -> list[Tool]:
    """All built-in tools, in their stable order."""
    from pseudoclaude.tools.edit_file import EditFileTool
    from pseudoclaude.tools.glob_tool import GlobTool
    from pseudoclaude.tools.grep import GrepTool
    from pseudoclaude.tools.list_dir import ListDirTool
    from pseudoclaude.tools.read_file import ReadFileTool
    from pseudoclaude.tools.remember import RememberTool
    from pseudoclaude.tools.run_command import RunCommandTool
    from pseudoclaude.tools.todo_write import TodoWriteTool
    from pseudoclaude.tools.write_file import WriteFileTool

    return [
        ReadFileTool(),
        WriteFileTool(),
        EditFileTool(),
        GlobTool(),
        GrepTool(),
        ListDirTool(),
        RunCommandTool(),
        TodoWriteTool(),
        RememberTool(),
    ]


class ToolRegistry:
    """Tools by name; iterating yields the tools in registration order."""

    def __init__(self, tools: Iterable[Tool] | None = None) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in default_tools() if tools is None else tools:
            if tool.name in self._tools:
                raise ValueError(f"two tools are named {tool.name!r}")
            self._tools[tool.name] = tool

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def specs(self) -> list[ToolSpec]:
        return [spec_of(tool) for tool in self._tools.values()]

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools
