"""The parts of a session a front end drives, each owned by one object: ``Agent`` hands them out whole.

Before, the facade passed every one of their methods through (43 members);
now a front end asks ``agent.mcp.servers()`` or ``agent.extensions.add_tools``
and the facade keeps the session's life-cycle. Each part writes the runner
only through its methods (``Runner.set_tools``, its hooks, its queue).

- ``ToolSet``: the session's tools (built-in, added by a program, the MCP
  servers' as they come and go), the one writer of the runner's tool list;
- ``McpControl``: the MCP servers' start, state, prompts and drop-outs;
- ``Extensions``: what a program adds (the Agent SDK's hooks, tools, agents)
  and the tool declarations it reads;
- ``Memory``: the memory files and the instruction files loaded;
- ``BackgroundControl``: what a front end may do with the background commands
  (the ``BackgroundJobs`` itself, never its ``start``; ``NoBackground`` for a session without one).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Mapping, Protocol, Sequence

from pseudoclaude.agent.instructions import InstructionFile, Instructions
from pseudoclaude.agent.memory import MemoryFile, MemoryScope, MemoryStore, SavedFact
from pseudoclaude.tools import Tool, ToolTraits

if TYPE_CHECKING:
    from pseudoclaude.agent.hooks import HookCallback
    from pseudoclaude.agent.runner import Runner
    from pseudoclaude.agent.subagents import AgentDefinition
    from pseudoclaude.mcp_client import McpServers, Prepared, ServerView
    from pseudoclaude.tools import JobView, RunningCommand, SubagentType


class BackgroundControl(Protocol):
    """The session's background commands as a front end sees them (``/tasks``, Ctrl-B, the notices)."""

    def jobs(self) -> tuple[JobView, ...]:
        """The background commands, running or ended."""
        ...

    async def kill(self, job_id: str) -> JobView:
        """Stop a background command and its process group; ``KeyError`` names the known ids."""
        ...

    def running(self) -> tuple[RunningCommand, ...]:
        """The foreground commands running now, with their start."""
        ...

    def detach_foreground(self) -> int:
        """Ctrl-B: the running foreground commands go on in the background (their calls return); how many."""
        ...

    def take_notices(self) -> tuple[str, ...]:
        """Background commands that exited on their own since the last call, one line each."""
        ...


class NoBackground:
    """The background commands of a session without a shell: none, ever (``kill`` names why)."""

    def jobs(self) -> tuple[JobView, ...]:
        return ()

    async def kill(self, job_id: str) -> JobView:
        raise KeyError("no background commands in this session")

    def running(self) -> tuple[RunningCommand, ...]:
        return ()

    def detach_foreground(self) -> int:
        return 0

    def take_notices(self) -> tuple[str, ...]:
        return ()


class ToolSet:
    """The tools the next request lists: the session's own, then the ready MCP servers'."""

    def __init__(self, runner: Runner, mcp: McpServers | None) -> None:
        self._runner = runner
        self._mcp = mcp
        self._own = tuple(runner.tools.values())

    def add(self, tools: Sequence[Tool]) -> None:
        self._own = (*self._own, *tools)
        self.refresh()

    def refresh(self) -> None:
        self._runner.set_tools([*self._own, *(self._mcp.tools() if self._mcp is not None else ())])


class McpControl:
    """The session's MCP servers (none declared: every answer is empty and nothing starts)."""

    def __init__(self, servers: McpServers | None, tools: ToolSet) -> None:
        self._servers = servers
        self._tools = tools
        self._start: asyncio.Future[None] | None = None

    @property
    def declared(self) -> bool:
        return self._servers is not None

    def servers(self) -> tuple[ServerView, ...]:
        """The servers, their state and tools (``/mcp``)."""
        return self._servers.views() if self._servers is not None else ()

    def prompt_commands(self) -> list[tuple[str, str]]:
        """(name, help) of the servers' prompts as slash commands (``/mcp__<server>__<prompt>``), once they are ready."""
        return self._servers.prompt_commands() if self._servers is not None else []

    def begin(self) -> None:
        """Start the servers in the background now (the REPL, when a session opens); the first turn waits for them."""
        if self._servers is not None and self._start is None:
            self._start = asyncio.ensure_future(self._servers.start())

    async def start(self) -> tuple[str, ...]:
        """Start the servers if not yet (every turn calls it), ping the ready ones; one line for each newly failed."""
        if self._servers is None:
            return ()
        await self._servers.start()
        await self._servers.check_alive()
        return tuple(self.take_dropped(force=True))

    async def prepare(self, prompt: str) -> Prepared | None:
        """``prompt`` with a ``/mcp__server__prompt`` run and ``@server:uri`` resources attached (None: no servers)."""
        return await self._servers.prepare(prompt) if self._servers is not None else None

    def take_dropped(self, *, force: bool = False) -> list[str]:
        """One line for each server that dropped out since the last call; its tools leave the next request."""
        if self._servers is None:
            return []
        notices = self._servers.take_notices()
        if notices or force:
            self._tools.refresh()
        return notices

    async def aclose(self) -> None:
        if self._servers is not None:
            await self._servers.aclose()


class Extensions:
    """What a program adds to the session (the Agent SDK's ``hooks=``, tools, ``agents=``) and the declarations it reads."""

    def __init__(self, runner: Runner, tools: ToolSet) -> None:
        self._runner = runner
        self._tools = tools

    def add_hook_callbacks(self, event: str, matcher: str | None, callbacks: Mapping[str, HookCallback], timeout_s: float | None = None) -> None:
        """Hooks that are functions: they run where a configured command for ``event`` would."""
        self._runner.hooks.add_callbacks(event, matcher, callbacks, timeout_s)

    def add_tools(self, tools: Sequence[Tool]) -> None:
        """Tools added after start-up (the Agent SDK's structured output tool); the next request lists them."""
        self._tools.add(tools)

    def add_agents(self, definitions: Sequence[AgentDefinition]) -> None:
        """Sub-agent types a program defines (``agents=``, ``--agents``): the ``task`` tool offers them from the next request."""
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


class Memory:
    """The memory files (``/memory``, the REPL's ``#`` line) and the instruction files in the system prompt."""

    def __init__(self, store: MemoryStore | None, instructions: Instructions) -> None:
        self._store = store
        self._instructions = instructions

    def save(self, text: str, scope: MemoryScope = "project") -> SavedFact:
        """Save a fact; the next session's system prompt carries it."""
        if self._store is None:
            raise RuntimeError("this session has no memory store")
        return self._store.save(text, scope)

    def files(self) -> tuple[MemoryFile, ...]:
        """The user and project memory files, existing or not."""
        return self._store.files() if self._store is not None else ()

    def instruction_files(self) -> tuple[InstructionFile, ...]:
        """The instruction files in this session's system prompt, imports included."""
        return self._instructions.files
