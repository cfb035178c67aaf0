"""Slash commands of the REPL (``/help``, ``/compact``, ...).

Each command is an async function of the ``Repl`` and its argument text that
returns True when the REPL should exit. An unknown command gets a suggestion
(the closest name), never a traceback. ``/memory`` and ``/init`` call the
instructions and memory pieces of ``pseudoclaude.agent`` (issue 7).
"""

from __future__ import annotations

import dataclasses
import difflib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Awaitable, Callable

from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from pseudoclaude.tui.repl import Repl

Handler = Callable[["Repl", str], Awaitable[bool]]


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    run: Handler


async def _help(repl: Repl, arg: str) -> bool:
    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    for command in COMMANDS:
        table.add_row(command.name, command.help)
    for keys, meaning in KEYS:
        table.add_row(keys, meaning)
    repl.console.print(table)
    return False


async def _compact(repl: Repl, arg: str) -> bool:
    agent = await repl.ensure_agent()
    if agent is None:
        return False
    if not agent.conversation():
        repl.console.print("[dim]Nothing to compact yet.[/]")
        return False
    before = repl.status
    await repl.run_turn(lambda: agent.compact(arg or None), label="Compacting")
    after = repl.status
    repl.console.print(
        f"[magenta]Context: {before.context_tokens:,} → {after.context_tokens:,} tokens "
        f"({before.context_percent}% → {after.context_percent}% of {after.context_window:,})[/]"
    )
    return False


async def _clear(repl: Repl, arg: str) -> bool:
    previous = repl.agent.session_id if repl.agent is not None else None
    await repl.close_agent("clear")
    repl.shell_context.clear()
    repl.console.clear()
    note = f" The previous session {previous} stays resumable with /resume." if previous else ""
    repl.console.print(f"[dim]Started a new conversation.{note}[/]")
    return False


async def _resume(repl: Repl, arg: str) -> bool:
    from pseudoclaude.session import list_sessions
    from pseudoclaude.tui.sessions_view import relative_time

    current = repl.agent.session_id if repl.agent is not None else None
    choice = arg
    if not choice:
        from datetime import datetime, timezone

        infos = [i for i in list_sessions(repl.settings.sessions_dir, repl.settings.workspace) if i.id != current and i.turns > 0]
        if not infos:
            repl.console.print("[dim]No earlier session in this workspace.[/]")
            return False
        now = datetime.now(timezone.utc)
        table = Table(box=None, pad_edge=False, header_style="bold")
        for column in ("#", "ID", "Updated", "Turns", "Title"):
            table.add_column(column, no_wrap=column != "Title", overflow="ellipsis")
        for number, info in enumerate(infos[:20], 1):
            table.add_row(str(number), info.id, relative_time(info.updated, now), str(info.turns), info.title or "(untitled)")
        repl.console.print(table)
        answer = await repl.ask_line("Resume which session? (number or id, Enter to cancel) ")
        if not answer:
            return False
        choice = infos[int(answer) - 1].id if answer.isdigit() and 0 < int(answer) <= len(infos[:20]) else answer
    from pseudoclaude.session import SessionError, resolve_session_id

    try:
        choice = resolve_session_id(repl.settings.sessions_dir, repl.settings.workspace, choice)
    except SessionError as error:
        repl.console.print(f"[red]✗ {error}[/]")
        return False
    if await repl.open_agent(resume_id=choice):
        repl.recap()
    return False


async def _model(repl: Repl, arg: str) -> bool:
    from pseudoclaude.llm import provider_for_model

    if not arg:
        repl.console.print(f"Model: [bold]{repl.settings.model}[/] ({repl.settings.provider}). Switch with /model NAME.")
        return False
    provider = provider_for_model(arg)
    if provider is not None and provider != repl.settings.provider:
        phrase = _PROVIDER_PHRASES.get(provider, "a " + provider)
        repl.console.print(f"[red]✗ {arg} is {phrase} model; this session uses {repl.settings.provider}. Restart with --model {arg}.[/]")
        return False
    current = repl.agent.session_id if repl.agent is not None else None
    repl.settings = dataclasses.replace(repl.settings, model=arg)
    if current is not None:
        await repl.open_agent(resume_id=current)
    repl.refresh_status()
    repl.console.print(f"Model set to [bold]{arg}[/].")
    return False


async def _context(repl: Repl, arg: str) -> bool:
    from pseudoclaude.tui.context_view import render_context

    if repl.agent is None:
        repl.console.print("[dim]No conversation yet: only the system prompt and tools will be sent.[/]")
        return False
    render_context(repl.console, repl.agent.context_breakdown())
    return False


async def _cost(repl: Repl, arg: str) -> bool:
    status = repl.status
    repl.console.print(
        f"Tokens this session: {status.tokens_in:,} in, {status.tokens_out:,} out{' (thinking included)' if status.effort else ''} · "
        f"estimated cost ${status.cost_usd:.4f} ({status.model})"
    )
    return False


EFFORT_CHOICES = ("low", "medium", "high", "max", "off")


async def _effort(repl: Repl, arg: str) -> bool:
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
    notice = effort_notice(repl.settings.model, effort)
    repl.console.print(f"[yellow]{notice}[/]" if notice else f"Effort set to [bold]{arg}[/].")
    return False


async def _permissions(repl: Repl, arg: str) -> bool:
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


async def _init(repl: Repl, arg: str) -> bool:
    from pseudoclaude.agent import INIT_PROMPT

    await repl.send(INIT_PROMPT + (f"\n\nAlso: {arg}" if arg else ""))
    return False


async def _memory(repl: Repl, arg: str) -> bool:
    agent = await repl.ensure_agent()
    if agent is None:
        return False
    if arg:
        scope, _, fact = arg.partition(" ") if arg.startswith("--user ") else ("project", "", arg)
        repl.remember(fact, "user" if scope == "--user" else "project")
        return False
    for file in agent.memory_files():
        state = f"{file.size:,} bytes" if file.exists else "empty"
        repl.console.print(Text(f"{file.scope:8} ", style="bold") + Text(f"{file.path}  ({state})"))
    repl.console.print("[dim]/memory FACT saves to the project memory, /memory --user FACT to yours; a line starting with '# ' too.[/]")
    return False


async def _exit(repl: Repl, arg: str) -> bool:
    return True


COMMANDS: tuple[Command, ...] = (
    Command("/help", "show commands and keys", _help),
    Command("/compact", "summarize the conversation now [focus instructions]", _compact),
    Command("/clear", "start a new session (the old one stays resumable)", _clear),
    Command("/resume", "pick an earlier session of this workspace [id]", _resume),
    Command("/model", "show or switch the model [name]", _model),
    Command("/context", "what fills the context window", _context),
    Command("/cost", "tokens and estimated cost of this session", _cost),
    Command("/effort", "show or set how hard the model thinks [low|medium|high|max|off]", _effort),
    Command("/permissions", "show rules, switch mode [default|accept-edits|plan|bypass]", _permissions),
    Command("/memory", "show memory files, or save a fact [--user] [fact]", _memory),
    Command("/init", "study the repository and write PSEUDOCLAUDE.md", _init),
    Command("/exit", "leave (Ctrl-D works too)", _exit),
)
ALIASES = {"/quit": "/exit", "/q": "/exit", "/?": "/help"}
ARGUMENT_CHOICES = {"/effort": EFFORT_CHOICES, "/permissions": ("default", "accept-edits", "plan", "bypass")}
KEYS = (
    ("Enter", "send · Alt+Enter or a trailing \\ inserts a newline"),
    ("Esc / Ctrl-C", "interrupt the agent · Ctrl-C twice on an empty prompt exits"),
    ("Shift+Tab", "cycle permission mode"),
    ("Ctrl-O", "fold or unfold the model's thinking (during a turn)"),
    ("Ctrl-R / Ctrl-G", "search history / edit the input in $EDITOR"),
    ("@path / !cmd", "mention a file / run a shell command (output goes to the next message)"),
    ("# fact", "remember a fact for this project (next sessions see it)"),
)


def suggest(name: str) -> str | None:
    names = [c.name for c in COMMANDS] + list(ALIASES)
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
    if close:
        return ALIASES.get(close[0], close[0])
    prefixed = [n for n in names if n.startswith(name[:3])] if len(name) >= 3 else []
    return prefixed[0] if prefixed else None


async def dispatch(repl: Repl, line: str) -> bool:
    """Run the slash command in ``line``; True means exit."""
    name, _, arg = line.partition(" ")
    name = ALIASES.get(name, name)
    for command in COMMANDS:
        if command.name == name:
            return await command.run(repl, arg.strip())
    hint = suggest(name)
    repl.console.print(f"[yellow]Unknown command {name}.[/]" + (f" Did you mean [bold]{hint}[/]?" if hint else " Try /help."))
    return False


_PROVIDER_PHRASES = {"anthropic": "an Anthropic", "openai": "an OpenAI"}
