"""The seam between the agent and a model service.

A provider turns one ``Request`` into a stream of ``StreamEvent``s. The last
event of a successful stream is always ``Completed``, carrying the whole
assistant message: the runner acts only on that, so text and tool-call
arguments that arrived before a cut are shown at most, never executed. Any
failure is raised as a ``ProviderError`` (see ``errors.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import AsyncGenerator, Literal, Protocol, Sequence, Union

from pseudoclaude.llm.messages import Message, ToolSpec, Usage

ToolChoice = Literal["auto", "none"]
"""Whether the model may call the request's tools (``auto``) or must answer in text (``none``)."""


@dataclass(frozen=True)
class Request:
    """Everything one model call needs, provider-neutral.

    ``system`` is the stable prefix (instructions, cached); ``system_suffix``
    holds what changes between turns (date, git status), sent after it so the
    cached prefix stays byte-identical. ``tool_choice`` "none" keeps the tools
    in the request (the cached prefix) while forbidding calls: the summary
    request sends the main loop's tools that way.
    """

    model: str
    system: str
    messages: Sequence[Message]
    tools: Sequence[ToolSpec] = ()
    max_tokens: int = 8192
    system_suffix: str = ""
    tool_choice: ToolChoice = "auto"


@dataclass(frozen=True)
class TextChunk:
    text: str


@dataclass(frozen=True)
class ToolCallStart:
    """The model began a tool call; its arguments are still streaming."""

    index: int
    id: str
    name: str


@dataclass(frozen=True)
class Completed:
    """The stream finished: the whole assistant message and its usage."""

    message: Message
    usage: Usage = field(default_factory=Usage)
    stop_reason: str = "end_turn"


StreamEvent = Union[TextChunk, ToolCallStart, Completed]


class Provider(Protocol):
    """A model service. Implementations: ``AnthropicProvider``, ``OpenAIProvider``."""

    name: str
    model: str

    def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        """Stream one response; raise ``ProviderError`` on any failure."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...
