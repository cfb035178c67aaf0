"""Argument checking driven by the very schema the model sees.

Tool arguments are untrusted input: the model may omit a field, misspell one,
or send a string where a number belongs. Every tool validates through
``check_args`` against its own ``input_schema``, so what the model is told and
what is enforced cannot drift apart, and every misuse becomes a ``ToolError``
whose message says exactly what to change.

Only the schema subset the built-in tools use is understood: ``type`` (string,
integer, boolean, array, object), ``enum``, ``minimum``, ``maximum``,
``minLength``, ``items``, ``properties``, ``required`` and
``additionalProperties: false``.
"""

from __future__ import annotations

from typing import Any, Mapping

from pseudoclaude.tools.base import ToolError

_TYPE_NAMES = {
    "string": "a string",
    "integer": "an integer",
    "boolean": "a boolean (true or false)",
    "array": "an array",
    "object": "an object",
}


def check_args(tool_name: str, args: Mapping[str, Any], schema: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``args`` checked against ``schema`` (integer-valued floats become ints).

    Raises ``ToolError`` naming the tool and the offending field.
    """
    if not isinstance(args, Mapping):
        raise ToolError(f"{tool_name}: arguments must be a JSON object, got {_kind(args)}")
    return _check_object(tool_name, "", args, schema)


def _check_object(tool: str, where: str, value: Mapping[str, Any], schema: Mapping[str, Any]) -> dict[str, Any]:
    properties: Mapping[str, Any] = schema.get("properties", {})
    unknown = sorted(set(value) - set(properties))
    if unknown and schema.get("additionalProperties") is False:
        allowed = ", ".join(properties) or "none"
        place = "the arguments" if not where else f"'{where}'"
        raise ToolError(f"{tool}: unknown field(s) {', '.join(map(repr, unknown))} in {place}; allowed fields: {allowed}")
    missing = [name for name in schema.get("required", ()) if name not in value or value[name] is None]
    if missing:
        place = "the arguments" if not where else f"'{where}'"
        raise ToolError(f"{tool}: missing required field(s) {', '.join(map(repr, missing))} in {place}")
    checked: dict[str, Any] = {}
    for name, item in value.items():
        if item is None and name not in schema.get("required", ()):
            continue
        checked[name] = _check_value(tool, name if not where else f"{where}.{name}", item, properties.get(name, {}))
    return checked


def _check_value(tool: str, where: str, value: Any, schema: Mapping[str, Any]) -> Any:
    expected = schema.get("type")
    if expected == "integer":
        value = _as_int(tool, where, value)
        if "minimum" in schema and value < schema["minimum"]:
            raise ToolError(f"{tool}: '{where}' must be >= {schema['minimum']}, got {value}")
        if "maximum" in schema and value > schema["maximum"]:
            raise ToolError(f"{tool}: '{where}' must be <= {schema['maximum']}, got {value}")
    elif expected == "string":
        if not isinstance(value, str):
            raise ToolError(f"{tool}: '{where}' must be {_TYPE_NAMES['string']}, got {_kind(value)}")
        if len(value) < schema.get("minLength", 0):
            raise ToolError(f"{tool}: '{where}' must not be empty")
    elif expected == "boolean":
        if not isinstance(value, bool):
            raise ToolError(f"{tool}: '{where}' must be {_TYPE_NAMES['boolean']}, got {_kind(value)}")
    elif expected == "array":
        if not isinstance(value, list):
            raise ToolError(f"{tool}: '{where}' must be {_TYPE_NAMES['array']}, got {_kind(value)}")
        item_schema = schema.get("items", {})
        value = [_check_value(tool, f"{where}[{i}]", item, item_schema) for i, item in enumerate(value)]
    elif expected == "object":
        if not isinstance(value, Mapping):
            raise ToolError(f"{tool}: '{where}' must be {_TYPE_NAMES['object']}, got {_kind(value)}")
        value = _check_object(tool, where, value, schema)
    if "enum" in schema and value not in schema["enum"]:
        choices = ", ".join(repr(c) for c in schema["enum"])
        raise ToolError(f"{tool}: '{where}' must be one of {choices}, got {value!r}")
    return value


def _as_int(tool: str, where: str, value: Any) -> int:
    if isinstance(value, bool):
        raise ToolError(f"{tool}: '{where}' must be {_TYPE_NAMES['integer']}, got a boolean")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise ToolError(f"{tool}: '{where}' must be {_TYPE_NAMES['integer']}, got {_kind(value)} {value!r}"[:300])


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__
