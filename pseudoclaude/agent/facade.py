"""The agent as the terminal sees it: the whole contract of ``tui/`` and ``commands.py``.

``Agent`` keeps the session's life-cycle: it runs a prompt or a compaction
(one event stream each, ``streaming.event_stream``: the caller consumes it
and cancels the consuming task to interrupt), queues a message typed during
a turn, switches the model, effort and permission mode (the runner and the
policy apply the switch; the session records it), saves memory and closes.
Everything the terminal shows comes back as a frozen view built by its owner
(``views``: ``AgentStatus`` from the runner's snapshot, ``ContextBreakdown``
counted by the context engine, ``PermissionView`` from the policy; the
conversation as a tuple), so the terminal never walks into the runner, the
context engine or the permission policy, and those can change behind this
file. Nothing here writes the runner's state: it calls the runner's methods.

A run is a plain coroutine (``_turn``): the MCP servers' start and prompt
preparation, the runner's turn with the run's model and allowed tools as its
arguments, then the mode recorded; what the facade adds to the stream (a
session write failure, an MCP server dropping out) it adds by wrapping
``emit``, never by re-wrapping the stream.
"""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, AsyncGenerator, Mapping, Sequence

from pseudoclaude.agent.events import ErrorEvent, Event, Progress, SessionWriteFailed, Stop
from pseudoclaude.agent.instructions import InstructionFile, Instructions
from pseudoclaude.agent.memory import MemoryFile, MemoryScope, MemoryStore, SavedFact
from pseudoclaude.agent.streaming import Emit, event_stream
from pseudoclaude.agent.views import AgentStatus, ContextBreakdown, PermissionView
from pseudoclaude.llm import Effort, Image, Message
from pseudoclaude.sandbox import SandboxStatus
from pseudoclaude.tools import Tool, ToolTraits
from pseudoclaude.tools.permissions import PermissionMode, PermissionPolicy

if TYPE_CHECKING:
    from pseudoclaude.agent.hooks import HookCallback
    from pseudoclaude.agent.recording import AgentSession
    from pseudoclaude.agent.runner import Runner
    from pseudoclaude.agent.subagents import AgentDefinition
    from pseudoclaude.mcp_client import McpServers, ServerView
    from pseudoclaude.tools import BackgroundJobs, JobView, RunningCommand, SubagentType


END_HOOKS_WHEN_STOPPED_S = 0.25
"""How long the ``SessionEnd`` hooks may run when a signal ends the process (Claude Code gives them 1.5 s at any exit)."""


class Agent:
    """A runner bound to its session and permission policy; ``aclose()`` releases the session lock and connections."""

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
        self.sandbox = sandbox
        """What confines the model's commands (None: built without a sandbox decision, as in tests)."""
        self.sandbox_notice = sandbox_notice
        """One line for the front ends when no sandbox is available: why, and that the approval rules stay."""
        self._mcp = mcp
        self._mcp_start: asyncio.Future[None] | None = None
        self._builtin_tools = tuple(runner.tools.values())
        self._session = session
        self._policy = policy
        self._instructions = instructions
        self._memory = memory
        self.replay_warnings = replay_warnings
        self._failure_reported = False
        self._recorded_mode = policy.mode

    @property
    def session_id(self) -> str:
        return self._session.id

    @property
    def title(self) -> str | None:
        return self._session.title or None

    @property
    def system_prompt(self) -> str:
        """The stable system prompt this session sends (instructions and memory snapshot included)."""
        return self._runner.config.system

    @property
    def mode(self) -> PermissionMode:
        return self._policy.mode

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

    @property
    def model(self) -> str:
        return self._runner.config.model

    @property
    def workspace(self) -> Path:
        return self._runner.tool_context.workspace

    def set_model(self, model: str, provider: str = "") -> None:
        """Send the next model calls to ``model`` (same provider; the context budget keeps the session's window).

        The switch is recorded in the session with ``provider`` (the one that
        serves ``model`` after a provider switch), so a resume goes on with it.
        """
        self._runner.set_model(model)
        self._session.append_model(model, provider)

    def add_hook_callbacks(self, event: str, matcher: str | None, callbacks: Mapping[str, HookCallback], timeout_s: float | None = None) -> None:
        """Hooks that are functions (the Agent SDK's ``hooks=``): they run where a configured command for ``event`` would."""
        self._runner.hooks.add_callbacks(event, matcher, callbacks, timeout_s)

    def add_tools(self, tools: Sequence[Tool]) -> None:
        """Tools a front end adds after start-up (the Agent SDK's structured output tool); the next request lists them."""
        self._builtin_tools = (*self._builtin_tools, *tools)
        self._runner.set_tools([*self._builtin_tools, *(self._mcp.tools() if self._mcp is not None else ())])

    def add_agents(self, definitions: Sequence[AgentDefinition]) -> None:
        """Sub-agent types a program defines (the Agent SDK's ``agents=``, ``--agents``): the ``task`` tool offers them from the next request."""
        from pseudoclaude.agent.subagents import Subagents
        from pseudoclaude.tools import TaskTool

        task = self._runner.tools.get("task")
        if isinstance(task, TaskTool) and isinstance(task.subagents, Subagents):
            task.subagents.add(definitions)
            task.refresh()
            self._runner.set_tools(self._runner.tools.values())

    def agent_types(self) -> tuple[SubagentType, ...]:
        """The sub-agent types the ``task`` tool offers (none when the session has no ``task`` tool)."""
        from pseudoclaude.tools import TaskTool

        task = self._runner.tools.get("task")
        return tuple(task.subagents.types()) if isinstance(task, TaskTool) else ()

    def tool_traits(self) -> Mapping[str, ToolTraits]:
        """Each tool's declaration by our name, in the order the model sees them (Claude Code names live there)."""
        return {name: tool.traits for name, tool in self._runner.tools.items()}

    def set_mode(self, mode: PermissionMode) -> None:
        """Switch the permission mode; it applies from the next tool call on (recorded: a resume goes on in it)."""
        self._policy.mode = mode
        self._record_mode()

    def _record_mode(self) -> None:
        """Record the mode when it changed since last recorded (also by an approved plan, seen at the end of a run)."""
        if self._policy.mode is not self._recorded_mode and not self._session.closed:
            self._recorded_mode = self._policy.mode
            self._session.append_mode(self._policy.mode.value)

    @property
    def effort(self) -> Effort | None:
        """The effort the next model call asks for (None: the provider's default)."""
        return self._runner.config.effort

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

    def queue_message(self, text: str) -> None:
        """A message typed while a turn runs: it joins the conversation before the next model call."""
        self._runner.queue_user_message(text)

    def queued_messages(self) -> tuple[str, ...]:
        """Messages queued and not sent yet."""
        return self._runner.queued_messages()

    def take_queued_messages(self) -> tuple[str, ...]:
        """Remove and return the messages a turn ended without sending (they become the next prompt)."""
        return tuple(self._runner.take_queued_messages())

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

    def save_memory(self, text: str, scope: MemoryScope = "project") -> SavedFact:
        """Save a fact (the REPL's ``#`` line); the next session's system prompt carries it."""
        assert self._memory is not None
        return self._memory.save(text, scope)

    def memory_files(self) -> tuple[MemoryFile, ...]:
        """The user and project memory files (``/memory``), existing or not."""
        return self._memory.files() if self._memory is not None else ()

    def loaded_instruction_files(self) -> tuple[InstructionFile, ...]:
        """The instruction files in this session's system prompt, imports included."""
        return self._instructions.files

    @property
    def provider_name(self) -> str:
        """The provider the model calls go to (a resume may have switched it back to the one a ``/model`` chose)."""
        return self._runner.provider.name

    def request_tokens(self) -> int:
        """The estimated input of the request in flight, 0 between requests (cheap: the live view reads it every frame)."""
        return self._runner.request_tokens

    def status(self) -> AgentStatus:
        runner = self._runner
        return AgentStatus.of(
            runner.snapshot(), runner.context.status(runner.conversation), mode=self._policy.mode.value, session_id=self._session.id,
            sandbox=self._sandbox_status(),
        )

    def context_breakdown(self) -> ContextBreakdown:
        return ContextBreakdown.measure(
            self._runner.context, self._runner.snapshot(), instruction_files=self._instructions.files, spill_dir=self._session.spill_dir
        )

    def mcp_servers(self) -> tuple[ServerView, ...]:
        """The MCP servers of this session, their state and tools (``/mcp``)."""
        return self._mcp.views() if self._mcp is not None else ()

    def mcp_prompt_commands(self) -> list[tuple[str, str]]:
        """(name, help) of the MCP servers' prompts as slash commands (``/mcp__<server>__<prompt>``), once they are ready."""
        return self._mcp.prompt_commands() if self._mcp is not None else []

    def begin_mcp_servers(self) -> None:
        """Start the MCP servers in the background now (the REPL, when a session opens); the first turn waits for them."""
        if self._mcp is not None and self._mcp_start is None:
            self._mcp_start = asyncio.ensure_future(self._mcp.start())

    async def start_mcp_servers(self) -> tuple[str, ...]:
        """Start the MCP servers if not yet (every turn calls it), ping the ready ones; one line for each newly failed."""
        if self._mcp is None:
            return ()
        await self._mcp.start()
        await self._mcp.check_alive()
        return tuple(self._refresh_mcp_tools(force=True))

    def permissions(self) -> PermissionView:
        return self._policy.view()

    def background_jobs(self) -> tuple[JobView, ...]:
        """The session's background commands, running or ended (``/tasks``)."""
        return jobs.jobs() if (jobs := self._background()) is not None else ()

    async def kill_background(self, job_id: str) -> JobView:
        """Stop a background command and its process group; ``KeyError`` names the known ids."""
        jobs = self._background()
        if jobs is None:
            raise KeyError("no background commands in this session")
        return await jobs.kill(job_id)

    def running_commands(self) -> tuple[RunningCommand, ...]:
        """The foreground commands running now, with their start (the REPL shows their elapsed time)."""
        return jobs.running() if (jobs := self._background()) is not None else ()

    def send_to_background(self) -> int:
        """Ctrl-B: the running foreground commands go on in the background (their calls return); how many."""
        return jobs.detach_foreground() if (jobs := self._background()) is not None else 0

    def take_background_notices(self) -> tuple[str, ...]:
        """Background commands that exited on their own since the last call, one line each."""
        return jobs.take_notices() if (jobs := self._background()) is not None else ()

    async def aclose(self, end_reason: str = "other") -> None:
        """Stop the background commands, run the ``SessionEnd`` hooks, then release the provider and the session.

        A close that runs while its task is being cancelled (Ctrl-C, SIGTERM) is
        the process going away: the hooks get ``END_HOOKS_WHEN_STOPPED_S``, then
        they are stopped, so the terminal comes back at once.
        """
        try:
            self._record_mode()
            try:
                if (jobs := self._background()) is not None:
                    await jobs.aclose()
            finally:
                await self._end(end_reason)
        finally:
            self._session.close()

    async def _turn(
        self, prompt: str | None, images: Sequence[Image], model: str | None, allowed_tools: Sequence[str], emit: Emit
    ) -> Stop:
        """One run: the MCP servers started and the prompt prepared by them, then the runner's turn.

        ``/mcp__server__prompt`` runs the server's prompt, ``@server:uri``
        attaches a resource; a prompt command that cannot run ends the run
        with its reason. A server failing on the way is one warning and its
        tools go.
        """
        emit = self._reporting(emit)
        with self._policy.allowing(allowed_tools):
            if self._mcp is not None:
                for line in await self.start_mcp_servers():
                    await emit(Progress("warning", line))
                if prompt is not None:
                    prepared = await self._mcp.prepare(prompt)
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
            for line in self._refresh_mcp_tools():
                await emit(Progress("warning", line))

        return refreshing

    def _refresh_mcp_tools(self, *, force: bool = False) -> list[str]:
        assert self._mcp is not None
        notices = self._mcp.take_notices()
        if notices or force:
            self._runner.set_tools([*self._builtin_tools, *self._mcp.tools()])
        return notices

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
            if self._mcp is not None:
                await self._mcp.aclose()
            await self._runner.provider.aclose()

    def _background(self) -> BackgroundJobs | None:
        return self._runner.tool_context.background

    def _sandbox_status(self) -> SandboxStatus | None:
        sandbox = self._runner.tool_context.sandbox
        return sandbox.status if sandbox is not None else None
