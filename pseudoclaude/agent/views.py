"""The frozen views the ``Agent`` facade hands the terminal: its status line, the context breakdown, the permissions.

They are plain values, built by the facade from the runner's, the context
engine's and the permission policy's state, so the terminal never reaches
into those (``facade`` says why).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pseudoclaude.sandbox import SandboxStatus
from pseudoclaude.tools.permissions import PermissionMode, Rule

if TYPE_CHECKING:
    from pseudoclaude.agent.instructions import InstructionFile
    from pseudoclaude.compact import PinnedParts
    from pseudoclaude.config import Settings


@dataclass(frozen=True)
class AgentStatus:
    """The status line: a snapshot taken at turn boundaries (estimating the context costs a tokenizer pass)."""

    model: str
    context_tokens: int
    context_window: int
    auto_threshold: int
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = 0.0
    """The estimated cost, each call at its own model's price; None when some call's model has no known price."""
    mode: str = "default"
    session_id: str | None = None
    effort: str | None = None
    window_source: str = ""
    """Where the window came from: "your setting", "model table", "llama.cpp /props n_ctx (per slot)"..."""
    request_tokens: int = 0
    """The estimated input of the request in flight (0 between requests): what ↑ shows while a reply streams."""
    priced_usd: float = 0.0
    """The cost of the calls that had a price (``cost_usd`` is None when others had none)."""
    sandbox: SandboxStatus | None = None
    """What confines the model's commands; None: they run unconfined (read only when ``sandbox_known``)."""
    sandbox_known: bool = False
    """False before a session exists (the settings alone do not say whether a sandbox can run here)."""

    @classmethod
    def before_session(cls, settings: Settings) -> AgentStatus:
        """Before any agent exists: nothing used yet, the window and threshold the settings give."""
        from pseudoclaude.compact import Budget
        from pseudoclaude.llm import context_window

        budget = Budget.for_window(context_window(settings.model, settings.context_window))
        return cls(
            model=settings.model,
            context_tokens=0,
            context_window=budget.context_window,
            auto_threshold=budget.auto_threshold,
            mode=settings.permission_mode,
            effort=settings.effort,
        )

    @property
    def read_page_bytes(self) -> int:
        """One file read's budget at this window (``compact.Budget``: 64 KB at 128k, less below): what ``@file`` mentions share."""
        from pseudoclaude.compact import Budget

        return Budget.for_window(self.context_window or None).read_page_bytes

    @property
    def context_percent(self) -> int:
        return round(100 * self.context_tokens / self.context_window) if self.context_window else 0

    @property
    def threshold_percent(self) -> int:
        return round(100 * self.auto_threshold / self.context_window) if self.context_window else 0


@dataclass(frozen=True)
class ContextBreakdown:
    """What fills the context window (``/context``), counted with the compaction's own estimator."""

    system_tokens: int
    tools_tokens: int
    message_tokens: int
    messages: int
    estimated_tokens: int
    context_window: int
    auto_threshold: int
    offloaded_results: int
    offloaded_bytes: int
    estimator: str
    instruction_files: tuple[InstructionFile, ...] = ()
    pinned_tokens: int = 0
    """Tokens of the pinned block (part of ``message_tokens``): what follows a summary, built from the session."""
    window_source: str = ""
    images: int = 0
    """Images the next request shows the model (attachments and tool results not yet replaced by notes)."""
    image_tokens: int = 0
    """Their estimate (part of ``message_tokens``), by ``image_rule``: "anthropic", "openai", "no-vision" or "" (the larger rule)."""
    image_notes: int = 0
    """Images replaced by a note naming their file so far."""
    image_rule: str = ""
    pinned: PinnedParts | None = None
    """The pinned block's parts: user messages (and what had to be reduced), rules extracted, files, last failure."""


@dataclass(frozen=True)
class PermissionView:
    """The permission mode and rules in force (``/permissions``)."""

    mode: PermissionMode
    allow: tuple[Rule, ...]
    deny: tuple[Rule, ...]
    session_rules: tuple[Rule, ...]
