"""Claude Code's headless output: ``--output-format json`` and ``stream-json`` in its shapes.

Scripts, dashboards and the official Claude Agent SDK read these objects, so
the names and nesting are Claude Code's (``docs/headless.md`` lists every
field): a ``system``/``init`` line first, then ``assistant`` messages whose
``content`` holds ``text`` and ``tool_use`` blocks (``input`` an object), a
``user`` message with the ``tool_result`` of each call, ``stream_event`` lines
of the message as it streams (thinking, text, tool arguments; ``headless.partial``)
with ``--include-partial-messages``, and one ``result`` object
per prompt. Tools and their arguments carry Claude Code's names (``Bash``,
``file_path``), derived from each tool's ``ToolTraits``; a tool Claude Code
lacks keeps ours. ``session_id`` is on every line.

``ClaudeStream`` watches one agent's events for a whole process: ``begin``
starts a prompt's run, ``feed`` translates each event, ``finish`` returns the
result object. It never raises on an event it does not know: it skips it.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, AsyncGenerator, Callable, Mapping, Protocol, Sequence

from pseudoclaude import __version__
from pseudoclaude.agent import (
    AssistantMessage,
    ErrorEvent,
    Event,
    Progress,
    PromptChoice,
    SessionWriteFailed,
    Stop,
    TextDelta,
    ThinkingDelta,
    ToolCallFinished,
    ToolCallStarted,
    ToolInputDelta,
    ToolInputStart,
    UsageReport,
)
from pseudoclaude.headless.wire import (
    Write,
    call_arguments,
    claude_usage,
    result_content,
    thinking_block,
    usage_cost,
    usage_dict,
)
from pseudoclaude.headless.catalog import COMPACT, SlashCommand
from pseudoclaude.headless.partial import PartialMessage
from pseudoclaude.llm import Image, context_window, price_known

if TYPE_CHECKING:
    from pseudoclaude.agent import AgentFacts, ContextBreakdown, Current, Event, Extensions, McpControl
    from pseudoclaude.tools.permissions import PermissionMode
    from pseudoclaude.mcp_client import ServerView
    from pseudoclaude.tools import ToolTraits

CLAUDE_CODE_PROTOCOL = "2.0.0"
"""The Claude Code version whose headless protocol this speaks (reported as ``claude_code_version``)."""

STRUCTURED_TOOL = "structured_output"

TERMINAL_REASONS: Mapping[str, str] = {
    "end_turn": "completed",
    "max_turns": "max_turns",
    "max_budget": "budget_exhausted",
    "error": "api_error",
    "context_overflow": "prompt_too_long",
    "structured_output": "structured_output_retry_exhausted",
}
"""Our stop reasons as Claude Code's ``terminal_reason``; an interrupt is ``aborted_tools`` or ``aborted_streaming`` (a call open or not)."""

ABORTED_TOOL_RESULT = "[Request interrupted by user for tool use]"
"""What Claude Code puts in the ``tool_result`` of a call an interrupt cut off."""

RESULT_SUBTYPES: Mapping[str, str] = {
    "end_turn": "success",
    "max_turns": "error_max_turns",
    "max_budget": "error_max_budget_usd",
    "interrupted": "error_during_execution",
    "error": "error_during_execution",
    "context_overflow": "error_during_execution",
    "structured_output": "error_max_structured_output_retries",
}


@dataclass(frozen=True)
class HeadlessOptions:
    """Claude Code's headless flags that shape the protocol rather than the agent."""

    input_format: str = "text"
    include_partial: bool = False
    permission_prompt_tool: str | None = None
    prompt: PromptChoice = field(default_factory=PromptChoice)
    fork: bool = False
    session_id: str | None = None
    images: tuple[Image, ...] = ()
    """``-i/--image`` files, checked and fitted before any request; they ride on the ``-p`` prompt."""
    json_schema: Mapping[str, object] | None = None
    """``--json-schema`` (the SDK's ``output_format``), checked: the run must end with a matching ``structured_output``."""
    agents: Mapping[str, object] | None = None
    """``--agents`` JSON: sub-agent types added to the ``task`` tool's (the SDK sends its ``agents=`` in ``initialize`` instead)."""
    replay_user_messages: bool = False
    """``--replay-user-messages``: echo each stdin ``user`` line back (``isReplay``) when its run starts."""
    allow_bypass: bool = False
    """``--allow-dangerously-skip-permissions``: ``set_permission_mode`` may switch to bypass later (loosens nothing itself)."""


class ToolDeclarations(Protocol):
    """The session's tool declarations (``agent.Extensions``): Claude Code's names live there."""

    def tool_traits(self) -> Mapping[str, ToolTraits]: ...


class ServerList(Protocol):
    """The session's MCP servers and their state (``agent.McpControl``)."""

    def servers(self) -> tuple[ServerView, ...]: ...


class StreamAgent(Protocol):
    """What the printer reads of the agent (``agent.Agent`` satisfies it)."""

    @property
    def facts(self) -> AgentFacts: ...
    @property
    def current(self) -> Current: ...
    @property
    def extensions(self) -> ToolDeclarations: ...
    @property
    def mcp(self) -> ServerList: ...


class DrivenAgent(StreamAgent, Protocol):
    """What the stdin driver (``driver.py``) needs of the agent besides what the printer reads (``agent.Agent`` satisfies it)."""

    def run(
        self, prompt: str | None, *, images: Sequence[Image] = (), model: str | None = None, allowed_tools: Sequence[str] = ()
    ) -> AsyncGenerator[Event, None]: ...
    def compact(self, instructions: str | None = None) -> AsyncGenerator[Event, None]: ...
    def set_mode(self, mode: PermissionMode) -> None: ...
    def set_model(self, model: str) -> None: ...
    def context_breakdown(self) -> ContextBreakdown: ...
    @property
    def extensions(self) -> Extensions: ...
    @property
    def mcp(self) -> McpControl: ...


def mcp_statuses(agent: StreamAgent) -> list[dict[str, str]]:
    """Claude Code's ``mcp_servers`` entries: ``connected``, ``pending`` or ``failed`` for each configured server."""
    status = {"ready": "connected", "starting": "pending"}
    return [{"name": view.name, "status": status.get(view.state, "failed")} for view in agent.mcp.servers()]


@dataclass
class _Run:
    """One prompt's run, as far as the events told it."""

    started: float = field(default_factory=time.monotonic)
    mark: float = field(default_factory=time.monotonic)
    api_seconds: float = 0.0
    turns: int = 0
    usage: dict[str, int] = field(default_factory=dict)
    denials: list[dict[str, object]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    calls: dict[str, tuple[str, Mapping[str, object]]] = field(default_factory=dict)
    finished: set[str] = field(default_factory=set)
    pending: AssistantMessage | None = None
    streaming: PartialMessage | None = None
    structured: object = None
    structured_given: bool = False
    stop: Stop | None = None


class ClaudeStream:
    """Translates one agent's events into Claude Code's stream-json objects, handed to ``write``.

    ``write`` is None for ``--output-format json``: the events are still watched
    (for the result's counters and denials) but nothing but the result is printed.
    """

    def __init__(
        self,
        agent: StreamAgent,
        write: Write | None,
        *,
        partial: bool = False,
        commands: Callable[[], Sequence[SlashCommand]] | None = None,
        agents: Callable[[], Sequence[str]] | None = None,
        structured: bool = False,
    ) -> None:
        self.agent = agent
        self.write = write
        self.partial = partial
        self.commands = commands or (lambda: (COMPACT,))
        """The slash commands a ``user`` line can run, asked anew for each ``init`` (MCP prompts appear once their servers are ready)."""
        self.agents = agents or (lambda: ())
        self.structured = structured
        """The caller asked for structured output (``--json-schema``): a run that ends without it is an error."""
        self.run = _Run()
        self.total_cost = 0.0
        self.model_usage: dict[str, dict[str, int]] = {}
        self.model_costs: dict[str, float] = {}
        """Each model's cost, summed call by call (a call's long-prompt surcharge cannot be told from summed tokens)."""
        self.session_usage: dict[str, int] = {}
        self.session_error: str | None = None
        """Why the session stopped being saved: every result from then on is an error (nothing of it can be resumed)."""

    # --- what the process prints besides events ---

    def init_event(self) -> dict[str, object]:
        """The ``system``/``init`` line: who answers, where, with which tools and mode."""
        traits = self.agent.extensions.tool_traits()
        return self._stamp(
            {
                "type": "system",
                "subtype": "init",
                "cwd": str(self.agent.facts.workspace),
                "tools": [t.claude_name(name) for name, t in traits.items()],
                "mcp_servers": mcp_statuses(self.agent),
                "model": self.agent.current.model,
                "permissionMode": self.agent.current.mode.claude_name,
                "slash_commands": [command.name for command in self.commands()],
                "apiKeySource": "none",
                "output_style": "default",
                "agents": list(self.agents()),
                "skills": [],
                "plugins": [],
                "claude_code_version": CLAUDE_CODE_PROTOCOL,
                "pseudoclaude_version": __version__,
            }
        )

    def begin(self) -> None:
        """A new prompt's run starts: its counters start at zero."""
        self.run = _Run()

    def feed(self, event: Event) -> None:
        """Watch one event; print what Claude Code would print for it."""
        run = self.run
        if run.pending is not None and not isinstance(event, UsageReport):
            self._assistant(run.pending, None)
        if isinstance(event, (TextDelta, ThinkingDelta, ToolInputStart, ToolInputDelta)):
            self._partial(event)
        elif isinstance(event, AssistantMessage):
            run.api_seconds += time.monotonic() - run.mark
            run.turns += 1
            run.pending = event
        elif isinstance(event, UsageReport):
            self._usage(event)
        elif isinstance(event, ToolCallStarted):
            run.calls[event.call_id] = (event.name, event.arguments)
        elif isinstance(event, ToolCallFinished):
            self._tool_result(event)
        elif isinstance(event, Progress):
            self._progress(event)
        elif isinstance(event, ErrorEvent):
            run.errors.append(f"{event.error}: {event.message}")
        elif isinstance(event, SessionWriteFailed):
            self._write_failed(event)
        elif isinstance(event, Stop):
            run.stop = event

    def finish(self, *, interrupted: bool = False) -> dict[str, object]:
        """The ``result`` object of the run (also printed when ``write`` is set)."""
        run = self.run
        if run.pending is not None:
            self._assistant(run.pending, None)
        if run.streaming is not None:
            run.streaming.close([], None)
            run.streaming = None
        aborted = [call_id for call_id in run.calls if call_id not in run.finished] if interrupted else []
        for call_id in aborted:
            self._aborted_result(call_id)
        stop = run.stop
        reason: str = "interrupted" if interrupted else (stop.reason if stop is not None else "error")
        if reason == "end_turn" and self.structured and not run.structured_given:
            reason = "structured_output"
            run.errors.append("the model ended without a structured_output matching the schema")
        terminal = ("aborted_tools" if aborted else "aborted_streaming") if interrupted else TERMINAL_REASONS.get(reason, "api_error")
        subtype = RESULT_SUBTYPES.get(reason, "error_during_execution")
        errors = list(run.errors)
        if subtype != "success" and reason != "structured_output":
            errors.append(stop.message if stop is not None and stop.message else ("interrupted" if interrupted else "the run did not finish"))
        if self.session_error is not None:
            subtype = "error_during_execution"
            errors.append(self.session_error)
        result: dict[str, object] = {
            "type": "result",
            "subtype": subtype,
            "is_error": subtype != "success",
            "duration_ms": round((time.monotonic() - run.started) * 1000),
            "duration_api_ms": round(run.api_seconds * 1000),
            "num_turns": run.turns,
            "result": stop.final_text if stop is not None else "",
            "stop_reason": reason,
            "terminal_reason": terminal,
            "session_id": self.agent.facts.session_id,
            "total_cost_usd": round(self.total_cost, 6),
            "cost_unknown_models": [model for model in self.model_usage if not price_known(model)],
            "usage": claude_usage(run.usage),
            "modelUsage": {model: self._model_entry(model, usage) for model, usage in self.model_usage.items()},
            "permission_denials": list(run.denials),
            **({"structured_output": run.structured} if run.structured_given else {}),
            "turns": stop.turns if stop is not None else run.turns,
            "error": None if subtype == "success" else errors[-1],
            "session_usage": dict(self.session_usage),
            "session_error": self.session_error,
        }
        if subtype != "success":
            result["errors"] = errors
        result = self._stamp(result)
        self.emit(result)
        return result

    # --- translation ---

    def _write_failed(self, event: SessionWriteFailed) -> None:
        """The session is no longer saved: a ``system`` line now, an error result at the end."""
        self.session_error = event.message
        self.emit(self._stamp({"type": "system", "subtype": "session_write_failed", "path": event.path, "error": event.error, "message": event.message}))

    def _assistant(self, event: AssistantMessage, usage: UsageReport | None) -> None:
        self.run.pending = None
        blocks: list[dict[str, object]] = [block for part in event.thinking if (block := thinking_block(part))]
        blocks += [{"type": "text", "text": event.text}] if event.text else []
        for call in event.tool_calls:
            self.run.calls.setdefault(str(call.get("id", "")), (str(call.get("name", "")), call_arguments(call)))
            name, arguments = self._claude_call(str(call.get("name", "")), call_arguments(call))
            blocks.append({"type": "tool_use", "id": str(call.get("id", "")), "name": name, "input": arguments})
        stop_reason = "tool_use" if event.tool_calls else "end_turn"
        if self.run.streaming is not None:
            self.run.streaming.close([b for b in blocks if b["type"] == "tool_use"], stop_reason)
        self.run.streaming = None
        message = {
            "id": f"msg_{uuid.uuid4().hex[:24]}",
            "type": "message",
            "role": "assistant",
            "model": self.agent.current.model,
            "content": blocks,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": claude_usage(usage_dict(usage)),
        }
        self.emit(self._stamp({"type": "assistant", "message": message, "parent_tool_use_id": None}))

    def _usage(self, event: UsageReport) -> None:
        run, counts = self.run, usage_dict(event)
        for key, value in counts.items():
            run.usage[key] = run.usage.get(key, 0) + value
        model = self.agent.current.model
        per_model = self.model_usage.setdefault(model, {})
        for key, value in counts.items():
            per_model[key] = per_model.get(key, 0) + value
        cost = usage_cost(model, counts)
        self.total_cost += cost
        self.model_costs[model] = self.model_costs.get(model, 0.0) + cost
        self.session_usage = dict(event.total)
        if run.pending is not None:
            self._assistant(run.pending, event)
        run.mark = time.monotonic()

    def _aborted_result(self, call_id: str) -> None:
        """The ``tool_result`` of a call an interrupt cut off (the runner records its own "interrupted" result in the session)."""
        self.run.finished.add(call_id)
        block = {"type": "tool_result", "tool_use_id": call_id, "content": ABORTED_TOOL_RESULT, "is_error": True}
        self.emit(
            self._stamp(
                {
                    "type": "user",
                    "message": {"role": "user", "content": [block]},
                    "parent_tool_use_id": None,
                    "tool_use_result": {"summary": "interrupted", "interrupted": True},
                }
            )
        )

    def needs_structured_output(self) -> bool:
        """The run ended well but without the structured output the caller asked for (the driver nudges the model)."""
        stop = self.run.stop
        return self.structured and not self.run.structured_given and stop is not None and stop.reason == "end_turn"

    def _tool_result(self, event: ToolCallFinished) -> None:
        run = self.run
        run.finished.add(event.call_id)
        if event.name == STRUCTURED_TOOL and not event.is_error and "structured_output" in event.display:
            run.structured, run.structured_given = event.display["structured_output"], True
        name, arguments = run.calls.get(event.call_id, (event.name, {}))
        if event.denied:
            claude_name, claude_input = self._claude_call(name, arguments)
            run.denials.append({"tool_name": claude_name, "tool_use_id": event.call_id, "tool_input": claude_input})
        block = {"type": "tool_result", "tool_use_id": event.call_id, "content": result_content(event), "is_error": event.is_error}
        extra = {"images": [asdict(image) for image in event.images]} if event.images else {}
        self.emit(
            self._stamp(
                {
                    "type": "user",
                    "message": {"role": "user", "content": [block]},
                    "parent_tool_use_id": None,
                    "tool_use_result": {"summary": event.summary, **dict(event.display), **extra},
                }
            )
        )
        run.mark = time.monotonic()

    def _progress(self, event: Progress) -> None:
        if event.kind == "retry" and self.run.streaming is not None:
            self.run.streaming.close([], None)
            self.run.streaming = None
        if event.kind == "compacting" or (event.kind == "compact" and event.data.get("engine") == "native"):
            data = event.data  # ours announces a summary before it runs; the provider's is known once its block arrived
            boundary = {"trigger": data.get("trigger", "auto"), "pre_tokens": data.get("before_tokens", 0)}
            self.emit(self._stamp({"type": "system", "subtype": "compact_boundary", "compact_metadata": boundary}))
            return
        self.emit(self._stamp({"type": "system", "subtype": "notice", "kind": event.kind, "message": event.message, "data": dict(event.data)}))

    def _partial(self, event: TextDelta | ThinkingDelta | ToolInputStart | ToolInputDelta) -> None:
        """A piece of the message being written, as Claude Code's raw stream events (``headless.partial``)."""
        if not self.partial:
            return
        run = self.run
        if run.streaming is None:
            run.streaming = PartialMessage(self._stream_event, self.agent.current.model, self.agent.extensions.tool_traits())
        if isinstance(event, TextDelta):
            run.streaming.text(event.text)
        elif isinstance(event, ThinkingDelta):
            run.streaming.thinking(event.text)
        elif isinstance(event, ToolInputStart):
            run.streaming.tool_start(event)
        else:
            run.streaming.tool_delta(event)

    def _stream_event(self, event: dict[str, object]) -> None:
        self.emit(self._stamp({"type": "stream_event", "event": event, "parent_tool_use_id": None}))

    def _claude_call(self, name: str, arguments: Mapping[str, object]) -> tuple[str, dict[str, object]]:
        traits = self.agent.extensions.tool_traits().get(name)
        if traits is None:
            return name, dict(arguments)
        return traits.claude_name(name), traits.to_claude(arguments)

    def _model_entry(self, model: str, usage: Mapping[str, int]) -> dict[str, object]:
        return {
            "inputTokens": usage.get("input_tokens", 0),
            "outputTokens": usage.get("output_tokens", 0),
            "cacheReadInputTokens": usage.get("cache_read_tokens", 0),
            "cacheCreationInputTokens": usage.get("cache_write_tokens", 0),
            "webSearchRequests": 0,
            "costUSD": round(self.model_costs.get(model, 0.0), 6),
            "costKnown": price_known(model),
            "contextWindow": context_window(model, None),
        }

    def _stamp(self, data: dict[str, object]) -> dict[str, object]:
        return {**data, "session_id": self.agent.facts.session_id, "uuid": str(uuid.uuid4())}

    def emit(self, data: Mapping[str, object]) -> None:
        if self.write is not None:
            self.write(data)
