"""What a slash command needs from the REPL: its console, settings, agent and status, and a few actions.

Commands (``slash``, ``rewind``, ``diff_view``, ``export_command``,
``status_view``) take this Protocol, not the ``Repl``: they cannot reach the
REPL's input loop, live view or key handling, and they import nothing of
``repl`` (which dispatches them), so the two sides stay apart. ``Repl``
satisfies it; mypy checks that where ``dispatch`` is called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, AsyncIterator, Callable, Protocol

if TYPE_CHECKING:
    from rich.console import Console

    from pseudoclaude.agent import Agent, AgentStatus, CommandSet, Event, MemoryScope
    from pseudoclaude.config import Settings
    from pseudoclaude.tools.permissions import PermissionMode
    from pseudoclaude.tui.render import TurnView


class CommandContext(Protocol):
    console: Console
    settings: Settings
    agent: Agent | None
    status: AgentStatus
    custom_commands: CommandSet
    shell_context: list[str]
    draft: str

    def mode(self) -> PermissionMode: ...

    def set_mode(self, mode: PermissionMode) -> None: ...

    def refresh_status(self) -> None: ...

    async def open_agent(self, *, resume_id: str | None = None, continue_latest: bool = False) -> bool: ...

    async def ensure_agent(self) -> Agent | None: ...

    async def close_agent(self, reason: str = "other") -> None: ...

    def remember(self, fact: str, scope: MemoryScope) -> None: ...

    def recap(self) -> None: ...

    async def send(self, text: str, *, model: str | None = None, allowed_tools: tuple[str, ...] = ()) -> None: ...

    async def run_turn(self, events: Callable[[], AsyncIterator[Event]], *, label: str = "Working") -> TurnView: ...
