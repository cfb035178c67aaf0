"""The ReAct loop: manage context, call the model, run tools, append, repeat.

``Runner.run(prompt)`` is an async generator of events. Control flow that ends
a run is a ``Stop`` event; errors from the provider become an ``ErrorEvent``
and a ``Stop``. Cancelling the consuming task at any moment leaves the
conversation valid: the ``finally`` of a tool round gives every call a result,
and ``closure.repair`` runs on every request as a last line of defence.

Before every model call the ``ContextEngine`` returns the conversation to send
(``ContextOutcome``); the runner applies it and shows what each layer did.
The steps of a turn are async generators of events whose last item is their
result (the assistant ``Message`` of a model turn, the ``RoundDone`` of a tool
round), so nothing comes back through mutable arguments. The user's hooks are
dispatched through ``self.hooks`` (``SessionHooks``): around the prompt, each
tool call (by wrapping the round's gate and tools), compaction and the end of
a turn.
"""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from dataclasses import dataclass
from typing import AsyncGenerator, Iterable, Mapping, Sequence

from pseudoclaude.agent import events as ev
from pseudoclaude.agent.cost import Spent
from pseudoclaude.agent.closure import normalize_call_ids, repair
from pseudoclaude.agent.context import ContextEngine, NoCompaction, PrepareRequest, outcome_events
from pseudoclaude.agent.hooks.gate import wrap_gate, wrap_tools
from pseudoclaude.agent.hooks import MAX_STOP_CONTINUATIONS, SessionHooks
from pseudoclaude.agent.recording import SessionRecorder
from pseudoclaude.agent.runconfig import RunConfig, limit_stop, limit_warnings, run_cost_usd
from pseudoclaude.agent.streaming import INTERRUPTED_BY_USER, RunFailed, drain, interrupt_cause, stream_event
from pseudoclaude.agent.toolexec import Permissions, ToolRound
from pseudoclaude.compact import ContextOutcome, Trigger
from pseudoclaude.llm import (
    Completed,
    Image,
    Message,
    PromptTooLong,
    PromptTruncated,
    Provider,
    ProviderError,
    Request,
    Retrying,
    StreamCut,
    TextChunk,
    ToolSpec,
    Usage,
    UsageSoFar,
    explained,
    stream_with_retry,
    supports_vision,
)
from pseudoclaude.tools import OutputBudget, Tool, ToolContext, ToolRegistry, spec_of


@dataclass(frozen=True)
class RoundDone:
    """The last item of a tool round: how many calls had malformed arguments."""

    format_errors: int


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
        self.provider = provider
        self.tools: Mapping[str, Tool] = ToolRegistry(tools).by_name()
        self.tool_specs: tuple[ToolSpec, ...] = tuple(spec_of(tool) for tool in self.tools.values())
        self.tool_context = tool_context
        self.config = config
        self.session = session
        self.context: ContextEngine = context or NoCompaction()
        self.permissions = permissions
        self.hooks = hooks or SessionHooks(workspace=tool_context.workspace)
        self.conversation: list[Message] = list(conversation)
        self.usage_total = usage_total
        self.spent = spent
        self.request_tokens = 0
        """The estimated input of the model call in flight (0 between calls): the status line's ↑ while a reply streams."""
        self.run_usage = Usage()
        self._seen_ids = {c.id for m in self.conversation for c in m.tool_calls}
        self._pending: list[str] = []
        self._partial: list[str] = []
        self._reported: Usage | None = None

    def set_tools(self, tools: Iterable[Tool]) -> None:
        """Replace the tool set (MCP servers arriving or failing); the next request sends the new list."""
        self.tools = ToolRegistry(tools).by_name()
        self.tool_specs = tuple(spec_of(tool) for tool in self.tools.values())

    def queue_user_message(self, text: str) -> None:
        """Text the user sent while a turn runs: it joins the conversation before the next model call."""
        self._pending.append(text)

    def queued_messages(self) -> tuple[str, ...]:
        """Messages queued and not sent yet."""
        return tuple(self._pending)

    def take_queued_messages(self) -> list[str]:
        """Queued text that no model call took (the turn ended first): the caller keeps it as a draft."""
        taken, self._pending = self._pending, []
        return taken

    async def run(self, prompt: str | None, images: Sequence[Image] = ()) -> AsyncGenerator[ev.Event, None]:
        """Answer ``prompt`` (and the ``images`` attached to it), using tools, until the model stops or the turn limit is reached.

        ``None`` finishes an unfinished turn instead (a resumed session whose
        process died while the model owed an answer); with nothing owed it
        stops at once.
        """
        self.run_usage = Usage()
        events, stop = await self._open_turn(prompt, tuple(images))
        for event in events:
            yield event
        if stop is not None:
            yield stop
            return
        stopped = False
        try:
            async with aclosing(self._loop()) as stream:
                async for event in stream:
                    stopped = isinstance(event, ev.Stop)
                    yield event
        except (asyncio.CancelledError, GeneratorExit) as cut:
            if not stopped:  # a consumer closing the stream after the Stop interrupted nothing
                self._record_interrupt(interrupt_cause(cut))
            raise
        finally:
            if self.session is not None:
                self.session.sync()

    def _record_interrupt(self, cause: str) -> None:
        """Keep what the interrupted turn had said, and tell the model it was cut off (as Claude Code does).

        The partial reply joins the conversation (text only: a tool call that
        had not finished streaming is dropped, so no call is left without a
        result), then a user-side note naming the cause, so the next prompt is
        not merged into the interrupted one and the model knows what happened.
        """
        partial, self._partial = "".join(self._partial), []
        if self._reported is not None:
            self._count_usage(self._reported)
            self._reported = None
        if partial.strip():
            self._append(Message.assistant(partial))
        self._append(Message.user(INTERRUPTED_BY_USER if cause == "user" else f"[Request interrupted: {cause}]"))
        if self.session is not None:
            self.session.append_interrupt(cause)

    async def compact(self, instructions: str | None = None) -> AsyncGenerator[ev.Event, None]:
        """``/compact``: force a summary now (the deterministic layers first), then stop."""
        for event in await self.hooks.start():
            yield event
        try:
            async with aclosing(self._prepare(forced=True, instructions=instructions)) as prepared:
                async for step in prepared:
                    if not isinstance(step, ContextOutcome):
                        yield step
        finally:
            if self.session is not None:
                self.session.sync()
        yield ev.Stop("end_turn", "", 0, "compacted")

    async def _open_turn(self, prompt: str | None, images: tuple[Image, ...] = ()) -> tuple[list[ev.Event], ev.Stop | None]:
        """The prompt through the ``UserPromptSubmit`` hooks (or a resumed turn's ``SessionStart``); a Stop when there is nothing to do."""
        if prompt is None:
            events = list(await self.hooks.start())
            if not self.owes_answer():
                return events, ev.Stop("end_turn", self._last_text(), 0, "nothing to continue: the last turn was complete")
            return events, None
        submitted = await self.hooks.submit(prompt)
        if submitted.text is None:
            return list(submitted.events), ev.Stop("error", self._last_text(), 0, submitted.reason)
        self._append(Message.user(submitted.text, images))
        return list(submitted.events), None

    async def _loop(self) -> AsyncGenerator[ev.Event, None]:
        """Model turns and tool rounds until a Stop; a provider failure ends as an error and a Stop."""
        turns, format_errors, continuations = 0, 0, 0
        for warning in limit_warnings(self.config):
            yield warning
        try:
            while (limited := self._limit_stop(turns)) is None:
                turns += 1
                message = Message.assistant("")
                async with aclosing(self._model_turn()) as stream:
                    async for item in stream:
                        if isinstance(item, Message):
                            message = item
                        else:
                            yield item
                if not message.tool_calls:
                    if self._pending:
                        continue
                    events, goes_on = await self._stop_hook(message, continuations)
                    for event in events:
                        yield event
                    if goes_on:
                        continuations += 1
                        continue
                    yield ev.Stop("end_turn", message.text, turns)
                    return
                done = RoundDone(0)
                async with aclosing(self._tool_round(message)) as round_stream:
                    async for step in round_stream:
                        if isinstance(step, RoundDone):
                            done = step
                        else:
                            yield step
                format_errors = format_errors + 1 if done.format_errors else 0
                ending = self._round_ending(turns, format_errors)
                for event in ending:
                    yield event
                if ending:
                    return
            yield limited
        except RunFailed as failure:
            self._record_error(type(failure.error).__name__, failure.error.message)
            yield ev.ErrorEvent(type(failure.error).__name__, failure.error.message, failure.error.retryable)
            yield ev.Stop(failure.reason, self._last_text(), turns, failure.error.message)

    def _limit_stop(self, turns: int) -> ev.Stop | None:
        return limit_stop(self.config, turns, self.run_usage, self._last_text())

    def run_cost_usd(self) -> float:
        """The estimated cost of this run's model calls (cache reads and writes at their prices)."""
        return run_cost_usd(self.config, self.run_usage)

    def _round_ending(self, turns: int, format_errors: int) -> list[ev.Event]:
        """The events that end the run after a tool round (a hook halted it, or too many malformed calls); none to go on."""
        halted = self.hooks.take_halt()
        if halted:
            return [ev.Stop("end_turn", self._last_text(), turns, f"stopped by a hook: {halted}")]
        if format_errors < self.config.max_format_errors:
            return []
        text = f"stopped: the model sent malformed tool calls {format_errors} turns in a row"
        self._record_error("format_errors", text)
        return [ev.ErrorEvent("FormatErrors", text), ev.Stop("error", self._last_text(), turns, text)]

    async def _stop_hook(self, message: Message, continuations: int) -> tuple[list[ev.Event], bool]:
        """The ``Stop`` hook after a normal end of turn: its events, and whether the run goes on.

        A block appends its reason as the next user message.
        """
        verdict = await self.hooks.stop(message.text, active=continuations > 0)
        events = list(verdict.events)
        if not verdict.blocked or verdict.halt:
            return events, False
        if continuations >= MAX_STOP_CONTINUATIONS:
            events.append(ev.Progress("warning", f"a Stop hook asked to continue again; stopping after {continuations} continuations"))
            return events, False
        reason = verdict.reason or "Continue."
        events.append(ev.Progress("hook", f"a Stop hook asked to continue: {reason}", {"event": "Stop", "reason": reason}))
        self._append(Message.user(f"[Stop hook] {reason}"))
        return events, True

    async def _model_turn(self) -> AsyncGenerator[ev.Event | Message, None]:
        """Manage context, then stream one model response (its ``Message`` last); recover once from an overflow."""
        while self._pending:
            self._append(Message.user(self._pending.pop(0)))
        self.tool_context.turn += 1
        async with aclosing(self._prepare(forced=False)) as prepared:
            async for step in prepared:
                if not isinstance(step, ContextOutcome):
                    yield step
        try:
            async with aclosing(self._stream()) as stream:
                async for item in stream:
                    yield item
        except RunFailed as failure:
            if not isinstance(failure.error, PromptTooLong) or not self.context.can_recover:
                raise
            limit = failure.error.limit_tokens
            learned = f"; its window is {limit} tokens, budgeting against that from now on" if self.context.learn_window(limit) else ""
            said = failure.error.message if isinstance(failure.error, PromptTruncated) else "the provider said the prompt is too long"
            yield ev.Progress("overflow", f"{said}{learned}; compacting and retrying once")
            changed = False
            async with aclosing(self._prepare(forced=True, trigger="overflow")) as prepared:
                async for step in prepared:
                    if isinstance(step, ContextOutcome):
                        changed = step.changed
                    else:
                        yield step
            if not changed:
                raise RunFailed(failure.error, "context_overflow") from None
            try:
                async with aclosing(self._stream()) as stream:
                    async for item in stream:
                        yield item
            except RunFailed as again:
                raise RunFailed(again.error, "context_overflow") from None

    async def _prepare(
        self, *, forced: bool, instructions: str | None = None, trigger: Trigger = "manual"
    ) -> AsyncGenerator[ev.Event | ContextOutcome, None]:
        """Ask the context engine what to send, apply it, and say what happened (its ``ContextOutcome`` last).

        Events stream while the engine works: the ``PreCompact`` hook's events
        and then the "compacting" notice reach the consumer (who has handled
        them when it asks for the next event) before the summary request is
        sent, not after it returns.
        """
        trigger = trigger if forced else "auto"
        queue: asyncio.Queue[ev.Event] = asyncio.Queue()

        async def before_summary(tokens: int) -> None:
            for event in await self.hooks.pre_compact(trigger, tokens, instructions):
                queue.put_nowait(event)
            notice = f"compacting the conversation ({tokens} tokens)..."
            queue.put_nowait(ev.Progress("compacting", notice, {"trigger": trigger, "before_tokens": tokens}))
            await queue.join()

        task = asyncio.ensure_future(
            self.context.prepare(
                PrepareRequest(tuple(self.conversation), forced, instructions, before_summary, self._request_for, trigger)
            )
        )
        try:
            async with aclosing(drain(queue, task)) as events:
                async for event in events:
                    yield event
            outcome = task.result()
        finally:
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        self.conversation = list(outcome.conversation)
        self.request_tokens = outcome.after_tokens
        if outcome.changed:
            self.tool_context.read_log.clear()
        if outcome.budget is not None:
            budget = outcome.budget
            self.tool_context.budget = OutputBudget(budget.inline_output_bytes, budget.read_page_bytes, budget.single_limit_bytes)
        for event in outcome_events(outcome):
            yield event
        if outcome.summarized:
            for event in await self.hooks.post_compact(trigger, outcome.before_tokens, outcome.after_tokens):
                yield event
        yield outcome

    async def _stream(self) -> AsyncGenerator[ev.Event | Message, None]:
        """One model call through the retry policy; the assistant message is appended, recorded and yielded last."""
        done: Completed | None = None
        self._partial = []
        try:
            async with aclosing(stream_with_retry(self.provider, self.build_request(), self.config.retry)) as items:
                async for item in items:
                    if isinstance(item, Completed):
                        done = item
                    elif isinstance(item, UsageSoFar):
                        self._reported = item.usage
                    elif (event := stream_event(item)) is not None:
                        if isinstance(item, Retrying):
                            self._partial, self._reported = [], None
                        elif isinstance(item, TextChunk):
                            self._partial.append(item.text)
                        yield event
        except ProviderError as error:
            raise RunFailed(explained(error, model=self.config.model, provider=self.provider.name), "error") from None
        if done is None:
            raise RunFailed(StreamCut("the provider's stream ended without a complete message"), "error")
        self._partial, self.request_tokens, self._reported = [], 0, None
        message, usage = normalize_call_ids(done.message, self._seen_ids), done.usage
        self._count_usage(usage)
        try:
            self.context.observe(usage, len(self.conversation))
        except PromptTooLong as truncated:  # a server that cut the prompt silently: its answer is never used
            raise RunFailed(truncated, "error") from None
        self._append(message)
        yield ev.AssistantMessage(
            message.text, tuple(call.to_dict() for call in message.tool_calls), tuple(t.to_dict() for t in message.thinking)
        )
        yield ev.UsageReport(
            usage.input_tokens, usage.output_tokens, usage.cache_read_tokens, usage.cache_write_tokens,
            self.usage_total.to_dict(), usage.reasoning_tokens,
        )
        yield message

    async def _tool_round(self, message: Message) -> AsyncGenerator[ev.Event | RoundDone, None]:
        """Run the message's tool calls, streaming their events; every call's result is appended, also when cancelled."""
        queue: asyncio.Queue[ev.Event] = asyncio.Queue()

        async def emit(event: ev.Event) -> None:
            queue.put_nowait(event)

        tools, gate = wrap_tools(self.tools, self.hooks, emit), wrap_gate(self.permissions, self.hooks, emit)
        self.tool_context.vision = supports_vision(self.config.model)
        tool_round = ToolRound(message.tool_calls, tools, self.tool_context, gate, emit)
        task = asyncio.ensure_future(tool_round.run())
        cause = "user"
        try:
            async with aclosing(drain(queue, task)) as events:
                async for event in events:
                    yield event
            format_errors = task.result()
        except (asyncio.CancelledError, GeneratorExit) as cut:
            cause = interrupt_cause(cut)
            raise
        finally:
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
            for result in tool_round.results(cause):
                self._append(result)
        yield RoundDone(format_errors)

    def build_request(self) -> Request:
        """The request the next model call sends: the repaired conversation, stable prefix first."""
        return self._request_for(self.conversation)

    def _request_for(self, conversation: Sequence[Message]) -> Request:
        """The request the main loop sends for ``conversation`` (the summary request reuses its prefix)."""
        return Request(
            model=self.config.model,
            system=self.config.system,
            system_suffix="\n\n".join(part for part in (self.config.system_suffix, self._mode_instructions()) if part),
            messages=tuple(repair(conversation)),
            tools=self.tool_specs,
            max_tokens=self.config.max_tokens,
            effort=self.config.effort,
            max_thinking_tokens=self.config.max_thinking_tokens,
            thinking=self.config.thinking,
        )

    def _mode_instructions(self) -> str:
        """The permission mode's instructions: after the cached prefix, so switching modes keeps the cache."""
        return self.permissions.mode_instructions() if self.permissions is not None else ""

    def owes_answer(self) -> bool:
        """Whether the conversation ends where the model must speak next."""
        return bool(self.conversation) and (self.conversation[-1].role != "assistant" or bool(self.conversation[-1].tool_calls))

    def _count_usage(self, usage: Usage) -> None:
        """Add one call's usage to the totals and the cost (at the price of the model that served it), and record it."""
        self.usage_total = self.usage_total + usage
        self.run_usage = self.run_usage + usage
        self.spent = self.spent.plus(self.config.model, usage)
        if self.session is not None:
            self.session.append_usage(usage, context_messages=len(self.conversation), model=self.config.model)

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


