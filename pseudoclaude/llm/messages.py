"""The neutral conversation: what every other package speaks.

Adapters translate this model to and from each provider's wire format;
compaction and sessions work only on it. A conversation is a list of
``Message``: a user or assistant turn with text and (for the assistant) tool
calls, or a ``tool`` message carrying exactly one ``ToolResult``.

Tool-call arguments are kept as the raw JSON text the model produced, so a
malformed argument string can travel back to the model unchanged and a replayed
session re-sends exactly the bytes it sent before.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Mapping

Role = Literal["user", "assistant", "tool"]


@dataclass(frozen=True)
class ToolCall:
    """One tool invocation requested by the model."""

    id: str
    name: str
    arguments: str = "{}"

    def parsed_arguments(self) -> dict[str, Any]:
        """The arguments as a JSON object; raises ``ValueError`` when they are not one."""
        value = json.loads(self.arguments or "{}")
        if not isinstance(value, dict):
            raise ValueError("tool arguments must be a JSON object")
        return value

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "arguments": self.arguments}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolCall:
        return cls(id=str(data["id"]), name=str(data["name"]), arguments=str(data.get("arguments", "{}")))


@dataclass(frozen=True)
class ToolResult:
    """The answer to one ``ToolCall``, matched by ``call_id``.

    ``shaped``: the tool already fitted ``content`` to the output budget (a
    preview of a longer output, or a page of a file), so context governance
    never truncates it again on its own account. ``full_output``: where the
    complete original output was saved, when the tool saved it (the path a
    preview must name). Neither is sent to the provider.
    """

    call_id: str
    content: str
    is_error: bool = False
    shaped: bool = False
    full_output: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"call_id": self.call_id, "content": self.content}
        if self.is_error:
            out["is_error"] = True
        if self.shaped:
            out["shaped"] = True
        if self.full_output is not None:
            out["full_output"] = self.full_output
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolResult:
        full_output = data.get("full_output")
        return cls(
            call_id=str(data["call_id"]),
            content=str(data.get("content", "")),
            is_error=bool(data.get("is_error", False)),
            shaped=bool(data.get("shaped", False)),
            full_output=str(full_output) if full_output is not None else None,
        )


@dataclass(frozen=True)
class Message:
    """One entry of the conversation.

    ``user``: ``text``. ``assistant``: ``text`` and/or ``tool_calls``.
    ``tool``: exactly one ``tool_result`` (and no text).
    """

    role: Role
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_result: ToolResult | None = None

    @classmethod
    def user(cls, text: str) -> Message:
        return cls(role="user", text=text)

    @classmethod
    def assistant(cls, text: str = "", tool_calls: tuple[ToolCall, ...] | list[ToolCall] = ()) -> Message:
        return cls(role="assistant", text=text, tool_calls=tuple(tool_calls))

    @classmethod
    def tool(cls, call_id: str, content: str, is_error: bool = False, *, shaped: bool = False, full_output: str | None = None) -> Message:
        return cls(role="tool", tool_result=ToolResult(call_id, content, is_error, shaped, full_output))

    def with_result_content(self, content: str) -> Message:
        """A copy whose tool result carries ``content`` (used by Layer 1 previews)."""
        if self.tool_result is None:
            raise ValueError("not a tool message")
        return replace(self, tool_result=replace(self.tool_result, content=content))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"role": self.role}
        if self.text:
            out["text"] = self.text
        if self.tool_calls:
            out["tool_calls"] = [c.to_dict() for c in self.tool_calls]
        if self.tool_result is not None:
            out["tool_result"] = self.tool_result.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Message:
        role = data.get("role")
        if role not in ("user", "assistant", "tool"):
            raise ValueError(f"unknown message role: {role!r}")
        result = data.get("tool_result")
        return cls(
            role=role,
            text=str(data.get("text", "")),
            tool_calls=tuple(ToolCall.from_dict(c) for c in data.get("tool_calls", ())),
            tool_result=ToolResult.from_dict(result) if result is not None else None,
        )


@dataclass(frozen=True)
class Usage:
    """Token counts for one provider call, normalized across providers.

    ``input_tokens`` are the prompt tokens that were neither read from nor
    written to the prompt cache (Anthropic's meaning). OpenAI's
    ``prompt_tokens`` includes cached tokens; its adapter subtracts them.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    @property
    def prompt_tokens(self) -> int:
        """Everything the model read: the size of the context on that call."""
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )

    def to_dict(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Usage:
        return cls(
            int(data.get("input_tokens", 0)),
            int(data.get("output_tokens", 0)),
            int(data.get("cache_read_tokens", 0)),
            int(data.get("cache_write_tokens", 0)),
        )


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the model sees it: name, description, JSON schema of its input."""

    name: str
    description: str
    input_schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
