"""Slash commands of the REPL (``/help``, ``/compact``, ...).

Each command is an async function of the REPL (``CommandContext``) and its argument text that
returns True when the REPL should exit. An unknown command gets a suggestion
(the closest name), never a traceback. ``/memory`` and ``/init`` call the
instructions and memory pieces of ``pseudoclaude.agent`` (issue 7).
"""

from __future__ import annotations

import asyncio
import dataclasses
import difflib
from dataclasses import dataclass
from contextlib import aclosing
from typing import TYPE_CHECKING, AsyncIterator, Awaitable, Callable

from rich.table import Table
from rich.text import Text

from pseudoclaude.textsafe import for_terminal

if TYPE_CHECKING:
    from pseudoclaude.agent import Event
    from pseudoclaude.config import Settings
    from pseudoclaude.tui.command_context import CommandContext

Handler = Callable[["CommandContext", str], Awaitable[bool]]


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    run: Handler


async def _help(repl: CommandContext, arg: str) -> bool:
    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    for command in COMMANDS:
        table.add_row(command.name, command.help)
    for custom in repl.custom_commands.commands:  # issue 20: custom commands
        table.add_row(custom.name, Text(custom.help))
    for name, about in repl.agent.mcp.prompt_commands() if repl.agent is not None else ():
        table.add_row(name, Text(about))
    for keys, meaning in KEYS:
        table.add_row(keys, meaning)
    repl.console.print(table)
    return False


async def _compact(repl: CommandContext, arg: str) -> bool:
    agent = await repl.ensure_agent()
    if agent is None:
        return False
    if not agent.conversation():
        repl.console.print("[dim]Nothing to compact yet.[/]")
        return False
    before = repl.status
    summarized: list[Event] = []
    await repl.run_turn(lambda: _one_report(agent.compact(arg or None), summarized), label="Compacting")
    if not summarized:
        return False
    after = repl.status
    repl.console.print(
        f"[magenta]⟳ Context: {before.context_tokens:,} → {after.context_tokens:,} tokens "
        f"({before.context_percent}% → {after.context_percent}% of {after.context_window:,})[/]"
    )
    return False


async def _one_report(events: AsyncIterator[Event], summarized: list[Event]) -> AsyncIterator[Event]:
    """``/compact``'s events without the summary's own progress lines (the "compacting" notice before it, the
    "compacted" one after): the spinner already says "Compacting", and the command reports the result once, itself."""
    from pseudoclaude.agent import Progress

    async with aclosing(events) as stream:  # type: ignore[type-var]
        async for event in stream:
            if isinstance(event, Progress) and event.kind in ("compact", "compacting"):
                if event.kind == "compact":
                    summarized.append(event)
                continue
            yield event


async def _clear(repl: CommandContext, arg: str) -> bool:
    previous = repl.agent.facts.session_id if repl.agent is not None else None
    await repl.close_agent("clear")
    repl.shell_context.clear()
    repl.console.clear()
    note = f" The previous session {previous} stays resumable with /resume." if previous else ""
    repl.console.print(f"[dim]Started a new conversation.{note}[/]")
    return False


# --- h16features: /resume as a picker (tui/picker.py); /rewind, /diff, /status live in their own modules. ---
async def _resume(repl: CommandContext, arg: str) -> bool:
    from pseudoclaude.session import SessionError, list_sessions, resolve_session_id
    from pseudoclaude.tui.picker import pick, session_items

    current = repl.agent.facts.session_id if repl.agent is not None else None
    choice = arg
    if not choice:
        infos = [i for i in list_sessions(repl.settings.sessions_dir, repl.settings.workspace) if i.id != current and i.turns > 0]
        if not infos:
            repl.console.print("[dim]No earlier session in this workspace.[/]")
            return False
        picked = await pick(session_items(infos), title=f"Resume which session? ({len(infos)} in this workspace, most recent first)")
        if picked is None:
            return False
        choice = infos[picked].id
    try:
        choice = resolve_session_id(repl.settings.sessions_dir, repl.settings.workspace, choice)
    except SessionError as error:
        repl.console.print(f"[red]✗ {error}[/]")
        return False
    if await repl.open_agent(resume_id=choice):
        repl.recap()
    return False


async def _rewind(repl: CommandContext, arg: str) -> bool:
    from pseudoclaude.tui.rewind import rewind_command

    return await rewind_command(repl, arg)


async def _diff(repl: CommandContext, arg: str) -> bool:
    from pseudoclaude.tui.diff_view import diff_command

    return await diff_command(repl, arg)


async def _export(repl: CommandContext, arg: str) -> bool:
    from pseudoclaude.tui.export_command import export_command

    return await export_command(repl, arg)


async def _status(repl: CommandContext, arg: str) -> bool:
    from pseudoclaude.tui.status_view import status_command

    return await status_command(repl, arg)


# --- end h16features ---


# --- /model (h16approve) ---------------------------------------------------------------------------


def known_models() -> tuple[str, ...]:
    """Every full model id the provider table gives (Tab's fallback when the REPL has no settings to ask endpoints with)."""
    from pseudoclaude.llm import table_model_ids

    return table_model_ids()


async def _model(repl: CommandContext, arg: str) -> bool:
    from pseudoclaude.llm import provider_for_model, unknown_model_notice
    from pseudoclaude.tui.model_list import provider_models

    current_model = repl.agent.current.model if repl.agent is not None else repl.settings.model
    if not arg:
        groups = await asyncio.to_thread(provider_models, repl.settings)
        repl.console.print(
            Text("Model: ")
            + Text(for_terminal(current_model), style="bold")
            + Text(f" ({repl.settings.provider}). Switch with /model NAME (Tab completes). Models:")
        )
        for group in groups:
            where = "its models endpoint" if group.source == "endpoint" else "the built-in table"
            note = f" (needs {group.needs})" if group.needs else ""
            repl.console.print(Text(f"  {group.provider}", style="bold") + Text(f"{note}, from {where}:", style="dim"))
            repl.console.print(Text("    " + for_terminal(", ".join(group.ids) or "(none)")))
        return False
    provider = provider_for_model(arg)
    notice = unknown_model_notice(arg)
    if notice is not None:
        repl.console.print(
            Text(f"! {notice}. Using it with {repl.settings.provider}; if the provider does not know it either, the next request says so.", style="yellow")
        )
    if provider is not None and provider != repl.settings.provider and not _switch_provider(repl, provider, arg):
        return False
    current = repl.agent.facts.session_id if repl.agent is not None else None
    if repl.agent is not None:
        repl.agent.set_model(arg, repl.settings.provider)  # recorded in the session: a resume goes on with it
    repl.settings = dataclasses.replace(repl.settings, model=arg)
    if current is not None:
        await repl.open_agent(resume_id=current)
    repl.refresh_status()
    repl.console.print(f"Model set to [bold]{arg}[/] ({repl.settings.provider}).")
    return False


def _switch_provider(repl: CommandContext, provider: str, model: str) -> bool:
    """Point the settings at ``provider`` when its key is configured; say what is missing otherwise."""
    from pseudoclaude.config import ConfigError

    try:
        repl.settings = with_provider(repl.settings, provider, model)
    except ConfigError as error:
        repl.console.print(f"[red]✗ {model} is served by {provider}: {error}. Still on {repl.settings.provider}.[/]")
        return False
    repl.console.print(f"[dim]Switching provider to {provider} (its key is configured).[/]")
    return True


def with_provider(settings: Settings, provider: str, model: str) -> Settings:
    """``settings`` pointed at ``provider`` (its key, endpoint and API flavour) and ``model``; ``ConfigError`` when its key is not configured."""
    from pseudoclaude.config import Flags, load_settings

    other = load_settings(settings.workspace, Flags(model=model, provider=provider))
    return dataclasses.replace(
        settings,
        provider=other.provider,
        model=model,
        api_key=other.api_key,
        base_url=other.base_url,
        openai_api=other.openai_api,
        auth_token=other.auth_token,
        extra_headers=other.extra_headers,
    )


# --- end /model ------------------------------------------------------------------------------------


async def _context(repl: CommandContext, arg: str) -> bool:
    from pseudoclaude.tui.context_view import render_context

    if repl.agent is None:
        repl.console.print("[dim]No conversation yet: only the system prompt and tools will be sent.[/]")
        return False
    render_context(repl.console, repl.agent.context_breakdown())
    return False


async def _cost(repl: CommandContext, arg: str) -> bool:
    from pseudoclaude.tui.cost_view import cost_line

    repl.console.print(Text(cost_line(repl.status)))
    return False


EFFORT_CHOICES = ("low", "medium", "high", "max", "off")


async def _effort(repl: CommandContext, arg: str) -> bool:
    from pseudoclaude.llm import EFFORTS, effort_notice

    if not arg:
        current = repl.settings.effort or "off (the provider's default)"
        repl.console.print(f"Effort: [bold]{current}[/]. Set with /effort {'|'.join(EFFORT_CHOICES)}; higher thinks longer and costs more output tokens.")
        return False
    if arg not in EFFORT_CHOICES:
        repl.console.print(f"[red]✗ unknown effort {arg!r}: choose one of {', '.join(EFFORT_CHOICES)}[/]")
        return False
    effort = next((e for e in EFFORTS if e == arg), None)
    repl.settings = dataclasses.replace(repl.settings, effort=effort)
    if repl.agent is not None:
        repl.agent.set_effort(effort)
    repl.refresh_status()
    notice = effort_notice(repl.settings.model, effort, base_url=repl.settings.base_url, api=repl.settings.openai_api)
    repl.console.print(f"[yellow]{notice}[/]" if notice else f"Effort set to [bold]{arg}[/].")
    return False


async def _permissions(repl: CommandContext, arg: str) -> bool:
    from pseudoclaude.tools.permissions import PermissionMode

    if arg:
        modes = [mode.value for mode in PermissionMode]
        if arg not in modes:
            repl.console.print(f"[red]✗ unknown mode {arg!r}: choose one of {', '.join(modes)}[/]")
            return False
        repl.set_mode(PermissionMode(arg))
    repl.console.print(f"Permission mode: [bold]{repl.mode().value}[/] (Shift+Tab cycles; /permissions MODE sets)")
    if repl.agent is not None:
        view = repl.agent.permissions()
        for label, rules in (("allow", view.allow), ("deny", view.deny), ("allowed this session", view.session_rules)):
            if rules:
                repl.console.print(Text(f"  {label}: ", style="bold") + Text(", ".join(str(rule) for rule in rules)))
    return False


async def _init(repl: CommandContext, arg: str) -> bool:
    from pseudoclaude.agent import INIT_PROMPT

    await repl.send(INIT_PROMPT + (f"\n\nAlso: {arg}" if arg else ""))
    return False


async def _memory(repl: CommandContext, arg: str) -> bool:
    agent = await repl.ensure_agent()
    if agent is None:
        return False
    if arg:
        scope, _, fact = arg.partition(" ") if arg.startswith("--user ") else ("project", "", arg)
        repl.remember(fact, "user" if scope == "--user" else "project")
        return False
    for file in agent.memory.files():
        state = f"{file.size:,} bytes" if file.exists else "empty"
        repl.console.print(Text(f"{file.scope:8} ", style="bold") + Text(f"{file.path}  ({state})"))
    repl.console.print("[dim]/memory FACT saves to the project memory, /memory --user FACT to yours; a line starting with '# ' too.[/]")
    return False


async def _mcp(repl: CommandContext, arg: str) -> bool:
    """The MCP servers: each one's state and source, its tools or why it failed (starting them if not yet)."""
    agent = await repl.ensure_agent()
    if agent is None:
        return False
    for line in await agent.mcp.start():
        repl.console.print(Text(f"! {line}", style="yellow"))
    servers = agent.mcp.servers()
    if not servers:
        repl.console.print("No MCP servers. Declare them in .mcp.json (mcpServers), in your settings, or with --mcp-config.")
        return False
    style = {"ready": "green", "failed": "red", "starting": "yellow", "stopped": "dim"}
    for server in servers:
        head = Text(f"{server.name} ", style="bold") + Text(server.state, style=style.get(server.state, ""))
        repl.console.print(head + Text(f"  {server.transport} · {server.source} · {server.target}", style="dim"))
        if server.error:
            repl.console.print(Text(f"    {server.error}", style="red"))
        if server.tools:
            repl.console.print(Text("    " + ", ".join(server.tools)))
    return False


async def _tasks(repl: CommandContext, arg: str) -> bool:
    """``/tasks`` lists the background commands; ``/tasks kill ID`` stops one (issue 20)."""
    import time

    agent = repl.agent
    if arg.startswith("kill"):
        job_id = arg[len("kill") :].strip()
        if agent is None or not job_id:
            repl.console.print("[dim]Usage: /tasks kill ID[/]")
            return False
        try:
            job = await agent.background.kill(job_id)
        except KeyError as error:
            repl.console.print(Text(f"✗ {error.args[0]}", style="red"))
            return False
        repl.console.print(Text(f"Stopped {job.id}: {job.command}", style="magenta"))
        return False
    jobs = agent.background.jobs() if agent is not None else ()
    if not jobs:
        repl.console.print("[dim]No background commands in this session.[/]")
        return False
    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in ("ID", "State", "Time", "Output", "Command"):
        table.add_column(column, no_wrap=column != "Command", overflow="ellipsis")
    for job in jobs:
        state = "running" if job.running else ("killed" if job.killed else f"exit {job.exit_code}")
        seconds = (job.ended or time.time()) - job.started
        table.add_row(job.id, state, f"{seconds:.0f}s", f"{job.total_bytes:,} B", Text(job.command))
    repl.console.print(table)
    repl.console.print("[dim]/tasks kill ID stops one (with everything it started).[/]")
    return False


async def _exit(repl: CommandContext, arg: str) -> bool:
    return True


COMMANDS: tuple[Command, ...] = (
    Command("/help", "show commands and keys", _help),
    Command("/compact", "summarize the conversation now [focus instructions]", _compact),
    Command("/clear", "start a new session (the old one stays resumable)", _clear),
    Command("/resume", "pick an earlier session of this workspace [id]", _resume),
    Command("/rewind", "go back to before one of your messages: conversation, files or both", _rewind),
    Command("/diff", "what this session changed in the workspace [path]", _diff),
    Command("/export", "write the conversation to a file [--format md|json] [file]", _export),
    Command("/status", "the settings in force and where each came from", _status),
    Command("/model", "show or switch the model [name]", _model),
    Command("/context", "what fills the context window", _context),
    Command("/cost", "tokens and estimated cost of this session", _cost),
    Command("/effort", "show or set how hard the model thinks [low|medium|high|max|off]", _effort),
    Command("/permissions", "show rules, switch mode [default|accept-edits|plan|bypass]", _permissions),
    Command("/memory", "show memory files, or save a fact [--user] [fact]", _memory),
    Command("/init", "study the repository and write PSEUDOCLAUDE.md", _init),
    Command("/mcp", "MCP servers: state, source and tools", _mcp),
    Command("/tasks", "background commands; kill one [kill ID]", _tasks),
    Command("/exit", "leave (Ctrl-D works too)", _exit),
)
ALIASES = {"/quit": "/exit", "/q": "/exit", "/?": "/help"}
ARGUMENT_CHOICES = {"/effort": EFFORT_CHOICES, "/permissions": ("default", "accept-edits", "plan", "bypass"), "/model": known_models()}
KEYS = (
    ("Enter", "send · Alt+Enter or a trailing \\ inserts a newline"),
    ("Esc / Ctrl-C", "interrupt the agent · Ctrl-C twice on an empty prompt exits"),
    ("Shift+Tab", "cycle permission mode"),
    ("Ctrl-O", "fold or unfold the model's thinking (during a turn)"),
    ("Ctrl-R / Ctrl-G", "search history / edit the input in $EDITOR"),
    ("Ctrl-V", "paste a copied image (needs wl-paste, xclip or pngpaste)"),
    ("Esc Esc", "on an empty prompt: /rewind"),
    ("@path / !cmd", "attach a file's content / run a shell command (output goes to the next message)"),
    ("# fact", "remember a fact for this project (next sessions see it)"),
)


def suggest(name: str) -> str | None:
    names = [c.name for c in COMMANDS] + list(ALIASES)
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
    if close:
        return ALIASES.get(close[0], close[0])
    prefixed = [n for n in names if n.startswith(name[:3])] if len(name) >= 3 else []
    return prefixed[0] if prefixed else None


async def _run_custom(repl: CommandContext, line: str) -> bool:
    """Send a custom command's expanded prompt (issue 20); False when ``line`` names none."""
    from pseudoclaude.agent import load_custom_commands, workspace_trusted

    repl.custom_commands = load_custom_commands(repl.settings.workspace, repl.settings.home)  # files may change during a session
    expansion = repl.custom_commands.expand(line, trusted=workspace_trusted(repl.settings.trust), provider=repl.settings.provider)
    if expansion is None:
        return False
    for notice in expansion.notices:
        repl.console.print(Text(notice, style="yellow"))
    await repl.send(expansion.prompt, model=expansion.model, allowed_tools=expansion.allowed_tools)
    return True


async def dispatch(repl: CommandContext, line: str) -> bool:
    """Run the slash command in ``line``; True means exit."""
    name, _, arg = line.partition(" ")
    name = ALIASES.get(name, name)
    for command in COMMANDS:
        if command.name == name:
            return await command.run(repl, arg.strip())
    if await _run_custom(repl, line):
        return False
    if name.startswith("/mcp__"):  # an MCP server's prompt: the agent fetches it once its servers are up (mcp_client.prompts)
        await repl.send(line)
        return False
    hint = suggest(name)
    repl.console.print(f"[yellow]Unknown command {name}.[/]" + (f" Did you mean [bold]{hint}[/]?" if hint else " Try /help."))
    return False
