"""``/status``: the effective settings and where each came from.

``config.load_settings`` resolves every setting from, in decreasing
precedence, the command line, the environment, the workspace ``.env``, and
the local, project and user settings files (project entries only once the
folder is trusted). It does not keep where a value came from, so this view
finds the highest layer that holds the value in force: the environment or
``.env`` variable, else the last settings file with the key (the trusted
layers ``Settings`` carries), else the built-in default; a value none of
them holds was given on the command line or changed in this session
(``/model``, ``/effort``, Shift+Tab). The API key is never shown, only where
it was found. The sandbox row comes from the agent's ``AgentStatus``: what
confines the commands of this session, not what was asked for.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from rich.table import Table
from rich.text import Text

from pseudoclaude.agent import AgentStatus
from pseudoclaude.config import Settings, read_dotenv
from pseudoclaude.textsafe import for_terminal

if TYPE_CHECKING:
    from pseudoclaude.tui.repl import Repl

FLAG_OR_SESSION = "command line, or changed in this session"
LAYER_LABELS = ("user", "project", "local")

Getter = Callable[[Mapping[str, Any]], Any]


def _key(name: str) -> Getter:
    return lambda layer: layer.get(name)


def _permissions_mode(layer: Mapping[str, Any]) -> Any:
    permissions = layer.get("permissions")
    return permissions.get("defaultMode") if isinstance(permissions, Mapping) else None


class Origins:
    """Where a value in force came from, given the process environment, the ``.env`` and the trusted settings files."""

    def __init__(self, settings: Settings, environ: Mapping[str, str] | None = None) -> None:
        self.settings = settings
        self.environ = os.environ if environ is None else environ
        try:
            self.dotenv = read_dotenv(settings.workspace)
        except Exception:  # a malformed .env was already reported when the settings were loaded
            self.dotenv = {}

    def of(self, value: Any, *, variable: str | None = None, get: Getter | None = None, default: Any = None) -> str:
        if value is None:
            return "not set"
        if variable is not None and variable in self.environ and self.environ[variable] == str(value):
            return f"environment {variable}"
        if variable is not None and variable in self.dotenv and variable not in self.environ and self.dotenv[variable] == str(value):
            return f".env {variable}"
        if get is not None:
            for label, layer in reversed(list(zip(LAYER_LABELS, self.settings.settings_layers))):
                found = get(layer)
                if found is not None:
                    if str(found) == str(value):
                        return f"{label} settings"
                    break
        if default is not None and str(value) == str(default):
            return "default"
        return FLAG_OR_SESSION


def status_rows(settings: Settings, mode: str, environ: Mapping[str, str] | None = None) -> list[tuple[str, str, str]]:
    """(setting, value, origin) for every setting that shapes this session."""
    from pseudoclaude.llm import provider_entry

    origins = Origins(settings, environ)
    entry = provider_entry(settings.provider)
    key_origin = "not set"
    if settings.api_key:
        key_origin = f"environment {entry.key_variable}" if entry.key_variable in origins.environ else f".env {entry.key_variable}"
    rows = [
        ("model", settings.model, origins.of(settings.model, variable="PSEUDOCLAUDE_MODEL", get=_key("model"), default=entry.default_model)),
        ("provider", settings.provider, _provider_origin(origins, settings)),
        ("API key", "set" if settings.api_key else "not set", key_origin),
        ("base URL", settings.base_url or "the provider's", origins.of(settings.base_url, variable=entry.base_url_variable) if settings.base_url else "default"),
        ("permission mode", mode, origins.of(mode, get=_permissions_mode, default="default")),
        ("effort", settings.effort or "provider default", origins.of(settings.effort, variable="PSEUDOCLAUDE_EFFORT", get=_key("effort"))),
        ("thinking budget", str(settings.max_thinking_tokens or "default"), origins.of(settings.max_thinking_tokens, variable="MAX_THINKING_TOKENS", get=_key("maxThinkingTokens"))),
        ("context window", str(settings.context_window or "the model's"), origins.of(settings.context_window, variable="PSEUDOCLAUDE_CONTEXT_WINDOW", get=_key("contextWindow"))),
        ("max turns", str(settings.max_turns or "no limit"), origins.of(settings.max_turns, get=_key("maxTurns"))),
        ("max budget", f"${settings.max_budget_usd:.2f}" if settings.max_budget_usd else "no limit", origins.of(settings.max_budget_usd, get=_key("maxBudgetUsd"))),
        ("allowed tools", ", ".join(settings.allowed_tools) or "none", "command line" if settings.allowed_tools else "not set"),
        ("sessions folder", _home_relative(settings.sessions_dir), origins.of(str(settings.sessions_dir), get=_key("sessionsDir"), default=str(settings.home / "sessions"))),
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


def _provider_origin(origins: Origins, settings: Settings) -> str:
    found = origins.of(settings.provider, variable="PSEUDOCLAUDE_PROVIDER", get=_key("provider"))
    return "from the model name (or the keys set)" if found == FLAG_OR_SESSION else found


def trust_lines(settings: Settings) -> list[str]:
    """Which settings files exist, and what the project may apply (``settings.trust``)."""
    lines = []
    for label, path in zip(LAYER_LABELS, settings.settings_paths):
        lines.append(f"{label} settings: {_home_relative(path)}{'' if path.is_file() else ' (none)'}")
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


async def status_command(repl: Repl, arg: str) -> bool:
    """``/status``."""
    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in ("Setting", "Value", "From"):
        table.add_column(column, overflow="fold")
    for name, value, origin in status_rows(repl.settings, repl.mode().value):
        table.add_row(name, value, Text(origin, style="dim"))
        if name == "permission mode":
            table.add_row("sandbox", *sandbox_row(repl.status))
    session = repl.agent.session_id if repl.agent is not None else "none yet (created with the first message)"
    repl.console.print(Text(f"Session {session} · workspace {for_terminal(str(repl.settings.workspace))}", style="bold"))
    repl.console.print(table)
    for line in trust_lines(repl.settings):
        repl.console.print(Text(line, style="dim"))
    return False
