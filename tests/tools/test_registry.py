"""The registry and the contract every built-in keeps."""

from __future__ import annotations

import asyncio
import json
from dataclasses import asdict, dataclass, field
from typing import Any

import pytest

from pseudoclaude.tools import Tool, ToolContext, ToolError, ToolOutput, ToolRegistry, ToolTraits, default_tools
from tests.tools.builtins import BUILTIN_ORDER, builtin_only

READ_ONLY = {
    "read_file": True,
    "glob": True,
    "grep": True,
    "list_dir": True,
    "todo_write": True,
    "write_file": False,
    "edit_file": False,
    "run_command": False,
    "remember": False,
    "recall": True,
    "web_fetch": False,
    "exit_plan_mode": True,
}


def test_default_tools_in_stable_order() -> None:
    names = [tool.name for tool in default_tools()]
    assert tuple(names[: len(BUILTIN_ORDER)]) == BUILTIN_ORDER and len(set(names)) == len(names)


def test_specs_are_byte_stable_across_instances() -> None:
    first = json.dumps([asdict(spec) for spec in ToolRegistry().specs()])
    second = json.dumps([asdict(spec) for spec in ToolRegistry(default_tools()).specs()])
    assert first == second


def test_read_only_declarations() -> None:
    assert builtin_only({tool.name: tool.traits.read_only for tool in default_tools()}) == READ_ONLY
    assert set(READ_ONLY) == set(BUILTIN_ORDER)


def test_tables_derived_from_the_builtin_declarations() -> None:
    registry, tools = ToolRegistry(), default_tools()
    assert registry.read_only_names() == tuple(tool.name for tool in tools if tool.traits.read_only)
    assert registry.edit_names() == tuple(tool.name for tool in tools if tool.traits.kind == "edit")
    assert registry.clearable_names() == {tool.name for tool in tools if tool.traits.clearable}
    known = set(BUILTIN_ORDER)
    assert [name for name in registry.read_only_names() if name in known] == ["read_file", "glob", "grep", "list_dir", "todo_write", "recall", "exit_plan_mode"]
    assert [name for name in registry.edit_names() if name in known] == ["write_file", "edit_file"]
    assert registry.clearable_names() & known == {"read_file", "run_command", "grep", "glob", "list_dir", "edit_file", "write_file", "recall", "web_fetch"}
    assert builtin_only(dict(registry.claude_names())) == {
        "run_command": ("Bash",),
        "edit_file": ("Edit", "MultiEdit"),
        "write_file": ("Write",),
        "read_file": ("Read",),
        "glob": ("Glob",),
        "grep": ("Grep",),
        "list_dir": ("LS",),
        "todo_write": ("TodoWrite",),
        "web_fetch": ("WebFetch",),
        "exit_plan_mode": ("ExitPlanMode",),
    }
    assert builtin_only(dict(registry.display_keys())) == {
        "read_file": "path",
        "write_file": "path",
        "edit_file": "path",
        "list_dir": "path",
        "glob": "pattern",
        "grep": "pattern",
        "run_command": "command",
        "recall": "query",
        "web_fetch": "url",
        "exit_plan_mode": "plan",
    }


def test_lookup_by_claude_code_name() -> None:
    registry = ToolRegistry()
    assert registry.get("Bash") is None
    found = registry.find("Bash")
    assert found is not None and found.name == "run_command"
    assert registry.find("MultiEdit") is registry.get("edit_file")
    assert registry.canonical_name("LS") == "list_dir" and registry.canonical_name("WebSearch") == "WebSearch"


@dataclass
class Declared:
    name: str
    traits: ToolTraits
    description: str = "d"
    input_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {"url": {"type": "string"}}})

    async def run(self, args: Any, ctx: ToolContext) -> ToolOutput:
        return ToolOutput("")


def test_a_claude_code_name_taken_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="two tools are named 'Bash'"):
        ToolRegistry([*default_tools(), Declared("shell", ToolTraits(kind="execute", clearable=True, claude_names=("Bash",), key_argument="url"))])


def test_a_declaration_naming_arguments_the_schema_lacks_is_refused() -> None:
    with pytest.raises(ValueError, match="declares arguments its schema lacks: path"):
        ToolRegistry([Declared("fetch", ToolTraits(kind="read", clearable=True, key_argument="url", path_arguments=("path",)))])


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"kind": "delete"}, "unknown tool kind"),
        ({"kind": "execute"}, "command line"),
        ({"kind": "edit"}, "path arguments"),
    ],
)
def test_contradictory_declarations_are_refused(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ToolTraits(clearable=True, **fields)


@pytest.mark.parametrize("tool", default_tools(), ids=lambda t: t.name)
def test_schema_is_closed_and_lists_required_fields(tool: Tool) -> None:
    schema = tool.input_schema
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) <= set(schema["properties"])


def test_registry_lookup_iteration_and_duplicates() -> None:
    registry = ToolRegistry()
    assert registry.get("grep") is not None and registry.get("nope") is None
    assert "glob" in registry and len(registry) == len(default_tools()) >= len(BUILTIN_ORDER)
    assert [tool.name for tool in registry] == registry.names()
    with pytest.raises(ValueError, match="two tools"):
        ToolRegistry([*default_tools(), default_tools()[0]])


BAD_ARGUMENTS: list[Any] = [
    {},
    {"unexpected": 1},
    {"path": None, "pattern": None, "command": None, "items": None},
    {"path": 1, "pattern": 1, "command": 1, "items": 1, "content": 1, "old_string": 1, "new_string": 1},
    {"path": ["a"], "pattern": {"x": 1}, "command": True, "items": [1], "content": None},
    {"path": "../../etc/passwd", "pattern": "(", "command": "", "items": [{}], "content": "x", "old_string": "", "new_string": ""},
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
