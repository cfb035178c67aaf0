"""structured_output: the run's final answer as JSON matching the caller's schema (``--json-schema``, the SDK's ``output_format``).

Claude Code does this with a ``StructuredOutput`` tool whose input schema is
the caller's schema; so do we, under that Claude Code name. The tool checks
the model's object with ``jsonschema`` (the schema itself is checked at start,
a bad one is a usage error): a mismatch is an error result listing what is
wrong, so the model corrects it and calls again; a match is kept in the
result's ``display`` (``structured_output``), which the headless printer puts
in the ``result`` object. A schema whose top is not an object is wrapped
(``{"output": ...}``) because both providers take only object schemas for
tool input, and unwrapped again. The call changes nothing (kind ``read``), so
no mode or rule stops it.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from pseudoclaude.tools.base import ToolContext, ToolError, ToolOutput, ToolTraits

MAX_ERRORS_SHOWN = 5


class SchemaProblem(ValueError):
    """The caller's schema is not a valid JSON schema."""


def checked_schema(raw: str | Mapping[str, Any]) -> dict[str, Any]:
    """The schema of ``--json-schema`` (JSON text or an object), checked; ``SchemaProblem`` says what is wrong."""
    import jsonschema

    try:
        schema = json.loads(raw) if isinstance(raw, str) else dict(raw)
    except ValueError as error:
        raise SchemaProblem(f"--json-schema is not JSON ({error})") from None
    if not isinstance(schema, dict):
        raise SchemaProblem("--json-schema must be a JSON object (a JSON schema)")
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as error:
        raise SchemaProblem(f"--json-schema is not a valid JSON schema: {error.message}") from None
    return schema


class StructuredOutputTool:
    name = "structured_output"
    traits = ToolTraits(kind="read", clearable=False, claude_names=("StructuredOutput",))

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.schema = dict(schema)
        self.wrapped = self.schema.get("type") != "object"
        self.input_schema: Mapping[str, Any] = (
            {"type": "object", "properties": {"output": self.schema}, "required": ["output"]} if self.wrapped else self.schema
        )
        self.description = (
            "Give your final answer as structured data: when the task is done, call this tool once with an object matching "
            "its schema exactly, then end your turn. The user reads this data, not your prose. If it reports errors, fix them and call again."
        )

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        import jsonschema

        value: Any = args.get("output") if self.wrapped else dict(args)
        validator = jsonschema.validators.validator_for(self.schema)(self.schema)
        errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
        if errors:
            lines = [f"- {'/'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message}" for e in errors[:MAX_ERRORS_SHOWN]]
            more = f"\n(and {len(errors) - MAX_ERRORS_SHOWN} more)" if len(errors) > MAX_ERRORS_SHOWN else ""
            raise ToolError("the output does not match the schema:\n" + "\n".join(lines) + more + "\nCall structured_output again with a corrected object.")
        return ToolOutput("Structured output accepted. End your turn now.", summary="structured output accepted", display={"structured_output": value})
