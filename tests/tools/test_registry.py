"""The registry and the contract every built-in keeps."""

from __future__ import annotations

import asyncio
import json
from dataclasses import asdict
from typing import Any

import pytest

import pseudoclaude.tools as tools_package
from pseudoclaude.tools import Tool, ToolContext, ToolError, ToolRegistry, default_tools

READ_ONLY = {"read_file": True, "glob": True, "grep": True, "list_dir": True, "todo_write": True,
             "write_file": False, "edit_file": False, "run_command": False, "remember": False}


def test_default_tools_in_stable_order() -> None:
    assert [tool.name for tool in default_tools()] == [
        "read_file", "write_file", "edit_file", "glob", "grep", "list_dir", "run_command", "todo_write", "remember",
    ]


def test_specs_are_byte_stable_across_instances() -> None:
    first = json.dumps([asdict(spec) for spec in ToolRegistry().specs()])
    second = json.dumps([asdict(spec) for spec in ToolRegistry(default_tools()).specs()])
    assert first == second


def test_read_only_declarations() -> None:
    assert {tool.name: tool.read_only for tool in default_tools()} == READ_ONLY


@pytest.mark.parametrize("tool", default_tools(), ids=lambda t: t.name)
def test_schema_is_closed_and_lists_required_fields(tool: Tool) -> None:
    schema = tool.input_schema
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) <= set(schema["properties"])


def test_registry_lookup_iteration_and_duplicates() -> None:
    registry = ToolRegistry()
    assert registry.get("grep") is not None and registry.get("nope") is None
    assert "glob" in registry and len(registry) == 9
    assert [tool.name for tool in registry] == registry.names()
    with pytest.raises(ValueError, match="two tools"):
        ToolRegistry([*default_tools(), default_tools()[0]])


def test_package_exports() -> None:
    assert sorted(tools_package.__all__) == sorted(
        ["Tool", "ToolContext", "ToolOutput", "ToolError", "FileStamp", "spec_of", "default_tools", "ToolRegistry"]
    )


BAD_ARGUMENTS: list[Any] = [
    {},
    {"unexpected": 1},
    {"path": None, "pattern": None, "command": None, "items": None},
    {"path": 1, "pattern": 1, "command": 1, "items": 1, "content": 1, "old_string": 1, "new_string": 1},
    {"path": ["a"], "pattern": {"x": 1}, "command": True, "items": [1], "content": None},
    {"path": "../../etc/passwd", "pattern": "(", "command": "", "items": [{}], "content": "x",
     "old_string": "", "new_string": ""},
    [],
    "not an object",
]


@pytest.mark.parametrize("args", BAD_ARGUMENTS, ids=range(len(BAD_ARGUMENTS)))
@pytest.mark.parametrize("tool", default_tools(), ids=lambda t: t.name)
def test_misuse_only_ever_raises_tool_error(tool: Tool, args: Any, ctx: ToolContext) -> None:
    try:
        asyncio.run(tool.run(args, ctx))
    except ToolError as error:
        assert str(error)
