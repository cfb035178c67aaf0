"""The interactive REPL (bare ``pseudoclaude``).

The loop: read a line (prompt-toolkit), dispatch it (slash command, ``!shell``
or a message), run the turn with a live view, repeat. Invariants:

* **Fast first paint.** The banner and the prompt appear before any SDK is
  imported; the agent (provider, session) is built on the first message, in a
  worker thread, while the SDK imports were warmed up in the background.
  A new session folder is created only when there is something to record.
* **Interrupts keep the session valid.** A turn is consumed inside its own
  task through ``aclosing``; Esc/Ctrl-C cancels that task, so the runner gives
  every open tool call an "interrupted" result and kills running commands
  before the next prompt is read.
* **Exit is clean.** Ctrl-D, ``/exit`` or Ctrl-C twice on an empty prompt close
  the agent (session lock, connections) and return 0.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from contextlib import aclosing
from typing import TYPE_CHECKING, AsyncIterator, Callable

from pseudoclaude.config import Settings
from pseudoclaude.exitcodes import EXIT_OK, EXIT_USAGE

if TYPE_CHECKING:
    from rich.console import Console

    from pseudoclaude.agent import Agent, CommandSet, Event, MemoryScope, PromptChoice, SessionWriteFailed
    from pseudoclaude.tools.permissions import PermissionMode
    from pseudoclaude.tui.keys import TurnKeys
    from pseudoclaude.tui.liveview import LiveArea
    from pseudoclaude.tui.render import TurnView

TICK_S = 0.08


def run_repl(settings: Settings, *, resume_id: str | None, continue_latest: bool, prompt: PromptChoice | None = None) -> int:
    from pseudoclaude.interrupts import Interrupted, run_until_signalled
    from pseudoclaude.tui.safeconsole import safe_console

    repl = Repl(settings, safe_console(highlight=False))
    repl.prompt_choice = prompt
    try:
        return run_until_signalled(lambda: repl.main(resume_id=resume_id, continue_latest=continue_latest))
    except Interrupted as stop:
        return stop.exit_code


def _warm_imports(provider: str) -> None:
    """Import the SDK the agent will need, off the event loop, so the first message does not wait for it.

    A daemon thread: leaving right after start must not wait for the import.
    """
    from pseudoclaude.llm import warm_up

    warm_up(provider)


def _no_commands() -> CommandSet:
    from pseudoclaude.agent import CommandSet

    return CommandSet()


class Repl:
    """The REPL's state. The permission mode has one holder: the agent when it exists, ``settings`` before."""

    def __init__(self, settings: Settings, console: Console) -> None:
        from pseudoclaude.tui.approval import TerminalApprover
        from pseudoclaude.tui.status import initial_status

        self.settings = settings
        self.console = console
        self.agent: Agent | None = None
        self.approver = TerminalApprover()
        self.queue: list[str] = []
        self.shell_context: list[str] = []
        self.status = initial_status(settings)
        self.show_thinking = False
        from pseudoclaude.tui.blocks import BlockLog

        self.blocks = BlockLog()
        """Every tool block the turns printed (Ctrl-O at the prompt prints the last one in full)."""
        self.custom_commands: CommandSet = _no_commands()
        self.draft = ""
        """Text typed during the last turn without Enter: the next prompt starts with it."""

    async def main(self, *, resume_id: str | None = None, continue_latest: bool = False) -> int:
        from pseudoclaude.tui.model_list import model_ids
        from pseudoclaude.tui.slash import ARGUMENT_CHOICES, COMMANDS, dispatch
        from pseudoclaude.tui.command_list import CommandList
        from pseudoclaude.tui.input import make_prompt_session
        from pseudoclaude.tui.block_keys import block_keys
        from pseudoclaude.agent import load_custom_commands

        self.banner()
        self.custom_commands = load_custom_commands(self.settings.workspace, self.settings.home)
        for problem in self.custom_commands.problems:
            self.console.print(f"[yellow]custom command skipped: {problem}[/]")
        if resume_id is not None or continue_latest:
            if not await self.open_agent(resume_id=resume_id, continue_latest=continue_latest):
                return EXIT_USAGE
            self.recap()
        threading.Thread(target=_warm_imports, args=(self.settings.provider,), daemon=True).start()
        prompt = make_prompt_session(
            home=self.settings.home,
            workspace=self.settings.workspace,
            commands=CommandList(
                [(c.name, c.help) for c in COMMANDS] + [(c.name, c.help) for c in self.custom_commands.commands],
                lambda: self.agent.mcp.prompt_commands() if self.agent is not None else [],
            ),
            arguments={**ARGUMENT_CHOICES, "/model": lambda: model_ids(self.settings, wait=False)},
            status=self.status_fragments,
            on_cycle_mode=self.cycle_mode,
            blocks=block_keys(self.console, self.blocks, lambda: self.agent.transcript()[1] if self.agent is not None else []),
        )
        armed = False
        try:
            while True:
                if self.queue:
                    text = "\n\n".join(self.queue)
                    self.queue.clear()
                    self.echo(text)
                else:
                    self.show_background_notices()
                    try:
                        draft, self.draft = self.draft, ""
                        text = await prompt.prompt_async(default=draft)
                    except KeyboardInterrupt:
                        if armed:
                            break
                        armed = True
                        self.console.print("[dim]Press Ctrl-C again (or Ctrl-D) to exit.[/]")
                        continue
                    except EOFError:
                        break
                armed = False
                stripped = text.strip()
                if not stripped:
                    continue
                if stripped.startswith("/"):
                    if await dispatch(self, stripped):
                        break
                elif stripped.startswith("# "):
                    if await self.ensure_agent() is not None:
                        self.remember(stripped[2:], "project")
                elif stripped.startswith("!"):
                    await self.run_shell(stripped[1:].strip())
                else:
                    await self.send(text)
        finally:
            resumable = self.agent.facts.session_id if self.agent is not None and self.agent.conversation() else None
            await self.close_agent("prompt_input_exit")
        self.goodbye(resumable)
        return EXIT_OK

    def goodbye(self, session_id: str | None) -> None:
        """The last words: how to come back to this session (Codex prints it too), when there is one to resume."""
        from rich.text import Text

        from pseudoclaude.tui.resume_hint import resume_hint  # the one exit line (h16features), shared with /resume's picker

        if session_id is not None:
            self.console.print(Text(resume_hint(session_id), style="dim"))
        self.console.print("[dim]Bye.[/]")

    def echo(self, text: str) -> None:
        """A message the user sent, as it stands in the transcript (also the ones queued while a turn ran)."""
        from rich.text import Text

        from pseudoclaude.textsafe import for_terminal

        self.console.print(Text("❯ ", style="bold cyan") + Text(for_terminal(text)))

    def banner(self) -> None:
        s = self.settings
        self.console.print(f"[bold]PseudoClaude[/] [dim]· {s.model} · {s.workspace}[/]")
        self.console.print("[dim]Enter sends · Alt+Enter newline · /help for commands · Esc interrupts · Ctrl-D exits[/]")

    def status_fragments(self, width: int) -> list[tuple[str, str]]:
        from pseudoclaude.tui.status import status_fragments

        return status_fragments(self.status, width)

    def refresh_status(self) -> None:
        from pseudoclaude.tui.status import initial_status

        self.status = self.agent.status() if self.agent is not None else initial_status(self.settings)

    def mode(self) -> PermissionMode:
        from pseudoclaude.tools.permissions import PermissionMode

        return self.agent.current.mode if self.agent is not None else PermissionMode(self.settings.permission_mode)

    def cycle_mode(self) -> None:
        from pseudoclaude.tools.permissions import next_mode

        self.set_mode(next_mode(self.mode()))

    def set_mode(self, mode: PermissionMode) -> None:
        if self.agent is not None:
            self.agent.set_mode(mode)
        else:
            self.settings = dataclasses.replace(self.settings, permission_mode=mode.value)
        self.status = dataclasses.replace(self.status, mode=mode.value)

    prompt_choice: PromptChoice | None = None
    """``--system-prompt`` / ``--append-system-prompt`` of the command line (None: ours unchanged)."""

    async def open_agent(self, *, resume_id: str | None = None, continue_latest: bool = False) -> bool:
        """Close the current agent and build a new or resumed one; False (and one line) when that fails."""
        from rich.text import Text

        from pseudoclaude.agent import PromptChoice, build_agent
        from pseudoclaude.config import ConfigError
        from pseudoclaude.session import SessionError
        from pseudoclaude.tui.elicitation import TerminalElicitor

        await self.close_agent()
        try:
            agent = await asyncio.to_thread(
                build_agent,
                self.settings,
                resume_id=resume_id,
                continue_latest=continue_latest,
                approver=self.approver,
                prompt=self.prompt_choice or PromptChoice(),
                elicitor=TerminalElicitor(self.approver),
            )
        except (ConfigError, SessionError) as error:
            self.console.print(Text(f"✗ {error}", style="red"))
            return False
        except Exception as error:  # an unexpected failure must not end the REPL
            self.console.print(Text(f"✗ cannot start the agent: {type(error).__name__}: {error}", style="red"))
            return False
        for warning in agent.facts.replay_warnings:
            self.console.print(Text(f"! {warning}", style="yellow"))
        self._follow_model(agent)
        self.settings = dataclasses.replace(self.settings, effort=agent.current.effort)  # a resume goes on with the session's /effort
        if (failed := agent.take_write_failure()) is not None:
            self.show_write_failure(failed)
        self.agent = agent
        agent.mcp.begin()
        self.refresh_status()
        return True

    def _follow_model(self, agent: Agent) -> None:
        """After a resume that went on with the session's ``/model`` switch, the settings say so (``/model``, ``/status``, a rebuild)."""
        from pseudoclaude.config import ConfigError
        from pseudoclaude.tui.slash import with_provider

        if agent.current.provider != self.settings.provider:
            try:
                self.settings = with_provider(self.settings, agent.current.provider, agent.current.model)
            except ConfigError:
                return
        elif agent.current.model != self.settings.model:
            self.settings = dataclasses.replace(self.settings, model=agent.current.model)

    def show_background_notices(self) -> None:
        """Background commands that exited since the last prompt (issue 20): shown, and told to the model with the next message."""
        for notice in self.agent.background.take_notices() if self.agent is not None else ():
            self.console.print(f"[magenta]● {notice}[/]")
            self.shell_context.append(f"[{notice}; command_output has its last output]")

    async def ensure_agent(self) -> Agent | None:
        if self.agent is None and not await self.open_agent():
            return None
        return self.agent

    async def close_agent(self, reason: str = "other") -> None:
        """Release the agent (``reason`` goes to the SessionEnd hooks: clear, prompt_input_exit, other).

        Its permission mode goes back to ``settings``, so the next agent starts in it.
        """
        agent, self.agent = self.agent, None
        if agent is not None:
            self.settings = dataclasses.replace(self.settings, permission_mode=agent.current.mode.value)
            await agent.aclose(reason)
        self.refresh_status()

    def remember(self, fact: str, scope: MemoryScope) -> None:
        from pseudoclaude.agent import FactRejected

        if self.agent is None:
            return
        try:
            saved = self.agent.memory.save(fact, scope)
        except FactRejected as error:
            self.console.print(f"[red]✗ {error}[/]")
            return
        verb = "Remembered" if saved.added else "Already remembered"
        self.console.print(f"[magenta]{verb} in {saved.path}[/] [dim](sessions started from now on see it)[/]")

    def recap(self) -> None:
        """The resumed conversation, drawn as it looked live (its last two screens)."""
        from pseudoclaude.tui.transcript_view import render_transcript

        if self.agent is not None:
            summarized, transcript = self.agent.transcript()
            render_transcript(self.console, self.agent.facts.session_id, transcript, summarized=summarized)

    async def send(self, text: str, *, model: str | None = None, allowed_tools: tuple[str, ...] = ()) -> None:
        """Send ``text`` with its images (``@shot.png``, pasted paths); one that cannot be sent keeps the text as the draft."""
        from rich.text import Text

        from pseudoclaude.textsafe import for_terminal
        from pseudoclaude.tui.prompt_images import attach_prompt_images, image_lines, vision_notice
        from pseudoclaude.tui.prompt_text import build_prompt

        attached = await asyncio.to_thread(attach_prompt_images, text, self.settings.workspace)
        if attached.error:
            self.console.print(Text(f"✗ {for_terminal(attached.error)} (not sent; your message is back at the prompt)", style="red"))
            self.draft = text
            return
        for line in image_lines(attached.images):
            self.console.print(Text(for_terminal(line), style="dim"))
        agent = await self.ensure_agent()
        if agent is None:
            return
        if attached.images and (notice := vision_notice(model or agent.current.model)):
            self.console.print(Text(f"! {notice}", style="yellow"))
        prompt = build_prompt(attached.text, self.settings.workspace, self.shell_context, page_bytes=self.status.read_page_bytes)
        self.shell_context.clear()
        await self.run_turn(lambda: agent.run(prompt, images=attached.images, model=model, allowed_tools=allowed_tools))

    async def run_shell(self, command: str) -> None:
        from pseudoclaude.tui.output import shell_events
        from pseudoclaude.tui.prompt_text import shell_context

        if not command:
            self.console.print("[dim]Usage: !command (runs in the workspace; its output goes to the next message)[/]")
            return
        captured: list[str] = []
        await self.run_turn(lambda: shell_events(command, self.settings.workspace, captured), label="Running")
        if captured:
            self.shell_context.append(shell_context(command, captured[0]))
            self.console.print("[dim]  (this output goes to the model with your next message)[/]")

    async def run_turn(self, events: Callable[[], AsyncIterator[Event]], *, label: str = "Working") -> TurnView:
        """Consume ``events()`` in a task with a live view; Esc/Ctrl-C cancels it. Returns the ``TurnView``."""
        from pseudoclaude.tui.liveview import LiveArea

        from pseudoclaude.tui.clipboard import ImagePaste
        from pseudoclaude.tui.keys import TurnKeys, raw_keys
        from pseudoclaude.tui.blocks import explore_kinds
        from pseudoclaude.tui.render import TurnView
        from pseudoclaude.tui.running_view import CommandClock

        agent = self.agent
        clock = CommandClock(agent.background.running if agent is not None else tuple)
        view = TurnView(
            self.console,
            label=label,
            show_thinking=self.show_thinking,
            request_tokens=(lambda: agent.current.request_tokens) if agent is not None else lambda: 0,
            blocks=self.blocks,
            explore_kinds=explore_kinds(agent.extensions.tool_traits()) if agent is not None else None,
            elapsed=clock.lines,
        )
        live = LiveArea(view, self.console)
        keys = TurnKeys(
            queue=(lambda text: self._queue_typed(agent, text)) if agent is not None else self.queue.append,
            queued=(lambda: (*agent.queue.pending(), *self.queue)) if agent is not None else lambda: tuple(self.queue),
            on_interrupt=lambda: _cancel(task),
            on_cycle_mode=self.cycle_mode,
            on_change=lambda: _refresh(live),
            on_toggle_thinking=lambda: self._toggle_thinking(view),
            paste=(paste := ImagePaste(self.settings.home)),
            on_background=agent.background.detach_foreground if agent is not None else lambda: None,
        )
        view.footer = keys.footer
        task = asyncio.ensure_future(self._consume(events(), view, lambda: self._echo_sent(keys)))
        self.approver.keys = keys
        try:
            with live, raw_keys(keys.handle):
                ticker = asyncio.ensure_future(self._tick(live, view))
                try:
                    await asyncio.wait({task})
                except asyncio.CancelledError as stop:  # SIGTERM: the turn records what stopped it
                    task.cancel(*stop.args[:1])
                    raise
                finally:
                    ticker.cancel()
                    if not task.done():
                        task.cancel()
                        await asyncio.wait({task})
                await paste.settle()  # a Ctrl+V still reading the clipboard lands in the draft or the queue
        finally:
            self.approver.keys = None
            self._echo_sent(keys)
            self.draft = keys.buffer.strip()
            if agent is not None:
                self.queue[:0] = agent.queue.take()
        interrupted = task.cancelled()
        if not interrupted and task.exception() is not None:
            error = task.exception()
            self.console.print(f"[red]✗ {type(error).__name__}: {error}[/]")
        view.finish(interrupted=interrupted)
        self.refresh_status()
        return view

    def _queue_typed(self, agent: Agent, text: str) -> None:
        """A message typed during a turn joins it, unless it attaches images (or follows one that does).

        Those wait for the turn's end and go through ``send`` like a typed
        prompt, so their images are loaded, shown and attached (the runner's
        queue carries text only); the ones after them wait too, to keep the order.
        """
        from pseudoclaude.tui.prompt_images import mentions_images

        if self.queue or mentions_images(text, self.settings.workspace):
            self.queue.append(text)
        else:
            agent.queue.put(text)

    def _toggle_thinking(self, view: TurnView) -> None:
        """Ctrl-O in a turn: unfold (or fold) the thought that streams; with none, print the last tool block in full."""
        if not view.thinking.active and view.expand_last():
            return
        view.thinking.toggle()
        self.show_thinking = view.thinking.expanded

    def _echo_sent(self, keys: TurnKeys) -> None:
        for text in keys.take_sent():
            self.echo(text)

    async def _consume(self, events: AsyncIterator[Event], view: TurnView, echo_sent: Callable[[], None]) -> None:
        from pseudoclaude.agent import SessionWriteFailed

        async with aclosing(events) as stream:  # type: ignore[type-var]
            async for event in stream:
                echo_sent()
                if isinstance(event, SessionWriteFailed):
                    self.show_write_failure(event)
                view.handle(event)

    def show_write_failure(self, failed: SessionWriteFailed) -> None:
        """Said once per session: the conversation goes on, but it is no longer saved."""
        from rich.text import Text

        self.console.print(Text(f"✗ {failed.message}", style="bold red"))
        self.console.print(Text("  Free space (or fix the folder's permissions) and start a new session with /clear to save again.", style="dim"))

    async def _tick(self, live: LiveArea, view: TurnView) -> None:
        from pseudoclaude.tui.render import synchronized

        while True:
            with synchronized(self.console):
                if live.is_started:
                    live.fit_to_width()
                view.flush()
                if live.is_started:
                    live.refresh()
            await asyncio.sleep(TICK_S)

    async def ask_line(self, message: str) -> str:
        """A one-off question at the prompt (pickers); empty on Ctrl-C / Ctrl-D."""
        from prompt_toolkit import PromptSession

        try:
            return (await PromptSession().prompt_async(message)).strip()
        except (KeyboardInterrupt, EOFError):
            return ""


def _refresh(live: LiveArea) -> None:
    from pseudoclaude.tui.render import synchronized

    if live.is_started:
        with synchronized(live.console):
            live.fit_to_width()
            live.refresh()


def _cancel(task: asyncio.Future[None]) -> None:
    task.cancel()
