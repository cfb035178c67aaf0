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

Effort = Literal["low", "medium", "high", "max"]
"""How hard the model should think; each adapter maps it to its own parameter (see the README)."""

EFFORTS: tuple[Effort, ...] = ("low", "medium", "high", "max")

ThinkingMode = Literal["adaptive", "disabled"]
"""``disabled``: never ask for reasoning, whatever the effort; ``adaptive``: ask for it (the effort decides how much)."""


@dataclass(frozen=True)
class ServerContext:
    """What a native context engine asks the provider to manage on its side (``llm/server_context.py``).

    ``compact_trigger``: summarize on the server once the prompt reaches this
    many input tokens, with ``compact_instructions``; ``clear_trigger``: clear
    old tool results from that many input tokens on, keeping the newest
    ``clear_keep`` tool uses and clearing only when at least ``clear_at_least``
    tokens go (a clear breaks the prompt cache); ``clear_exclude``: tools
    whose results are never cleared; ``clear_thinking``: the request thinks,
    so its older thinking blocks are managed too. None: not asked. An adapter
    sends only what the model supports (the rest is dropped, never a 400).
    """

    compact_trigger: int | None = None
    compact_instructions: str = ""
    clear_trigger: int | None = None
    clear_keep: int = 3
    clear_at_least: int = 0
    clear_exclude: tuple[str, ...] = ()
    clear_thinking: bool = False


@dataclass(frozen=True)
class Request:
    """Everything one model call needs, provider-neutral.

    ``system`` is the stable prefix (instructions, cached); ``system_suffix``
    holds what changes between turns (date, git status), sent after it so the
    cached prefix stays byte-identical. ``tool_choice`` "none" keeps the tools
    in the request (the cached prefix) while forbidding calls: the summary
    request sends the main loop's tools that way.

    Reasoning: ``effort`` (None: the provider's default, no reasoning
    parameter sent) and ``max_thinking_tokens`` (an explicit thinking budget,
    overriding what the effort maps to) ask for it; ``thinking`` "disabled"
    turns it off whatever they say. An adapter whose model does not take the
    setting drops it (the model table decides), never sending a 400-bound request.
    """

    model: str
    system: str
    messages: Sequence[Message]
    tools: Sequence[ToolSpec] = ()
    max_tokens: int = 8192
    system_suffix: str = ""
    tool_choice: ToolChoice = "auto"
    effort: Effort | None = None
    max_thinking_tokens: int | None = None
    thinking: ThinkingMode | None = None
    server_context: ServerContext | None = None

    @property
    def wants_thinking(self) -> bool:
        """Whether this request asks for reasoning at all."""
        if self.thinking == "disabled":
            return False
        return self.thinking == "adaptive" or self.effort is not None or bool(self.max_thinking_tokens)


@dataclass(frozen=True)
class TextChunk:
    text: str


@dataclass(frozen=True)
class ThinkingChunk:
    """A piece of readable reasoning (thinking text or a reasoning summary) as it streams.

    Shown folded, never as answer text; the whole reasoning (with the opaque
    data the provider needs back) arrives on ``Completed.message.thinking``.
    """

    text: str


@dataclass(frozen=True)
class ToolCallStart:
    """The model began a tool call; its arguments are still streaming."""

    index: int
    id: str
    name: str


@dataclass(frozen=True)
class ToolArgsChunk:
    """A piece of a tool call's arguments JSON as the model writes it, after that call's ``ToolCallStart``.

    ``index`` and ``id`` are the ``ToolCallStart``'s. The pieces of one call
    concatenate to its ``ToolCall.arguments`` (an empty concatenation means
    ``{}``); they are for live display only, never stored.
    """

    index: int
    id: str
    fragment: str


@dataclass(frozen=True)
class ServerWork:
    """What the provider did to the context on its side during one response (a native context engine asked it).

    ``usage``: what a server-side compaction itself cost (Anthropic bills it
    apart from the response: already added into ``Completed.usage``, so the
    cost is whole; it is no measure of the context); ``edits``: (edit type,
    input tokens it cleared) for each edit applied.
    """

    usage: Usage = field(default_factory=Usage)
    edits: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Completed:
    """The stream finished: the whole assistant message and its usage (``server``: what the provider did to the context)."""

    message: Message
    usage: Usage = field(default_factory=Usage)
    stop_reason: str = "end_turn"
    server: ServerWork | None = None


@dataclass(frozen=True)
class UsageSoFar:
    """Usage the provider reported before the stream completed (Anthropic's ``message_start``).

    The input was billed as soon as the request was read: a stream the user
    interrupts is counted at what was reported, not at zero.
    """

    usage: Usage


StreamEvent = Union[TextChunk, ThinkingChunk, ToolCallStart, ToolArgsChunk, Completed, UsageSoFar]


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
