"""The tool set of a session, and every table derived from the tools' declarations.

The order of ``default_tools()`` and every tool's description and schema are
constants, so the tool list sent to the provider is byte-identical from one
request (and one session) to the next: a prerequisite for prompt caching.

A registry refuses two tools answering to one name (ours or Claude Code's) and
a declaration naming an argument the tool's schema does not have, so a
mislabelled tool fails when the session is built, not when it is first called.
The lists other packages need (read-only tools, edit tools, clearable tools,
Claude Code names, display keys) are computed here from the declarations.
"""

from __future__ import annotations

import functools
from types import MappingProxyType
from typing import Iterable, Iterator, Mapping

from pseudoclaude.llm import ToolSpec
from pseudoclaude.tools.base import Tool, spec_of


def default_tools(*, fetch_local_addresses: bool = False) -> list[Tool]:
    """All built-in tools, in their stable order (``fetch_local_addresses``: web_fetch may reach local addresses)."""
    from pseudoclaude.tools.edit_file import EditFileTool
    from pseudoclaude.tools.exit_plan_mode import ExitPlanModeTool
    from pseudoclaude.tools.glob_tool import GlobTool
    from pseudoclaude.tools.grep import GrepTool
    from pseudoclaude.tools.list_dir import ListDirTool
    from pseudoclaude.tools.read_file import ReadFileTool
    from pseudoclaude.tools.recall import RecallTool
    from pseudoclaude.tools.remember import RememberTool
    from pseudoclaude.tools.run_command import RunCommandTool
    from pseudoclaude.tools.todo_write import TodoWriteTool
    from pseudoclaude.tools.web_fetch import WebFetchTool
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
        RecallTool(),
        WebFetchTool(local_addresses=fetch_local_addresses),
        ExitPlanModeTool(),
    ]


class ToolRegistry:
    """Tools by name; iterating yields the tools in registration order."""

    def __init__(self, tools: Iterable[Tool] | None = None) -> None:
        self._tools: dict[str, Tool] = {}
        self._aliases: dict[str, str] = {}
        for tool in default_tools() if tools is None else tools:
            self._add(tool)

    def _add(self, tool: Tool) -> None:
        for name in (tool.name, *tool.traits.claude_names):
            if name in self._tools or name in self._aliases:
                raise ValueError(f"two tools are named {name!r}")
        properties = tool.input_schema.get("properties", {})
        missing = [arg for arg in tool.traits.argument_names() if arg not in properties]
        if missing:
            raise ValueError(f"the tool {tool.name!r} declares arguments its schema lacks: {', '.join(missing)}")
        self._tools[tool.name] = tool
        self._aliases.update((alias, tool.name) for alias in tool.traits.claude_names)

    def get(self, name: str) -> Tool | None:
        """The tool called ``name`` (our name only: the model calls tools by the names we sent)."""
        return self._tools.get(name)

    def find(self, name: str) -> Tool | None:
        """The tool called ``name`` in our vocabulary or Claude Code's (settings may use either)."""
        return self._tools.get(self.canonical_name(name))

    def canonical_name(self, name: str) -> str:
        """Our name for ``name`` (``Bash`` -> ``run_command``); unknown names come back unchanged."""
        return self._aliases.get(name, name)

    def names(self) -> list[str]:
        return list(self._tools)

    def specs(self) -> list[ToolSpec]:
        return [spec_of(tool) for tool in self._tools.values()]

    def by_name(self) -> Mapping[str, Tool]:
        """A read-only view of the tools by our name (what a tool round looks tools up in)."""
        return MappingProxyType(self._tools)

    def read_only_names(self) -> tuple[str, ...]:
        """Tools that change nothing outside the session, in registration order (plan mode's set)."""
        return tuple(tool.name for tool in self if tool.traits.read_only)

    def edit_names(self) -> tuple[str, ...]:
        """Tools that edit the files named by their path arguments (accept-edits mode's set)."""
        return tuple(tool.name for tool in self if tool.traits.kind == "edit")

    def clearable_names(self) -> frozenset[str]:
        """Tools whose old results may be cleared once the prompt cache is cold."""
        return frozenset(tool.name for tool in self if tool.traits.clearable)

    def claude_names(self) -> Mapping[str, tuple[str, ...]]:
        """Our name -> Claude Code's names for it (what hook matchers may say)."""
        return {tool.name: tool.traits.claude_names for tool in self if tool.traits.claude_names}

    def display_keys(self) -> Mapping[str, str]:
        """Our name -> the argument a transcript shows for a call."""
        return {tool.name: key for tool in self if (key := tool.traits.key_argument) is not None}

    def explore_kinds(self) -> Mapping[str, str]:
        """Our name -> what an explore call of it touches (``file``, ``pattern``...), for the tools that declare it."""
        return {tool.name: kind for tool in self if (kind := tool.traits.explores) is not None}

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools


@functools.cache
def builtin_registry() -> ToolRegistry:
    """The built-in tools, once per process: the declarations callers fall back on when not given a session's tools."""
    return ToolRegistry()
