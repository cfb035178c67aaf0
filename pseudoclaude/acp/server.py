"""``pseudoclaude acp``: the Agent Client Protocol on stdio, so Zed, JetBrains and the Neovim/Emacs clients drive us natively.

Built on the official ``agent-client-protocol`` SDK (imported only here).
Each ACP session is one of our sessions (same id, same files, resumable from
the REPL), opened in the folder the editor names, with its settings and
trust exactly as a headless run there would have them. A prompt runs through
the ``Agent`` facade; its events become ``session/update`` notifications
(``mapping.py``), its permission questions ``session/request_permission``
(``approver.py``), and it answers with a stop reason: ``end_turn``,
``max_turn_requests`` (a turn or budget limit), ``cancelled`` after
``session/cancel`` (the runner closes every open call, so the session stays
valid). Modes are our permission modes; bypass is offered only when the
server was started with ``--allow-dangerously-skip-permissions``.

The protocol owns stdout: the real stdout is kept for it and file
descriptor 1 is pointed at stderr, so nothing else (a library's print, a
child process) can corrupt the stream.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from contextlib import aclosing
from dataclasses import dataclass
from datetime import timezone
from pathlib import Path
from typing import Any, TextIO

import acp
from acp import RequestError
from acp.schema import (
    AgentCapabilities,
    AuthenticateResponse,
    AvailableCommand,
    AvailableCommandInput,
    AvailableCommandsUpdate,
    Cost,
    CurrentModeUpdate,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    ResumeSessionResponse,
    SessionCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SessionMode,
    SessionModeState,
    SessionResumeCapabilities,
    SetSessionModeResponse,
    UnstructuredCommandInput,
    UsageUpdate,
)

from pseudoclaude import __version__
from pseudoclaude.acp.approver import AcpApprover, PermissionClient
from pseudoclaude.acp.history import prompt_parts, replayed
from pseudoclaude.acp.mapping import EventMapper
from pseudoclaude.agent import Agent, Stop, ToolCallFinished, build_agent
from pseudoclaude.config import ConfigError, Flags, PermissionMode, load_settings
from pseudoclaude.interrupts import Interrupted, run_until_signalled

_STOP_REASONS = {"end_turn": "end_turn", "max_turns": "max_turn_requests", "max_budget": "max_turn_requests", "interrupted": "cancelled"}
_MODE_TEXT = {
    PermissionMode.DEFAULT: ("Default", "Reads run freely; edits and commands ask first"),
    PermissionMode.ACCEPT_EDITS: ("Accept edits", "File edits in the workspace run without asking; commands still ask"),
    PermissionMode.PLAN: ("Plan", "Read-only investigation, then a plan to approve"),
    PermissionMode.BYPASS: ("Bypass", "No questions (the hard deny list, deny rules and the sandbox still hold)"),
}


@dataclass(frozen=True)
class AcpOptions:
    """The ``acp`` command's flags: they apply to every session the editor opens."""

    model: str | None = None
    provider: str | None = None
    permission_mode: str | None = None
    sessions_dir: Path | None = None
    trust_workspace: bool = False
    allow_bypass: bool = False
    sandbox: str | None = None


@dataclass
class _Session:
    agent: Agent
    mapper: EventMapper
    mode: PermissionMode
    turn: asyncio.Task[str] | None = None
    cancelled: bool = False


class PseudoClaudeAcp:
    """The ACP agent: sessions by id, one running prompt each."""

    def __init__(self, options: AcpOptions, err: TextIO) -> None:
        self.options = options
        self.err = err
        self.client: Any = None
        self.sessions: dict[str, _Session] = {}

    def on_connect(self, conn: Any) -> None:
        self.client = conn

    async def initialize(self, protocol_version: int, client_capabilities: Any = None, client_info: Any = None, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=min(protocol_version, acp.PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(image=True, embedded_context=True),
                mcp_capabilities=McpCapabilities(http=True, sse=True),
                session_capabilities=SessionCapabilities(list=SessionListCapabilities(), resume=SessionResumeCapabilities()),
            ),
            agent_info=Implementation(name="pseudoclaude", title="PseudoClaude", version=__version__),
            auth_methods=[],
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> AuthenticateResponse:
        return AuthenticateResponse()

    async def new_session(self, cwd: str, additional_directories: Any = None, mcp_servers: Any = None, **kwargs: Any) -> NewSessionResponse:
        session = self._open(cwd, None, mcp_servers)
        self._announce_commands(session)
        return NewSessionResponse(session_id=session.agent.facts.session_id, modes=self._modes(session.agent.current.mode))

    async def load_session(self, cwd: str, session_id: str, mcp_servers: Any = None, **kwargs: Any) -> LoadSessionResponse:
        session = self._open(cwd, session_id, mcp_servers)
        _, messages = session.agent.transcript()
        for update in replayed(messages, session.mapper):
            await self.client.session_update(session_id=session_id, update=update)
        self._announce_commands(session)
        return LoadSessionResponse(modes=self._modes(session.agent.current.mode))

    async def resume_session(self, cwd: str, session_id: str, mcp_servers: Any = None, **kwargs: Any) -> ResumeSessionResponse:
        session = self._open(cwd, session_id, mcp_servers)
        self._announce_commands(session)
        return ResumeSessionResponse(modes=self._modes(session.agent.current.mode))

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any) -> ListSessionsResponse:
        from pseudoclaude.config import resolve_sessions_dir
        from pseudoclaude.session import list_sessions

        folder = Path(cwd or os.getcwd())
        infos = list_sessions(resolve_sessions_dir(folder, self.options.sessions_dir), folder.resolve())
        return ListSessionsResponse(
            sessions=[
                SessionInfo(
                    session_id=info.id, cwd=info.cwd or str(folder), title=info.title or None, updated_at=info.updated.astimezone(timezone.utc).isoformat()
                )
                for info in infos
            ]
        )

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> SetSessionModeResponse:
        session = self._session(session_id)
        try:
            mode = PermissionMode.parse(mode_id)
        except ValueError as error:
            raise RequestError.invalid_params({"message": str(error)}) from None
        if mode is PermissionMode.BYPASS and mode not in self._available(session.mode):
            raise RequestError.invalid_params({"message": "bypass is off: start 'pseudoclaude acp' with --allow-dangerously-skip-permissions to offer it"})
        session.agent.set_mode(mode)
        session.mode = mode
        return SetSessionModeResponse()

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        session = self._session(session_id)
        if session.turn is not None and not session.turn.done():
            raise RequestError.invalid_request({"message": "a prompt is already running in this session"})
        try:
            text, images = prompt_parts(prompt)
        except ValueError as error:
            raise RequestError.invalid_params({"message": str(error)}) from None
        if not text and not images:
            raise RequestError.invalid_params({"message": "the prompt is empty"})
        session.cancelled = False
        turn = asyncio.ensure_future(self._run(session, text, images))
        session.turn = turn
        try:
            await asyncio.wait([turn])
        finally:
            session.turn = None
        await self._report_mode(session)
        if turn.cancelled() or session.cancelled:
            return PromptResponse(stop_reason="cancelled")
        return PromptResponse(stop_reason=turn.result())  # type: ignore[arg-type]

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None and session.turn is not None and not session.turn.done():
            session.cancelled = True
            session.turn.cancel()

    async def close_session(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.pop(session_id, None)
        if session is not None:
            await self.cancel(session_id)
            await session.agent.aclose()

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    async def aclose(self) -> None:
        for session_id in list(self.sessions):
            await self.close_session(session_id)

    async def _run(self, session: _Session, text: str, images: tuple[Any, ...]) -> str:
        """One prompt's run: its events to the editor; the ACP stop reason (an error is a JSON-RPC error)."""
        stop: Stop | None = None
        session_id = session.agent.facts.session_id
        command = text.strip()
        if not images and (command == "/compact" or command.startswith("/compact ")):
            run = session.agent.compact(command[len("/compact") :].strip() or None)
        else:
            run = session.agent.run(text, images=images)
        async with aclosing(run) as events:
            async for event in events:
                for update in session.mapper.updates(event):
                    await self.client.session_update(session_id=session_id, update=update)
                if isinstance(event, ToolCallFinished):
                    await self._report_mode(session)
                if isinstance(event, Stop):
                    stop = event
        await self.client.session_update(session_id=session_id, update=usage_update(session.agent))
        if stop is None:
            return "end_turn"
        if stop.reason in _STOP_REASONS:
            return _STOP_REASONS[stop.reason]
        raise RequestError.internal_error({"message": stop.message or f"the run stopped: {stop.reason}"})

    async def _report_mode(self, session: _Session) -> None:
        """A mode the run changed (plan mode left after the editor approved the plan) is shown in the editor."""
        if session.agent.current.mode is not session.mode:
            session.mode = session.agent.current.mode
            update = CurrentModeUpdate(session_update="current_mode_update", current_mode_id=session.mode.value)
            await self.client.session_update(session_id=session.agent.facts.session_id, update=update)

    def _open(self, cwd: str, resume_id: str | None, mcp_servers: Any = None) -> _Session:
        """Build (or resume) a session in ``cwd`` with this server's flags and the editor's MCP servers; one line on stderr per notice."""
        from pseudoclaude.session import SessionError, SessionNotFound

        if resume_id is not None and resume_id in self.sessions:
            return self.sessions[resume_id]
        workspace = Path(cwd)
        if not workspace.is_absolute() or not workspace.is_dir():
            raise RequestError.invalid_params({"message": f"cwd must be an existing absolute folder, not {cwd!r}"})
        options = self.options
        flags = Flags(
            model=options.model,
            provider=options.provider,
            permission_mode=options.permission_mode,
            sessions_dir=options.sessions_dir,
            trust_workspace=options.trust_workspace,
            sandbox=options.sandbox,
            mcp_config=mcp_config(mcp_servers or ()),
        )
        try:
            settings = load_settings(workspace, flags)
        except ConfigError as error:
            raise RequestError.invalid_params({"message": str(error)}) from None
        ignored = settings.trust.ignored_notice()
        for notice in (*settings.trust.notices, *([ignored] if ignored else [])):
            self._warn(notice)
        mapper = EventMapper(workspace, {})
        approver = AcpApprover(_Client(self), mapper)
        try:
            agent = build_agent(settings, resume_id=resume_id, approver=approver)
        except SessionError as error:
            if resume_id and isinstance(error, SessionNotFound):
                raise RequestError.resource_not_found(resume_id) from None
            raise RequestError.invalid_request({"message": str(error)}) from None
        except ConfigError as error:
            raise RequestError.invalid_params({"message": str(error)}) from None
        mapper.traits = agent.extensions.tool_traits()
        approver.session_id = agent.facts.session_id
        for warning in agent.facts.replay_warnings:
            self._warn(f"warning: {warning}")
        session = _Session(agent, mapper, agent.current.mode)
        self.sessions[agent.facts.session_id] = session
        return session

    def _announce_commands(self, session: _Session) -> None:
        """The slash commands, once the editor has the session's id (sent just after the response, as Zed's adapter does)."""
        update = AvailableCommandsUpdate(
            session_update="available_commands_update",
            available_commands=[
                AvailableCommand(
                    name="compact", description="Summarize the conversation now", input=AvailableCommandInput(root=UnstructuredCommandInput(hint="[focus]"))
                )
            ],
        )

        async def announce() -> None:
            await asyncio.sleep(0.05)
            await self.client.session_update(session_id=session.agent.facts.session_id, update=update)

        asyncio.ensure_future(announce())

    def _session(self, session_id: str) -> _Session:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.resource_not_found(session_id)
        return session

    def _available(self, start: PermissionMode) -> tuple[PermissionMode, ...]:
        bypass = self.options.allow_bypass or start is PermissionMode.BYPASS
        return tuple(mode for mode in PermissionMode if mode is not PermissionMode.BYPASS or bypass)

    def _modes(self, current: PermissionMode) -> SessionModeState:
        modes = [SessionMode(id=mode.value, name=_MODE_TEXT[mode][0], description=_MODE_TEXT[mode][1]) for mode in self._available(current)]
        return SessionModeState(current_mode_id=current.value, available_modes=modes)

    def _warn(self, message: str) -> None:
        self.err.write(f"pseudoclaude: {message}\n")
        self.err.flush()


def usage_update(agent: Agent) -> UsageUpdate:
    """What the REPL's status line shows of the context and the cost, after each prompt."""
    status = agent.status()
    cost = Cost(amount=status.cost_usd, currency="USD") if status.cost_usd is not None else None
    return UsageUpdate(session_update="usage_update", used=status.context_tokens, size=status.context_window, cost=cost)


def mcp_config(servers: Any) -> tuple[str, ...]:
    """The MCP servers the editor passes (its own context servers) as one ``--mcp-config`` value, beside the configured ones."""
    declared: dict[str, dict[str, Any]] = {}
    for server in servers:
        kind = getattr(server, "type", None)
        if kind in ("http", "sse"):
            declared[server.name] = {"type": kind, "url": server.url, "headers": {h.name: h.value for h in server.headers or ()}}
        elif hasattr(server, "command"):
            declared[server.name] = {"command": server.command, "args": list(server.args or ()), "env": {e.name: e.value for e in server.env or ()}}
    return (json.dumps({"mcpServers": declared}),) if declared else ()


class _Client:
    """The connection as the approver sees it, resolved when asked (the server learns it at ``on_connect``)."""

    def __init__(self, server: PseudoClaudeAcp) -> None:
        self.server = server

    async def request_permission(self, options: Any, session_id: str, tool_call: Any, **kwargs: Any) -> Any:
        client: PermissionClient = self.server.client
        return await client.request_permission(options=options, session_id=session_id, tool_call=tool_call)


def serve_acp(options: AcpOptions) -> int:
    """Serve ACP on stdin/stdout until the editor closes the connection; the exit code."""
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    server = PseudoClaudeAcp(options, sys.stderr)

    async def go() -> None:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=50 * 1024 * 1024)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        transport, protocol = await loop.connect_write_pipe(_WriteProtocol, protocol_out)
        writer = asyncio.StreamWriter(transport, protocol, None, loop)
        try:
            handler: Any = server  # the SDK's Agent Protocol, minus the unstable methods we leave to its method-not-found
            await acp.run_agent(handler, writer, reader)
        finally:
            await server.aclose()

    try:
        run_until_signalled(go)
    except Interrupted as stop:
        return stop.exit_code
    return 0


class _WriteProtocol(asyncio.streams.FlowControlMixin):
    """A write-pipe protocol that ``StreamWriter.drain`` can wait on."""
