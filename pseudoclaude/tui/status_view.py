"""``/status``: the effective settings and where each came from.

``config.load_settings`` resolves every setting from, in decreasing
precedence, the command line, the environment, the workspace ``.env``, and
the settings files (ours and Claude Code's, at the local, project and user
scopes; project entries only once the folder is trusted), and records in
``Settings.origins`` where each value came from. This view shows that
record; a value that no longer matches it was changed in this session
(``/model``, ``/effort``, Shift+Tab). Credentials (the API key, an auth
token, custom headers) are never shown, only where they were found. The
sandbox row comes from the agent's ``AgentStatus``: what confines the
commands of this session, not what was asked for.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from pseudoclaude.agent import AgentStatus
from pseudoclaude.config import ROWS, Origin, Settings
from pseudoclaude.textsafe import for_terminal

if TYPE_CHECKING:
    from pseudoclaude.tui.command_context import CommandContext

CHANGED = "changed in this session"
NOT_RECORDED = Origin("", "not set")


def origin_of(settings: Settings, name: str, value: object) -> str:
    """Where ``settings`` says the setting ``name`` came from, unless its value in force (``value``) is another."""
    recorded = settings.origins.get(name, NOT_RECORDED)
    if value is None or value == "":
        return recorded.source if recorded.value in ("", "not set") else CHANGED
    return recorded.source if recorded.value == str(value) else CHANGED


_SHOWN_ABOVE = frozenset({"effort", "max_thinking_tokens", "context_window", "context_engine", "max_turns", "max_budget_usd"})
"""The table's plain rows ``status_rows`` words itself; every other one set somewhere is listed after them as resolved."""


def status_rows(settings: Settings, mode: str) -> list[tuple[str, str, str]]:
    """(setting, value, origin) for every setting that shapes this session."""
    origins = settings.origins

    def recorded(name: str) -> str:
        return origins.get(name, NOT_RECORDED).source

    rows = [
        ("model", settings.model, origin_of(settings, "model", settings.model)),
        ("provider", settings.provider, _provider_origin(settings)),
        ("API key", "set" if settings.api_key else "not set", recorded("api_key")),
    ]
    if settings.auth_token:
        rows.append(("auth token", "set", recorded("auth_token")))
    if settings.extra_headers:
        rows.append(("custom headers", ", ".join(name for name, _ in settings.extra_headers), recorded("extra_headers")))
    rows += [
        ("base URL", settings.base_url or "the provider's", recorded("base_url")),
        ("permission mode", mode, origin_of(settings, "permission_mode", mode)),
        ("effort", settings.effort or "provider default", origin_of(settings, "effort", settings.effort)),
        ("thinking budget", str(settings.max_thinking_tokens or "default"), origin_of(settings, "max_thinking_tokens", settings.max_thinking_tokens)),
        ("context window", str(settings.context_window or "the model's"), origin_of(settings, "context_window", settings.context_window)),
        ("context engine", settings.context_engine, origin_of(settings, "context_engine", settings.context_engine)),
        ("max turns", str(settings.max_turns or "no limit"), origin_of(settings, "max_turns", settings.max_turns)),
        (
            "max budget",
            f"${settings.max_budget_usd:.2f}" if settings.max_budget_usd else "no limit",
            origin_of(settings, "max_budget_usd", settings.max_budget_usd),
        ),
        ("allowed tools", ", ".join(settings.allowed_tools) or "none", "command line" if settings.allowed_tools else "not set"),
        ("sessions folder", _home_relative(settings.sessions_dir), origin_of(settings, "sessions_dir", settings.sessions_dir)),
        ("hooks", "from settings files" if recorded("hooks") != "not set" else "none", recorded("hooks")),
        ("permission rules", "from settings files" if recorded("permission_rules") != "not set" else "none", recorded("permission_rules")),
        ("session env", ", ".join(sorted(settings.session_env)) or "none", recorded("env")),
    ]
    rows += [
        (ROWS[name].shown if name in ROWS else name.replace("_", " "), origins[name].value, origins[name].source)
        for name in settings.values
        if name not in _SHOWN_ABOVE and name in origins and origins[name].source not in ("not set", "default")
    ]
    return [(name, for_terminal(str(value)), for_terminal(origin)) for name, value, origin in rows]


def sandbox_row(info: AgentStatus) -> tuple[Text, Text]:
    """``/status``'s sandbox value (warning colour when commands run unconfined) and what it says of itself."""
    from pseudoclaude.tui.status import confined, sandbox_label

    if not info.sandbox_known:
        return Text("decided when the session starts (with the first message)"), Text("")
    detail = info.sandbox.detail if info.sandbox is not None else "commands run unconfined, as you could run them"
    value = sandbox_label(info.sandbox).removeprefix("sandbox: ")
    return Text(value, style="green" if confined(info.sandbox) else "bold yellow"), Text(for_terminal(detail), style="dim")


def _provider_origin(settings: Settings) -> str:
    found = origin_of(settings, "provider", settings.provider)
    return "from the model name (or the keys set)" if found in (CHANGED, "not set") else found


def trust_lines(settings: Settings) -> list[str]:
    """Which settings files exist, and what the project may apply (``settings.trust``)."""
    lines = []
    for label, path in zip(settings.settings_labels, settings.settings_paths):
        if path.name.endswith(".json"):
            lines.append(f"{label}: {_home_relative(path)}{'' if path.is_file() else ' (none)'}")
    trust = settings.trust
    if trust.trusted_by is not None:
        lines.append(f"workspace trusted by {trust.trusted_by}: project settings apply")
    elif trust.ignored:
        lines.append(trust.ignored_notice() or "")
    elif trust.entries:
        lines.append("the project settings that need consent were approved for this folder")
    else:
        lines.append("no project setting needs your consent here")
    lines.extend(trust.notices)
    return [for_terminal(line) for line in lines]


def _home_relative(path: Path) -> str:
    try:
        return "~/" + path.relative_to(Path.home()).as_posix()
    except ValueError:
        return str(path)


async def status_command(repl: CommandContext, arg: str) -> bool:
    """``/status``."""
    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in ("Setting", "Value", "From"):
        table.add_column(column, overflow="fold")
    for name, value, origin in status_rows(repl.settings, repl.mode().value):
        table.add_row(name, value, Text(origin, style="dim"))
        if name == "permission mode":
            table.add_row("sandbox", *sandbox_row(repl.status))
        if name == "context engine" and repl.status.context_engine:
            table.add_row("  running", for_terminal(repl.status.context_engine), Text("this session", style="dim"))
    session = repl.agent.facts.session_id if repl.agent is not None else "none yet (created with the first message)"
    repl.console.print(Text(f"Session {session} · workspace {for_terminal(str(repl.settings.workspace))}", style="bold"))
    repl.console.print(table)
    for line in trust_lines(repl.settings):
        repl.console.print(Text(line, style="dim"))
    return False
