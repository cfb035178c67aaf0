"""Tool calls that a model wrote as text, recovered into real ones.

Small local models offered tools often answer with the call in their text
instead of the structured ``tool_calls`` field: Hermes-style
``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` tags, or a fenced
JSON object with ``name`` and ``arguments``. ``recover`` turns such text into
real ``ToolCall``s, under rules that keep a half-written or invented call from
ever running:

- only a message with no structured call, from a response that finished
  normally (a response cut by its length limit is partial by definition);
- every candidate must parse as a whole JSON object (an unclosed tag or fence,
  or truncated JSON, is not a candidate: the text stays text);
- the name must be one of the tools offered, the arguments an object that
  satisfies the tool's schema (required keys, declared types, no unknown keys
  when the schema forbids them); one invalid candidate leaves the whole text
  as it was;
- the recovered calls' text is removed from the message, the rest kept.

The adapter turns this off for a model once it has used the structured field.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from pseudoclaude.llm.messages import Message, ToolCall, ToolSpec

__all__ = ["Recovered", "recover"]

_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)
_FENCED = re.compile(r"```(?:json|tool_call|)[ \t]*\n(?P<body>.*?)\n?```|```[^\n`]*\n.*?```", re.DOTALL)
_JSON_TYPES: Mapping[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


@dataclass(frozen=True)
class Recovered:
    """The message with its text-form calls made real, and how many there were."""

    message: Message
    count: int
    form: str


def recover(message: Message, tools: Sequence[ToolSpec], *, call_id_prefix: str = "call_text_") -> Recovered | None:
    """``message`` with the tool calls written in its text parsed into real ones, or None when there is nothing valid."""
    if message.tool_calls or not tools or not message.text:
        return None
    specs = {spec.name: spec for spec in tools}
    for form, pattern in (("tagged", _TAGGED), ("fenced", _FENCED)):
        matches = list(pattern.finditer(message.text))
        if not matches:
            continue
        calls: list[ToolCall] = []
        spans: list[tuple[int, int]] = []
        for match in matches:
            body = match.group(1)
            if body is None or (form == "fenced" and not _looks_like_call(body)):
                continue  # an ordinary code block beside the call
            call = _call(body, specs, f"{call_id_prefix}{len(calls)}")
            if call is None:
                return None
            calls.append(call)
            spans.append(match.span())
        if calls:
            rest, end = "", 0
            for start, stop in spans:
                rest, end = rest + message.text[end:start], stop
            rest = (rest + message.text[end:]).strip()
            return Recovered(Message.assistant(rest, calls, message.thinking), len(calls), form)
    return None


def _looks_like_call(text: str) -> bool:
    return '"name"' in text and ('"arguments"' in text or '"parameters"' in text)


def _call(text: str, specs: Mapping[str, ToolSpec], call_id: str) -> ToolCall | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or set(data) - {"name", "arguments", "parameters", "id", "type"}:
        return None
    name, arguments = data.get("name"), data.get("arguments", data.get("parameters", {}))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return None
    spec = specs.get(name) if isinstance(name, str) else None
    if spec is None or not isinstance(arguments, dict) or not _valid(arguments, spec.input_schema):
        return None
    return ToolCall(call_id, spec.name, json.dumps(arguments, ensure_ascii=False))


def _valid(arguments: Mapping[str, Any], schema: Mapping[str, Any]) -> bool:
    """The top-level checks that decide whether a call is what the tool takes (nested values are the tool's to check)."""
    properties = schema.get("properties") or {}
    required = schema.get("required") or []
    if any(key not in arguments for key in required):
        return False
    if schema.get("additionalProperties") is False and any(key not in properties for key in arguments):
        return False
    for key, value in arguments.items():
        declared = properties.get(key, {}).get("type") if isinstance(properties.get(key), dict) else None
        names = declared if isinstance(declared, list) else [declared] if isinstance(declared, str) else []
        if names and not any(_is(value, name) for name in names):
            return False
    return True


def _is(value: Any, type_name: str) -> bool:
    types = _JSON_TYPES.get(type_name)
    if types is None:
        return True
    if isinstance(value, bool) and type_name in ("integer", "number"):
        return False
    return isinstance(value, types)
