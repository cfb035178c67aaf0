"""The ReAct loop: manage context, call the model, run tools, append, repeat.

``Runner.run(prompt)`` is an async generator of events. Control flow that ends
a run is a ``Stop`` event; errors from the provider become an ``ErrorEvent``
and a ``Stop``. Cancelling the consuming task at any moment leaves the
conversation valid: the ``finally`` of a tool round gives every call a result,
and ``closure.repair`` runs on every request as a last line of defence.
The user's hooks are dispatched through ``self.hooks`` (``SessionHooks``): around
the prompt, each tool call (by wrapping the round's gate and tools) and the end
of a turn; compaction hooks fire in ``ContextStep``.
"""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import AsyncGenerator, Iterable, Mapping, Protocol, Sequence

from pseudoclaude.agent import events as ev
from pseudoclaude.agent.closure import normalize_call_ids, repair
from pseudoclaude.agent.contextstep import ContextEngine, ContextStep
from pseudoclaude.agent.hookgate import wrap_gate, wrap_tools
from pseudoclaude.agent.hooks import MAX_STOP_CONTINUATIONS, SessionHooks
from pseudoclaude.agent.toolexec import PermissionGate, RoundOutcome, run_round
from pseudoclaude.llm.errors import PromptTooLong, ProviderError, StreamCut
from pseudoclaude.llm.messages import Message, ToolSpec, Usage
from pseudoclaude.llm.provider import (
    Completed,
    Provider,
    Request,
    TextDelta,
    ToolCallStart,
)
from pseudoclaude.llm.retry import Retrying, RetryPolicy, stream_with_retry
from pseudoclaude.tools.base import Tool, ToolContext, spec_of
from pseudoclaude.tools.registry import ToolRegistry


class SessionRecorder(Protocol):
    """What the runner records; ``pseudoclaude.session.Session`` satisfies it."""

    def append_message(self, message: Message) -> None: ...
    def append_usage(self, usage: Usage, *, context_messages: int) -> None: ...
    def append_error(self, kind: str, message: str) -> None: ...
    def append_interrupt(self, reason: str = "user") -> None: ...
    def sync(self) -> None: ...


@dataclass(frozen=True)
class RunConfig:
    model: str
    system: str
    system_suffix: str = ""
    max_turns: int = 50
    max_tokens: int = 8192
    max_format_errors: int = 3
    retry: RetryPolicy = field(default_factory=RetryPolicy)


class Runner:
    """One conversation with one provider and a set of tools."""

    def __init__(
        self,
        *,
        provider: Provider,
        tools: Iterable[Tool],
        tool_context: ToolContext,
        config: RunConfig,
        session: SessionRecorder | None = None,
        context_step: ContextEngine | None = None,
        permissions: PermissionGate | None = None,
        conversation: Sequence[Message] = (),
        hooks: SessionHooks | None = None,
    ) -> None:
        self.provider = provider
        self.tools: Mapping[str, Tool] = ToolRegistry(tools).by_name()
        self.tool_specs: tuple[ToolSpec, ...] = tuple(spec_of(tool) for tool in self.tools.values())
        self.tool_context = tool_context
        self.config = config
        self.session = session
        self.context_step: ContextEngine = context_step or ContextStep()
        self.permissions = permissions
        self.hooks = hooks or SessionHooks(workspace=tool_context.workspace)
        self.conversation: list[Message] = list(conversation)
        self.usage_total = Usage()
        self._seen_ids = {c.id for m in self.conversation for c in m.tool_calls}
        self.pending_user_messages: list[str] = []  # typed while a turn runs; joins before the next model call

    def queue_user_message(self, text: str) -> None:
        """Text the user sent while a turn runs: it joins the conversation before the next model call."""
        self.pending_user_messages.append(text)

    async def run(self, prompt: str | None) -> AsyncGenerator[ev.Event, None]:
        """Answer ``prompt``, using tools, until the model stops or the turn limit is reached.

        ``None`` finishes an unfinished turn instead (a resumed session whose
        process died while the model owed an answer); with nothing owed it
        stops at once.
        """
        if prompt is not None:
            submitted = await self.hooks.submit(prompt)
            for event in submitted.events:
                yield event
            if submitted.text is None:
                yield ev.Stop("error", self._last_text(), 0, submitted.reason)
                return
            self._append(Message.user(submitted.text))
        else:
            for event in await self.hooks.start():
                yield event
            if not self.owes_answer():
                yield ev.Stop("end_turn", self._last_text(), 0, "nothing to continue: the last turn was complete")
                return
        turns, format_errors, continuations = 0, 0, 0
        try:
            while True:
                if turns >= self.config.max_turns:
                    yield ev.Stop("max_turns", self._last_text(), turns, f"stopped after {turns} turns (--max-turns)")
                    return
                turns += 1
                completed: list[Completed] = []
                async with aclosing(self._model_turn(completed)) as stream:
                    async for event in stream:
                        yield event
                message = completed[0].message
                if not message.tool_calls and self.pending_user_messages:
                    continue
                if not message.tool_calls:
                    goes_on: list[bool] = []
                    async with aclosing(self._stop_hook(message, continuations, goes_on)) as stream:
                        async for event in stream:
                            yield event
                    if goes_on:
                        continuations += 1
                        continue
                    yield ev.Stop("end_turn", message.text, turns)
                    return
                outcome = RoundOutcome()
                async with aclosing(self._tool_round(message, outcome)) as stream:
                    async for event in stream:
                        yield event
                halted = self.hooks.take_halt()
                if halted:
                    yield ev.Stop("end_turn", self._last_text(), turns, f"stopped by a hook: {halted}")
                    return
                format_errors = format_errors + 1 if outcome.format_errors else 0
                if format_errors >= self.config.max_format_errors:
                    text = f"stopped: the model sent malformed tool calls {format_errors} turns in a row"
                    self._record_error("format_errors", text)
                    yield ev.ErrorEvent("FormatErrors", text)
                    yield ev.Stop("error", self._last_text(), turns, text)
                    return
        except _RunFailed as failure:
            self._record_error(type(failure.error).__name__, failure.error.message)
            yield ev.ErrorEvent(type(failure.error).__name__, failure.error.message, failure.error.retryable)
            yield ev.Stop(failure.reason, self._last_text(), turns, failure.error.message)
        except (asyncio.CancelledError, GeneratorExit):
            if self.session is not None:
                self.session.append_interrupt("user")
            raise
        finally:
            if self.session is not None:
                self.session.sync()

    async def compact(self, instructions: str | None = None) -> AsyncGenerator[ev.Event, None]:
        """``/compact``: force a summary now (Layer 1 first), then stop."""
        for event in await self.hooks.start():
            yield event
        try:
            async with aclosing(self.context_step.before_call(self, forced=True, instructions=instructions)) as stream:
                async for event in stream:
                    yield event
        finally:
            if self.session is not None:
                self.session.sync()
        yield ev.Stop("end_turn", "", 0, "compacted")

    async def _stop_hook(self, message: Message, continuations: int, goes_on: list[bool]) -> AsyncGenerator[ev.Event, None]:
        """The ``Stop`` hook after a normal end of turn; a block appends its reason as the next user message."""
        verdict = await self.hooks.stop(message.text, active=continuations > 0)
        for event in verdict.events:
            yield event
        if not verdict.blocked or verdict.halt:
            return
        if continuations >= MAX_STOP_CONTINUATIONS:
            yield ev.Progress("warning", f"a Stop hook asked to continue again; stopping after {continuations} continuations")
            return
        reason = verdict.reason or "Continue."
        yield ev.Progress("hook", f"a Stop hook asked to continue: {reason}", {"event": "Stop", "reason": reason})
        self._append(Message.user(f"[Stop hook] {reason}"))
        goes_on.append(True)

    async def _model_turn(self, completed: list[Completed]) -> AsyncGenerator[ev.Event, None]:
        """Manage context, then stream one model response; recover once from an overflow."""
        while self.pending_user_messages:
            self._append(Message.user(self.pending_user_messages.pop(0)))
        async with aclosing(self.context_step.before_call(self, forced=False)) as stream:
            async for event in stream:
                yield event
        try:
            async with aclosing(self._stream(completed)) as stream:
                async for event in stream:
                    yield event
        except _RunFailed as failure:
            if not isinstance(failure.error, PromptTooLong) or not self.context_step.can_recover:
                raise
            limit = failure.error.limit_tokens
            learned = f"; its window is {limit} tokens, budgeting against that from now on" if self.context_step.learn_window(limit) else ""
            yield ev.Progress("overflow", f"the provider said the prompt is too long{learned}; compacting and retrying once")
            async with aclosing(self.context_step.before_call(self, forced=True)) as stream:
                async for event in stream:
                    yield event
            if not self.context_step.shrank():
                raise _RunFailed(failure.error, "context_overflow")
            try:
                async with aclosing(self._stream(completed)) as stream:
                    async for event in stream:
                        yield event
            except _RunFailed as again:
                raise _RunFailed(again.error, "context_overflow") from None

    async def _stream(self, completed: list[Completed]) -> AsyncGenerator[ev.Event, None]:
        request = self.build_request()
        try:
            async with aclosing(stream_with_retry(self.provider, request, self.config.retry)) as items:
                async for item in items:
                    if isinstance(item, TextDelta):
                        yield ev.TextDelta(item.text)
                    elif isinstance(item, Retrying):
                        yield ev.Progress(
                            "retry",
                            f"{type(item.error).__name__}: {item.error.message}; retrying in {item.delay:.1f}s "
                            f"(attempt {item.attempt + 1} of {item.max_attempts})",
                            {"attempt": item.attempt + 1, "delay": item.delay, "error": type(item.error).__name__},
                        )
                    elif isinstance(item, ToolCallStart):
                        continue
                    elif isinstance(item, Completed):
                        completed.append(item)
        except ProviderError as error:
            raise _RunFailed(error, "error") from None
        if not completed:
            raise _RunFailed(StreamCut("the provider's stream ended without a complete message"), "error")
        done = completed[-1]
        message = normalize_call_ids(done.message, self._seen_ids)
        completed[:] = [Completed(message, done.usage, done.stop_reason)]
        self.usage_total = self.usage_total + done.usage
        self.context_step.after_call(done.usage, len(self.conversation))
        if self.session is not None:
            self.session.append_usage(done.usage, context_messages=len(self.conversation))
        self._append(message)
        yield ev.AssistantMessage(message.text, tuple(call.to_dict() for call in message.tool_calls))
        usage = done.usage
        yield ev.UsageReport(usage.input_tokens, usage.output_tokens, usage.cache_read_tokens, usage.cache_write_tokens, self.usage_total.to_dict())

    async def _tool_round(self, message: Message, outcome: RoundOutcome) -> AsyncGenerator[ev.Event, None]:
        queue: asyncio.Queue[ev.Event] = asyncio.Queue()

        async def emit(event: ev.Event) -> None:
            queue.put_nowait(event)

        tools, gate = wrap_tools(self.tools, self.hooks, emit), wrap_gate(self.permissions, self.hooks, emit)
        task = asyncio.ensure_future(run_round(message.tool_calls, tools, self.tool_context, gate, emit, outcome))
        try:
            while not (task.done() and queue.empty()):
                getter = asyncio.ensure_future(queue.get())
                await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
                if getter.done():
                    yield getter.result()
                else:
                    getter.cancel()
            task.result()
        finally:
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
            for result in outcome.results:
                self._append(result)

    def build_request(self) -> Request:
        """The request the next model call sends: the repaired conversation, stable prefix first."""
        return Request(
            model=self.config.model,
            system=self.config.system,
            system_suffix="\n\n".join(part for part in (self.config.system_suffix, self._mode_instructions()) if part),
            messages=tuple(repair(self.conversation)),
            tools=self.tool_specs,
            max_tokens=self.config.max_tokens,
        )

    def _mode_instructions(self) -> str:
        """The permission mode's instructions: after the cached prefix, so switching modes keeps the cache."""
        return self.permissions.mode_instructions() if self.permissions is not None else ""

    def owes_answer(self) -> bool:
        """Whether the conversation ends where the model must speak next."""
        return bool(self.conversation) and (self.conversation[-1].role != "assistant" or bool(self.conversation[-1].tool_calls))

    def replace_conversation(self, conversation: Sequence[Message]) -> None:
        self.conversation = list(conversation)

    def _append(self, message: Message) -> None:
        self.conversation.append(message)
        if self.session is not None:
            self.session.append_message(message)

    def _record_error(self, kind: str, text: str) -> None:
        if self.session is not None:
            self.session.append_error(kind, text)

    def _last_text(self) -> str:
        for message in reversed(self.conversation):
            if message.role == "assistant" and message.text:
                return message.text
        return ""


class _RunFailed(Exception):
    def __init__(self, error: ProviderError, reason: ev.StopReason) -> None:
        super().__init__(error.message)
        self.error = error
        self.reason = reason

