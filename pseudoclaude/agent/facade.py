"""The agent as the terminal sees it: the whole contract of ``tui/`` and ``commands.py``.

``Agent`` keeps the session's life-cycle: it runs a prompt or a compaction
(one event stream each, ``streaming.event_stream``: the caller consumes it
and cancels the consuming task to interrupt), switches the model, effort and
permission mode (the runner and the policy apply the switch; the session
records it) and closes. Everything the terminal shows comes back as a frozen
view built by its owner (``views``: ``AgentStatus`` from the runner's
snapshot, ``ContextBreakdown`` counted by the context engine,
``PermissionView`` from the policy, ``AgentFacts`` and ``Current``; the
conversation as a tuple). The parts a front end drives are handed out whole
by their owners rather than passed through method by method: the runner's
``queue``, the ``background`` commands, and ``controls``' ``mcp``, ``memory``
and ``extensions``. So the terminal never walks into the runner, the context
engine or the permission policy, and those can change behind this file.
Nothing here writes the runner's state: it calls the runner's methods.

A run is a plain coroutine (``_turn``): the MCP servers' start and prompt
preparation, the runner's turn with the run's model and allowed tools as its
arguments, then the mode recorded; what the facade adds to the stream (a
session write failure, an MCP server dropping out) it adds by wrapping
``emit``, never by re-wrapping the stream.
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import TYPE_CHECKING, AsyncGenerator, Sequence

from pseudoclaude.agent.controls import BackgroundControl, Extensions, McpControl, Memory, NoBackground, ToolSet
from pseudoclaude.agent.events import ErrorEvent, Event, Progress, SessionWriteFailed, Stop
from pseudoclaude.agent.instructions import Instructions
from pseudoclaude.agent.memory import MemoryStore
from pseudoclaude.agent.message_queue import MessageQueue
from pseudoclaude.agent.streaming import Emit, event_stream
from pseudoclaude.agent.views import AgentFacts, AgentStatus, ContextBreakdown, Current, PermissionView
from pseudoclaude.llm import Effort, Image, Message
from pseudoclaude.sandbox import SandboxStatus
from pseudoclaude.tools.permissions import PermissionMode, PermissionPolicy

if TYPE_CHECKING:
    from pseudoclaude.agent.recording import AgentSession
    from pseudoclaude.agent.runner import Runner
    from pseudoclaude.mcp_client import McpServers


END_HOOKS_WHEN_STOPPED_S = 0.25
"""How long the ``SessionEnd`` hooks may run when a signal ends the process (Claude Code gives them 1.5 s at any exit)."""


class Agent:
    """A runner bound to its session and permission policy; ``aclose()`` releases the session lock and connections.

    Its public surface is pinned (``tests/agent/test_facade.py``): the
    life-cycle (``run``, ``compact``, ``aclose``), the three switches, the
    frozen views, and the parts a front end drives, each handed out whole by
    its owner (``queue``, ``background``, ``mcp``, ``memory``, ``extensions``).
    """

    def __init__(
        self,
        *,
        runner: Runner,
        session: AgentSession,
        policy: PermissionPolicy,
        replay_warnings: tuple[str, ...] = (),
        instructions: Instructions = Instructions(),
        memory: MemoryStore | None = None,
        mcp: McpServers | None = None,
        sandbox: SandboxStatus | None = None,
        sandbox_notice: str | None = None,
    ) -> None:
        self._runner = runner
        self._session = session
        self._policy = policy
        self._instructions = instructions
        self._failure_reported = False
        self._recorded_mode = policy.mode
        tools = ToolSet(runner, mcp)
        self.facts = AgentFacts(session.id, runner.tool_context.workspace, sandbox, sandbox_notice, replay_warnings, runner.config.system)
        self.mcp = McpControl(mcp, tools)
        self.memory = Memory(memory, instructions)
        self.extensions = Extensions(runner, tools)

    @property
    def current(self) -> Current:
        runner = self._runner
        return Current(runner.provider.name, runner.config.model, runner.config.effort, self._policy.mode, runner.request_tokens)

    @property
    def queue(self) -> MessageQueue:
        """Messages typed while a turn runs: they join the conversation before the next model call."""
        return self._runner.queue

    @property
    def background(self) -> BackgroundControl:
        """The session's background commands (``/tasks``, Ctrl-B); none started when the session has no shell."""
        return self._runner.tool_context.background or NoBackground()

    @property
    def write_failure(self) -> str | None:
        """Why the session file stopped being written (None while it is saved): later turns cannot be resumed."""
        failure = self._session.write_failure
        return failure.message if failure is not None else None

    def take_write_failure(self) -> SessionWriteFailed | None:
        """The session's write failure as an event, the first time it is asked for (the REPL asks at open, runs at every event)."""
        failure = self._session.write_failure
        if failure is None or self._failure_reported:
            return None
        self._failure_reported = True
        message = (
            f"the session can no longer be saved: {failure.action} of {failure.path} failed ({failure.reason}); "
            "the work goes on in memory, but nothing from here on can be resumed"
        )
        return SessionWriteFailed(str(failure.path), failure.reason, message)

    def set_model(self, model: str, provider: str = "") -> None:
        """Send the next model calls to ``model`` (same provider; the context budget keeps the session's window).

        The switch is recorded in the session with ``provider`` (the one that
        serves ``model`` after a provider switch), so a resume goes on with it.
        """
        self._runner.set_model(model)
        self._session.append_model(model, provider)

    def set_mode(self, mode: PermissionMode) -> None:
        """Switch the permission mode; it applies from the next tool call on (recorded: a resume goes on in it)."""
        self._policy.mode = mode
        self._record_mode()

    def set_effort(self, effort: Effort | None) -> None:
        """Switch the effort; it applies from the next model call on (thinking blocks already stored stay).

        The switch is recorded in the session, so a resume goes on with it."""
        self._runner.set_effort(effort)
        if not self._session.closed:
            self._session.append_effort(effort)

    def run(
        self, prompt: str | None, *, images: Sequence[Image] = (), model: str | None = None, allowed_tools: Sequence[str] = ()
    ) -> AsyncGenerator[Event, None]:
        """Run one prompt (None: finish an unfinished turn); the first prompt of a session becomes its title.

        ``images`` ride on the prompt's user message (already fitted: ``imaging``).
        ``model`` and ``allowed_tools`` (a custom command's front matter) hold for this run only.
        """
        if prompt is not None and not self._session.title:
            self._session.set_title(" ".join(prompt.split())[:80])
        return event_stream(partial(self._turn, prompt, images, model, allowed_tools))

    def compact(self, instructions: str | None = None) -> AsyncGenerator[Event, None]:
        """Summarize the conversation now (``/compact [focus instructions]``)."""
        return event_stream(partial(self._compaction, instructions))

    def conversation(self) -> tuple[Message, ...]:
        """The conversation as the model will see it next (the recap of a resumed session)."""
        return self._runner.conversation

    def transcript(self) -> tuple[bool, tuple[Message, ...]]:
        """What the user said and saw, for a recap: the conversation without a compaction's internal
        scaffolding (the summary, its acknowledgement, the reminder), and whether an earlier part was summarized."""
        from pseudoclaude.compact import history_after_meta

        conversation = self._runner.conversation
        rest = history_after_meta(conversation)
        return len(rest) != len(conversation), tuple(rest)

    def status(self) -> AgentStatus:
        runner = self._runner
        return AgentStatus.of(
            runner.snapshot(),
            runner.context.status(runner.conversation),
            mode=self._policy.mode.value,
            session_id=self._session.id,
            sandbox=self._sandbox_status(),
        )

    def context_breakdown(self) -> ContextBreakdown:
        return ContextBreakdown.measure(
            self._runner.context, self._runner.snapshot(), instruction_files=self._instructions.files, spill_dir=self._session.spill_dir
        )

    def permissions(self) -> PermissionView:
        return self._policy.view()

    async def aclose(self, end_reason: str = "other") -> None:
        """Stop the background commands, run the ``SessionEnd`` hooks, then release the provider and the session.

        A close that runs while its task is being cancelled (Ctrl-C, SIGTERM) is
        the process going away: the hooks get ``END_HOOKS_WHEN_STOPPED_S``, then
        they are stopped, so the terminal comes back at once.
        """
        try:
            self._record_mode()
            try:
                if (jobs := self._runner.tool_context.background) is not None:
                    await jobs.aclose()
            finally:
                await self._end(end_reason)
        finally:
            self._session.close()

    def _record_mode(self) -> None:
        """Record the mode when it changed since last recorded (also by an approved plan, seen at the end of a run)."""
        if self._policy.mode is not self._recorded_mode and not self._session.closed:
            self._recorded_mode = self._policy.mode
            self._session.append_mode(self._policy.mode.value)

    async def _turn(self, prompt: str | None, images: Sequence[Image], model: str | None, allowed_tools: Sequence[str], emit: Emit) -> Stop:
        """One run: the MCP servers started and the prompt prepared by them, then the runner's turn.

        ``/mcp__server__prompt`` runs the server's prompt, ``@server:uri``
        attaches a resource; a prompt command that cannot run ends the run
        with its reason. A server failing on the way is one warning and its
        tools go.
        """
        emit = self._reporting(emit)
        with self._policy.allowing(allowed_tools):
            if self.mcp.declared:
                for line in await self.mcp.start():
                    await emit(Progress("warning", line))
                if prompt is not None and (prepared := await self.mcp.prepare(prompt)) is not None:
                    for line in prepared.notices:
                        await emit(Progress("warning", line))
                    if prepared.refused is not None:
                        await emit(ErrorEvent("mcp_prompt", prepared.refused))
                        return await self._ended(Stop("error", message=prepared.refused), emit)
                    prompt, images = prepared.text, [*images, *prepared.images]
                emit = self._refreshing(emit)
            return await self._ended(await self._runner.turn(prompt, images, emit, model=model), emit)

    async def _compaction(self, instructions: str | None, emit: Emit) -> Stop:
        emit = self._reporting(emit)
        return await self._ended(await self._runner.compaction(instructions, emit), emit)

    async def _ended(self, stop: Stop, emit: Emit) -> Stop:
        """The run's Stop, after the mode it ended in is recorded and a write failure seen on the way is reported."""
        self._record_mode()
        if (failed := self.take_write_failure()) is not None:
            await emit(failed)
        return stop

    def _reporting(self, emit: Emit) -> Emit:
        """``emit``, preceded by a ``SessionWriteFailed`` as soon as the session's first write failure is seen."""

        async def reporting(event: Event) -> None:
            if (failed := self.take_write_failure()) is not None:
                await emit(failed)
            await emit(event)

        return reporting

    def _refreshing(self, emit: Emit) -> Emit:
        """``emit``, followed by a warning for each MCP server that dropped out meanwhile (its tools go)."""

        async def refreshing(event: Event) -> None:
            await emit(event)
            for line in self.mcp.take_dropped():
                await emit(Progress("warning", line))

        return refreshing

    async def _end(self, end_reason: str) -> None:
        try:
            task = asyncio.current_task()
            if task is None or not task.cancelling():
                await self._runner.hooks.end(end_reason)
            else:
                try:
                    async with asyncio.timeout(END_HOOKS_WHEN_STOPPED_S):
                        await self._runner.hooks.end(end_reason)
                except TimeoutError:
                    pass
        finally:
            await self.mcp.aclose()
            await self._runner.provider.aclose()

    def _sandbox_status(self) -> SandboxStatus | None:
        sandbox = self._runner.tool_context.sandbox
        return sandbox.status if sandbox is not None else None
