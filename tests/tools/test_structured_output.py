"""The structured output tool (``--json-schema``) and the Agent SDK's agent definitions, through their public functions."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pseudoclaude.agent.subagents import sdk_agents
from pseudoclaude.tools import ToolContext, ToolError
from pseudoclaude.tools.structured_output import SchemaProblem, StructuredOutputTool, checked_schema


def test_a_matching_object_is_kept_and_a_wrong_one_names_each_field(tmp_path: Path) -> None:
    tool = StructuredOutputTool(checked_schema('{"type": "object", "properties": {"n": {"type": "integer"}, "tag": {"enum": ["a", "b"]}}, "required": ["n"]}'))
    context = ToolContext(workspace=tmp_path)
    output = asyncio.run(tool.run({"n": 2, "tag": "a"}, context))
    assert output.display["structured_output"] == {"n": 2, "tag": "a"} and not output.is_error
    with pytest.raises(ToolError) as wrong:
        asyncio.run(tool.run({"n": "two", "tag": "c"}, context))
    assert "- n: 'two' is not of type 'integer'" in str(wrong.value) and "- tag: 'c' is not one of" in str(wrong.value)


def test_a_schema_that_is_not_an_object_is_wrapped_for_the_model_and_unwrapped_for_the_caller(tmp_path: Path) -> None:
    tool = StructuredOutputTool(checked_schema({"type": "array", "items": {"type": "string"}}))
    assert tool.input_schema["type"] == "object" and tool.input_schema["required"] == ["output"]
    output = asyncio.run(tool.run({"output": ["x", "y"]}, ToolContext(workspace=tmp_path)))
    assert output.display["structured_output"] == ["x", "y"]


@pytest.mark.parametrize(("raw", "says"), [("{", "is not JSON"), ("[1]", "must be a JSON object"), ('{"type": "nonsense"}', "not a valid JSON schema")])
def test_a_bad_schema_is_refused_with_the_reason(raw: str, says: str) -> None:
    with pytest.raises(SchemaProblem, match=says):
        checked_schema(raw)


def test_sdk_agent_definitions_keep_what_we_honour_and_name_the_rest() -> None:
    definitions, problems = sdk_agents(
        {
            "reviewer": {"description": "Reviews", "prompt": "Review.", "tools": ["Read", "Grep"], "model": "sonnet", "skills": ["x"]},
            "fast": {"description": "Fast", "prompt": "Go.", "model": "claude-haiku-4-5"},
            "bad name!": {"description": "d", "prompt": "p"},
            "empty": {"description": "no prompt"},
        }
    )
    assert [(d.name, d.tools, d.model) for d in definitions] == [("reviewer", ("Read", "Grep"), None), ("fast", (), "claude-haiku-4-5")]
    assert problems == (
        "agent 'reviewer': skills not supported, ignored",
        "agent 'bad name!': a name is letters, digits, - and _",
        "agent 'empty': needs a string description and prompt",
    )
