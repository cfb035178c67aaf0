"""The ReAct loop: manage context, call the model, run tools, append, repeat.

``Runner.turn(prompt, emit)`` answers one prompt: every step is a plain
coroutine that reports progress through ``emit`` and returns its result (the
assistant ``Message`` of a model turn, the number of malformed calls of a
tool round, the ``Stop`` of the run). ``Runner.run`` is the same turn as an
event stream (``streaming.event_stream``: one task, one stream). Errors from
the provider become an ``ErrorEvent`` and a ``Stop``. Cancelling the turn at
any moment leaves the conversation valid: a tool round's ``finally`` gives
every call a result, the interrupt is recorded as Claude Code does, and
``closure.repair`` runs on every request as a last line of defence.

Before every model call the ``ContextEngine`` returns the conversation to send
(``ContextOutcome``); the runner applies it and shows what each layer did.
The user's hooks are dispatched through ``hooks`` (``SessionHooks``): around
the prompt, each tool call (by wrapping the round's gate and tools),
compaction and the end of a turn.

Only the runner writes its state: the conversation, the totals and the
config are read through properties, changed through its methods
(``set_model``, ``set_effort``, ``add_usage``, ``set_tools``); a run's model
override is an argument of the run, never a write to the config.
"""

from __future__ import annotations

import asyncio
import dataclasses
from contextlib import aclosing
from functools import partial
from typing import AsyncGenerator, Iterable, Mapping, Sequence

from pseudoclaude.agent import events as ev
from pseudoclaude.agent.cost import Spent
from pseudoclaude.agent.closure import normalize_call_ids, repair
from pseudoclaude.agent.context import ContextEngine, NoCompaction, PrepareRequest, compactions, outcome_events
from pseudoclaude.agent.hooks.gate import wrap_gate, wrap_tools
from pseudoclaude.agent.hooks import MAX_STOP_CONTINUATIONS, SessionHooks
from pseudoclaude.agent.message_queue import MessageQueue
from pseudoclaude.agent.recording import SessionRecorder
from pseudoclaude.agent.runconfig import RunConfig, limit_stop, limit_warnings, run_cost_usd
from pseudoclaude.agent.streaming import (
    INTERRUPTED_BY_USER,
    Emit,
    ReplyInFlight,
    RunFailed,
    discard,
    event_stream,
    interrupt_cause,
)
from pseudoclaude.agent.toolexec import Permissions, ToolRound
from pseudoclaude.agent.views import RunnerSnapshot
from pseudoclaude.compact import ContextOutcome, Trigger
from pseudoclaude.llm import (
    Completed,
    Effort,
    Image,
    Message,
    PromptTooLong,
    PromptTruncated,
    Provider,
    ProviderError,
    Request,
    StreamCut,
    ToolSpec,
    Usage,
    explained,
    stream_with_retry,
    supports_vision,
)
from pseudoclaude.tools import OutputBudget, Tool, ToolContext, ToolRegistry, spec_of


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
        context: ContextEngine | None = None,
        permissions: Permissions | None = None,
        conversation: Sequence[Message] = (),
        hooks: SessionHooks | None = None,
        usage_total: Usage = Usage(),
        spent: Spent = Spent(),
    ) -> None:
        self._provider = provider
        self._tools: Mapping[str, Tool] = ToolRegistry(tools).by_name()
        self._tool_specs: tuple[ToolSpec, ...] = tuple(spec_of(tool) for tool in self._tools.values())
        self._tool_context = tool_context
        self._config = config
        self._model_override: str | None = None
        self._session = session
        self._context: ContextEngine = context or NoCompaction()
        self._permissions = permissions
        self._hooks = hooks or SessionHooks(workspace=tool_context.workspace)
        self._conversation: list[Message] = list(conversation)
        self._usage_total = usage_total
        self._spent = spent
        self._request_tokens = 0
        self._run_usage = Usage()
        self._seen_ids = {c.id for m in self._conversation for c in m.tool_calls}
        self._queue = MessageQueue()
        self._reply = ReplyInFlight()

    # --- What others read (never write). ---

    @property
    def provider(self) -> Provider:
        return self._provider

    @property
    def tools(self) -> Mapping[str, Tool]:
        return self._tools

    @property
    def tool_specs(self) -> tuple[ToolSpec, ...]:
        return self._tool_specs

    @property
    def tool_context(self) -> ToolContext:
        return self._tool_context

    @property
    def config(self) -> RunConfig:
        """The config in force: the session's, with the running turn's model when it overrides it."""
        if self._model_override is None:
            return self._config
        return dataclasses.replace(self._config, model=self._model_override)

    @property
    def context(self) -> ContextEngine:
        return self._context

    @property
    def hooks(self) -> SessionHooks:
        return self._hooks

    @property
    def conversation(self) -> tuple[Message, ...]:
        return tuple(self._conversation)

    @property
    def usage_total(self) -> Usage:
        return self._usage_total

    @property
    def spent(self) -> Spent:
        return self._spent

    @property
    def queue(self) -> MessageQueue:
        """Text the user sent while a turn runs: it joins the conversation before the next model call."""
        return self._queue

    @property
    def request_tokens(self) -> int:
        """The estimated input of the model call in flight (0 between calls): the status line's ↑ while a reply streams."""
        return self._request_tokens

    def snapshot(self) -> RunnerSnapshot:
        config = self.config
        return RunnerSnapshot(
            config.model,
            config.effort,
            config.system,
            config.system_suffix,
            tuple(self._conversation),
            self._tool_specs,
            self._usage_total,
            self._spent,
            self._request_tokens,
        )

    # --- What others may change. ---

    def set_tools(self, tools: Iterable[Tool]) -> None:
        """Replace the tool set (MCP servers arriving or failing); the next request sends the new list."""
        self._tools = ToolRegistry(tools).by_name()
        self._tool_specs = tuple(spec_of(tool) for tool in self._tools.values())

    def set_model(self, model: str) -> None:
        """Send the next model calls to ``model``."""
        self._config = dataclasses.replace(self._config, model=model)

    def set_effort(self, effort: Effort | None) -> None:
        """Ask for ``effort`` from the next model call on."""
        self._config = dataclasses.replace(self._config, effort=effort)

    def add_usage(self, usage: Usage) -> None:
        """A sub-run's usage: it counts towards the totals and this run's limits (its cost is recorded by its own session)."""
        self._usage_total = self._usage_total + usage
        self._run_usage = self._run_usage + usage

    # --- Runs. ---

    def run(self, prompt: str | None, images: Sequence[Image] = (), *, model: str | None = None) -> AsyncGenerator[ev.Event, None]:
        """``turn`` as an event stream: close it or cancel its consumer to interrupt."""
        return event_stream(partial(self.turn, prompt, images, model=model))

    def compact(self, instructions: str | None = None) -> AsyncGenerator[ev.Event, None]:
        """``compaction`` as an event stream."""
        return event_stream(partial(self.compaction, instructions))

    async def turn(self, prompt: str | None, images: Sequence[Image] = (), emit: Emit = discard, *, model: str | None = None) -> ev.Stop:
        """Answer ``prompt`` (and the ``images`` attached to it), using tools, until the model stops or the turn limit is reached.

        ``None`` finishes an unfinished turn instead (a resumed session whose
        process died while the model owed an answer); with nothing owed it
        stops at once. ``model`` holds for this run only (a custom command's).
        """
        self._run_usage = Usage()
        self._model_override = model
        try:
            stop = await self._open_turn(prompt, tuple(images), emit)
            if stop is not None:
                return stop
            try:
                return await self._loop(emit)
            except asyncio.CancelledError as cut:
                self._record_interrupt(interrupt_cause(cut))
                raise
            finally:
                if self._session is not None:
                    self._session.sync()
        finally:
            self._model_override = None

    async def compaction(self, instructions: str | None = None, emit: Emit = discard) -> ev.Stop:
        """``/compact``: force a summary now (the deterministic layers first), then stop."""
        for event in await self._hooks.start():
            await emit(event)
        try:
            await self._prepare(emit, forced=True, instructions=instructions)
        finally:
            if self._session is not None:
                self._session.sync()
        return ev.Stop("end_turn", "", 0, "compacted")

    def _record_interrupt(self, cause: str) -> None:
        """Keep (and bill: the provider charges a call cut off) what the interrupted turn had said, and tell the model so.

        The partial reply joins the conversation (text only: a tool call that
        had not finished streaming is dropped, so no call is left without a
        result), then a user-side note naming the cause, so the next prompt is
        not merged into the interrupted one and the model knows what happened.
        """
        partial_text, used = self._reply.take(self._request_tokens)
        if used is not None:
            self._count_usage(used)
        if partial_text.strip():
            self._append(Message.assistant(partial_text))
        self._append(Message.user(INTERRUPTED_BY_USER if cause == "user" else f"[Request interrupted: {cause}]"))
        if self._session is not None:
            self._session.append_interrupt(cause)

    async def _open_turn(self, prompt: str | None, images: tuple[Image, ...], emit: Emit) -> ev.Stop | None:
        """The prompt through the ``UserPromptSubmit`` hooks (or a resumed turn's ``SessionStart``); a Stop when there is nothing to do."""
        if prompt is None:
            for event in await self._hooks.start():
                await emit(event)
            if not self.owes_answer():
                return ev.Stop("end_turn", self._last_text(), 0, "nothing to continue: the last turn was complete")
            return None
        submitted = await self._hooks.submit(prompt)
        for event in submitted.events:
            await emit(event)
        if submitted.text is None:
            return ev.Stop("error", self._last_text(), 0, submitted.reason)
        self._append(Message.user(submitted.text, images))
        return None

    async def _loop(self, emit: Emit) -> ev.Stop:
        """Model turns and tool rounds until a Stop; a provider failure ends as an error and a Stop."""
        turns, format_errors, continuations = 0, 0, 0
        for warning in limit_warnings(self.config):
            await emit(warning)
        try:
            while (limited := self._limit_stop(turns)) is None:
                turns += 1
                message = await self._model_turn(emit)
                if not message.tool_calls:
                    if self._queue.pending():
                        continue
                    if await self._stop_hook(message, continuations, emit):
                        continuations += 1
                        continue
                    return ev.Stop("end_turn", message.text, turns)
                malformed = await self._tool_round(message, emit)
                format_errors = format_errors + 1 if malformed else 0
                if (ending := await self._round_ending(turns, format_errors, emit)) is not None:
                    return ending
            return limited
        except RunFailed as failure:
            self._record_error(type(failure.error).__name__, failure.error.message)
            await emit(ev.ErrorEvent(type(failure.error).__name__, failure.error.message, failure.error.retryable))
            return ev.Stop(failure.reason, self._last_text(), turns, failure.error.message)

    def _limit_stop(self, turns: int) -> ev.Stop | None:
        return limit_stop(self.config, turns, self._run_usage, self._last_text())

    def run_cost_usd(self) -> float:
        """The estimated cost of this run's model calls (cache reads and writes at their prices)."""
        return run_cost_usd(self.config, self._run_usage)

    async def _round_ending(self, turns: int, format_errors: int, emit: Emit) -> ev.Stop | None:
        """The Stop that ends the run after a tool round (a hook halted it, or too many malformed calls); None to go on."""
        halted = self._hooks.take_halt()
        if halted:
            return ev.Stop("end_turn", self._last_text(), turns, f"stopped by a hook: {halted}")
        if format_errors < self.config.max_format_errors:
            return None
        text = f"stopped: the model sent malformed tool calls {format_errors} turns in a row"
        self._record_error("format_errors", text)
        await emit(ev.ErrorEvent("FormatErrors", text))
        return ev.Stop("error", self._last_text(), turns, text)

    async def _stop_hook(self, message: Message, continuations: int, emit: Emit) -> bool:
        """The ``Stop`` hook after a normal end of turn: whether the run goes on.

        A block appends its reason as the next user message.
        """
        verdict = await self._hooks.stop(message.text, active=continuations > 0)
        for event in verdict.events:
            await emit(event)
        if not verdict.blocked or verdict.halt:
            return False
        if continuations >= MAX_STOP_CONTINUATIONS:
            await emit(ev.Progress("warning", f"a Stop hook asked to continue again; stopping after {continuations} continuations"))
            return False
        reason = verdict.reason or "Continue."
        await emit(ev.Progress("hook", f"a Stop hook asked to continue: {reason}", {"event": "Stop", "reason": reason}))
        self._append(Message.user(f"[Stop hook] {reason}"))
        return True

    async def _model_turn(self, emit: Emit) -> Message:
        """Manage context, then stream one model response and return it; recover once from an overflow."""
        for text in self._queue.take():
            self._append(Message.user(text))
        self._tool_context = self._tool_context.at(turn=self._tool_context.turn + 1)
        await self._prepare(emit, forced=False)
        try:
            return await self._stream(emit)
        except RunFailed as failure:
            if not isinstance(failure.error, PromptTooLong) or not self._context.can_recover:
                raise
            limit = failure.error.limit_tokens
            learned = f"; its window is {limit} tokens, budgeting against that from now on" if self._context.learn_window(limit) else ""
            said = failure.error.message if isinstance(failure.error, PromptTruncated) else "the provider said the prompt is too long"
            await emit(ev.Progress("overflow", f"{said}{learned}; compacting and retrying once"))
            if not (await self._prepare(emit, forced=True, trigger="overflow")).changed:
                raise RunFailed(failure.error, "context_overflow") from None
            try:
                return await self._stream(emit)
            except RunFailed as again:
                raise RunFailed(again.error, "context_overflow") from None

    async def _prepare(self, emit: Emit, *, forced: bool, instructions: str | None = None, trigger: Trigger = "manual") -> ContextOutcome:
        """Ask the context engine what to send, apply it, say what happened, and return its outcome.

        The ``PreCompact`` hook's events and then the "compacting" notice have been handled by the consumer
        (``emit`` returns then) before a summary request is sent, not after it returns; a compaction the engine
        adopts (the provider's) gets the hook alone, before it is applied. ``PostCompact`` follows each one.
        """
        trigger = trigger if forced else "auto"

        async def pre_compact(tokens: int) -> None:
            for event in await self._hooks.pre_compact(trigger, tokens, instructions):
                await emit(event)

        async def before_summary(tokens: int) -> None:
            await pre_compact(tokens)
            await emit(ev.Progress("compacting", f"compacting the conversation ({tokens} tokens)...", {"trigger": trigger, "before_tokens": tokens}))

        outcome = await self._context.prepare(
            PrepareRequest(tuple(self._conversation), forced, instructions, before_summary, self._request_for, trigger, pre_compact)
        )
        self._conversation = list(outcome.conversation)
        self._request_tokens = outcome.after_tokens
        if outcome.changed:
            self._tool_context.read_log.clear()
        if outcome.budget is not None:
            budget = outcome.budget
            self._tool_context = self._tool_context.at(budget=OutputBudget(budget.inline_output_bytes, budget.read_page_bytes, budget.single_limit_bytes))
        for event in outcome_events(outcome):
            await emit(event)
        for done in compactions(outcome, trigger):
            for event in await self._hooks.post_compact(done.trigger, done.before_tokens, done.after_tokens, done.summary):
                await emit(event)
        return outcome

    async def _stream(self, emit: Emit) -> Message:
        """One model call through the retry policy; the assistant message is appended, recorded and returned."""
        done: Completed | None = None
        self._reply.reset()
        try:
            async with aclosing(stream_with_retry(self._provider, self.build_request(), self.config.retry)) as items:
                async for item in items:
                    if isinstance(item, Completed):
                        done = item
                    elif (event := self._reply.see(item)) is not None:
                        await emit(event)
        except ProviderError as error:
            raise RunFailed(explained(error, model=self.config.model, provider=self._provider.name), "error") from None
        if done is None:
            raise RunFailed(StreamCut("the provider's stream ended without a complete message"), "error")
        self._reply.reset()
        self._request_tokens = 0
        message, usage = normalize_call_ids(done.message, self._seen_ids), done.usage
        self._count_usage(usage)
        try:
            self._context.observe(usage, len(self._conversation))
        except PromptTooLong as truncated:  # a server that cut the prompt silently: its answer is never used
            raise RunFailed(truncated, "error") from None
        self._append(message)
        await emit(ev.AssistantMessage(message.text, tuple(call.to_dict() for call in message.tool_calls), tuple(t.to_dict() for t in message.thinking)))
        await emit(
            ev.UsageReport(
                usage.input_tokens,
                usage.output_tokens,
                usage.cache_read_tokens,
                usage.cache_write_tokens,
                self._usage_total.to_dict(),
                usage.reasoning_tokens,
            )
        )
        return message

    async def _tool_round(self, message: Message, emit: Emit) -> int:
        """Run the message's tool calls and return how many were malformed; every call's result is appended, also when cancelled."""
        tools, gate = wrap_tools(self._tools, self._hooks, emit), wrap_gate(self._permissions, self._hooks, emit)
        self._tool_context = self._tool_context.at(vision=supports_vision(self.config.model))
        tool_round = ToolRound(message.tool_calls, tools, self._tool_context, gate, emit)
        cause = "user"
        try:
            return await tool_round.run()
        except asyncio.CancelledError as cut:
            cause = interrupt_cause(cut)
            raise
        finally:
            for result in tool_round.results(cause):
                self._append(result)

    def build_request(self) -> Request:
        """The request the next model call sends: the repaired conversation, stable prefix first."""
        return self._request_for(self._conversation)

    def _request_for(self, conversation: Sequence[Message]) -> Request:
        """The request the main loop sends for ``conversation`` (the summary request reuses its prefix)."""
        config = self.config
        return Request(
            model=config.model,
            system=config.system,
            system_suffix="\n\n".join(part for part in (config.system_suffix, self._mode_instructions()) if part),
            messages=tuple(repair(conversation)),
            tools=self._tool_specs,
            max_tokens=config.max_tokens,
            effort=config.effort,
            max_thinking_tokens=config.max_thinking_tokens,
            thinking=config.thinking,
        )

    def _mode_instructions(self) -> str:
        """The permission mode's instructions: after the cached prefix, so switching modes keeps the cache."""
        return self._permissions.mode_instructions() if self._permissions is not None else ""

    def owes_answer(self) -> bool:
        """Whether the conversation ends where the model must speak next."""
        return bool(self._conversation) and (self._conversation[-1].role != "assistant" or bool(self._conversation[-1].tool_calls))

    def _count_usage(self, usage: Usage) -> None:
        """Add one call's usage to the totals and the cost (at the price of the model that served it), and record it."""
        model = self.config.model
        self._usage_total = self._usage_total + usage
        self._run_usage = self._run_usage + usage
        self._spent = self._spent.plus(model, usage)
        if self._session is not None:
            self._session.append_usage(usage, context_messages=len(self._conversation), model=model)

    def _append(self, message: Message) -> None:
        self._conversation.append(message)
        if self._session is not None:
            self._session.append_message(message)

    def _record_error(self, kind: str, text: str) -> None:
        if self._session is not None:
            self._session.append_error(kind, text)

    def _last_text(self) -> str:
        for message in reversed(self._conversation):
            if message.role == "assistant" and message.text:
                return message.text
        return ""
