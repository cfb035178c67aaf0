"""The neutral conversation: what every other package speaks.

Adapters translate this model to and from each provider's wire format;
compaction and sessions work only on it. A conversation is a list of
``Message``: a user or assistant turn with text and (for the assistant) tool
calls, or a ``tool`` message carrying exactly one ``ToolResult``.

Tool-call arguments are kept as the raw JSON text the model produced, so a
malformed argument string can travel back to the model unchanged and a replayed
session re-sends exactly the bytes it sent before. Reasoning (``Thinking``) is
kept the same way: what the provider needs back travels as an opaque string the
rest of the code never parses.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Mapping

from pseudoclaude.llm.images import Image, ImageLoader

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
    preview must name). Neither is sent to the provider. ``images``: what the
    tool showed the model besides ``content`` (``read_file`` of a screenshot);
    they travel inside the result so compaction can never split them from
    their call. ``summary``: the line the live tool block showed (``Edited
    cart.py (+1 -1)``, ``$ pytest (exit 1, 240 bytes)``), kept so a resumed
    session redraws the block as it looked; never sent either.
    """

    call_id: str
    content: str
    is_error: bool = False
    shaped: bool = False
    full_output: str | None = None
    images: tuple[Image, ...] = ()
    summary: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"call_id": self.call_id, "content": self.content}
        if self.is_error:
            out["is_error"] = True
        if self.shaped:
            out["shaped"] = True
        if self.full_output is not None:
            out["full_output"] = self.full_output
        if self.images:
            out["images"] = [i.to_dict() for i in self.images]
        if self.summary:
            out["summary"] = self.summary
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], load_image: ImageLoader | None = None) -> ToolResult:
        full_output = data.get("full_output")
        summary = data.get("summary")
        return cls(
            call_id=str(data["call_id"]),
            content=str(data.get("content", "")),
            is_error=bool(data.get("is_error", False)),
            shaped=bool(data.get("shaped", False)),
            full_output=str(full_output) if full_output is not None else None,
            images=tuple(Image.from_dict(i, load_image) for i in data.get("images", ())),
            summary=summary if isinstance(summary, str) and summary else None,
        )


@dataclass(frozen=True)
class Thinking:
    """Reasoning an assistant turn produced before its answer, kept to be sent back unchanged.

    Providers require it back verbatim (Anthropic rejects an edited thinking
    block in a tool-use turn; OpenAI's encrypted reasoning item is what lets a
    stateless request continue its reasoning), so nothing but the adapter
    that made a part reads ``opaque``, and no other provider ever receives it.

    ``provider``: the adapter that produced it (``"anthropic"``, ``"openai"``).
    ``kind``: the provider's block type: Anthropic ``"thinking"`` or
    ``"redacted_thinking"``, OpenAI ``"reasoning"``. ``text``: what a person
    may read (the thinking text, or a reasoning summary; empty when redacted);
    shown folded, never sent as answer text. ``opaque``: what the provider needs
    back, as a string: Anthropic the ``signature`` of a thinking block or the
    ``data`` of a redacted one; OpenAI the reasoning item as received, as JSON
    text (id, encrypted_content, summary).
    """

    provider: str
    kind: str
    text: str = ""
    opaque: str = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"provider": self.provider, "kind": self.kind}
        if self.text:
            out["text"] = self.text
        if self.opaque:
            out["opaque"] = self.opaque
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Thinking:
        return cls(
            provider=str(data.get("provider", "")),
            kind=str(data.get("kind", "")),
            text=str(data.get("text", "")),
            opaque=str(data.get("opaque", "")),
        )


@dataclass(frozen=True)
class Compaction:
    """A provider's server-side compaction of the conversation before it, kept to be sent back unchanged.

    The provider summarized everything before the message that carries it
    (Anthropic's ``compaction`` block, OpenAI's compaction item); later
    requests send it first, in place of what it replaced, byte for byte: its
    signature covers the summary, and a resume must send the bytes the
    original process sent. ``text``: the summary a person may read (empty when
    the provider's item is opaque); ``opaque``: the block or item as received,
    as JSON text, read only by the adapter that made it.
    """

    provider: str
    text: str = ""
    opaque: str = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"provider": self.provider}
        if self.text:
            out["text"] = self.text
        if self.opaque:
            out["opaque"] = self.opaque
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Compaction:
        return cls(provider=str(data.get("provider", "")), text=str(data.get("text", "")), opaque=str(data.get("opaque", "")))


@dataclass(frozen=True)
class Message:
    """One entry of the conversation.

    ``user``: ``text`` and the ``images`` attached to it. ``assistant``:
    ``text`` and/or ``tool_calls``, and the ``thinking`` that came before them
    (in the order received). ``tool``: exactly one ``tool_result`` (and no
    text; a tool's images are on its result). ``compaction``: on an assistant
    message, the provider's summary of everything before it (see ``Compaction``).
    """

    role: Role
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_result: ToolResult | None = None
    thinking: tuple[Thinking, ...] = ()
    images: tuple[Image, ...] = ()
    compaction: Compaction | None = None

    @classmethod
    def user(cls, text: str, images: tuple[Image, ...] | list[Image] = ()) -> Message:
        return cls(role="user", text=text, images=tuple(images))

    @classmethod
    def assistant(
        cls,
        text: str = "",
        tool_calls: tuple[ToolCall, ...] | list[ToolCall] = (),
        thinking: tuple[Thinking, ...] | list[Thinking] = (),
        compaction: Compaction | None = None,
    ) -> Message:
        return cls(role="assistant", text=text, tool_calls=tuple(tool_calls), thinking=tuple(thinking), compaction=compaction)

    @classmethod
    def tool(
        cls,
        call_id: str,
        content: str,
        is_error: bool = False,
        *,
        shaped: bool = False,
        full_output: str | None = None,
        images: tuple[Image, ...] = (),
        summary: str | None = None,
    ) -> Message:
        return cls(role="tool", tool_result=ToolResult(call_id, content, is_error, shaped, full_output, tuple(images), summary or None))

    def all_images(self) -> tuple[Image, ...]:
        """Every image this message shows the model (its own, or its tool result's)."""
        return self.images + (self.tool_result.images if self.tool_result is not None else ())

    def with_result_content(self, content: str) -> Message:
        """A copy whose tool result carries ``content`` (used by Layer 1 previews)."""
        if self.tool_result is None:
            raise ValueError("not a tool message")
        return replace(self, tool_result=replace(self.tool_result, content=content))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"role": self.role}
        if self.compaction is not None:
            out["compaction"] = self.compaction.to_dict()
        if self.thinking:
            out["thinking"] = [t.to_dict() for t in self.thinking]
        if self.text:
            out["text"] = self.text
        if self.images:
            out["images"] = [i.to_dict() for i in self.images]
        if self.tool_calls:
            out["tool_calls"] = [c.to_dict() for c in self.tool_calls]
        if self.tool_result is not None:
            out["tool_result"] = self.tool_result.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], load_image: ImageLoader | None = None) -> Message:
        """The message a session entry holds; ``load_image`` finds recorded images' bytes (see ``llm.images``)."""
        role = data.get("role")
        if role not in ("user", "assistant", "tool"):
            raise ValueError(f"unknown message role: {role!r}")
        result = data.get("tool_result")
        compaction = data.get("compaction")
        return cls(
            role=role,
            text=str(data.get("text", "")),
            tool_calls=tuple(ToolCall.from_dict(c) for c in data.get("tool_calls", ())),
            tool_result=ToolResult.from_dict(result, load_image) if result is not None else None,
            thinking=tuple(Thinking.from_dict(t) for t in data.get("thinking", ())),
            images=tuple(Image.from_dict(i, load_image) for i in data.get("images", ())),
            compaction=Compaction.from_dict(compaction) if isinstance(compaction, Mapping) else None,
        )


@dataclass(frozen=True)
class Usage:
    """Token counts for one provider call, normalized across providers.

    ``input_tokens`` are the prompt tokens that were neither read from nor
    written to the prompt cache (Anthropic's meaning). OpenAI's
    ``prompt_tokens`` includes cached tokens; its adapter subtracts them.
    ``output_tokens`` include reasoning (both providers bill it as output);
    ``reasoning_tokens`` is the part of them spent reasoning, when the
    provider says (OpenAI does; Anthropic does not, so it stays 0 there).
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0

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
            self.reasoning_tokens + other.reasoning_tokens,
        )

    def to_dict(self) -> dict[str, int]:
        out = {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
        }
        if self.reasoning_tokens:
            out["reasoning_tokens"] = self.reasoning_tokens
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Usage:
        return cls(
            int(data.get("input_tokens", 0)),
            int(data.get("output_tokens", 0)),
            int(data.get("cache_read_tokens", 0)),
            int(data.get("cache_write_tokens", 0)),
            int(data.get("reasoning_tokens", 0)),
        )


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the model sees it: name, description, JSON schema of its input."""

    name: str
    description: str
    input_schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
