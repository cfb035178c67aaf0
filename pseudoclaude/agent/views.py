"""The frozen views the ``Agent`` facade hands the terminal: its status line, the context breakdown, the permissions.

They are plain values, so the terminal never reaches into the runner, the
context engine or the permission policy. Each is built from what its owners
hand out: the runner's ``RunnerSnapshot``, the context engine's
``ContextStatus`` and counts (``ContextBreakdown.measure``), the policy's own
``PermissionPolicy.view()``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pseudoclaude.agent.cost import Spent
from pseudoclaude.llm import Effort, Message, ToolSpec, Usage
from pseudoclaude.sandbox import SandboxStatus
from pseudoclaude.tools.permissions import PermissionMode, PermissionView

if TYPE_CHECKING:
    from pseudoclaude.agent.context import ContextEngine
    from pseudoclaude.agent.instructions import InstructionFile
    from pseudoclaude.compact import ContextStatus, PinnedParts
    from pseudoclaude.config import Settings

__all__ = ["AgentFacts", "AgentStatus", "ContextBreakdown", "Current", "PermissionView", "RunnerSnapshot"]


@dataclass(frozen=True)
class AgentFacts:
    """What a session is, fixed when it opens: its id and workspace, what confines its commands, what its replay found."""

    session_id: str
    workspace: Path
    sandbox: SandboxStatus | None = None
    """What confines the model's commands (None: built without a sandbox decision, as in tests)."""
    sandbox_notice: str | None = None
    """One line for the front ends when no sandbox is available: why, and that the approval rules stay."""
    replay_warnings: tuple[str, ...] = ()
    """What the resume could not take back (a torn line, a background command gone), one line each."""
    system_prompt: str = ""
    """The stable system prompt this session sends (instructions and the memory snapshot included): a resume sends the same."""


@dataclass(frozen=True)
class Current:
    """What the agent is set to, and the request in flight: cheap enough for the live view to read every frame."""

    provider: str
    """The provider the model calls go to (a resume may have switched it back to the one a ``/model`` chose)."""
    model: str
    effort: Effort | None
    """The effort the next model call asks for (None: the provider's default)."""
    mode: PermissionMode
    request_tokens: int
    """The estimated input of the request in flight, 0 between requests."""


@dataclass(frozen=True)
class RunnerSnapshot:
    """The runner's state at one moment (``Runner.snapshot``): what the status line and the breakdown are built from."""

    model: str
    effort: Effort | None
    system: str
    system_suffix: str
    conversation: tuple[Message, ...]
    tool_specs: tuple[ToolSpec, ...]
    usage_total: Usage
    spent: Spent
    request_tokens: int


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
    context_engine: str = ""
    """Which context engine runs ("pipeline", or the provider's own: ``agent/native.py``); "" before a session exists."""

    @classmethod
    def of(cls, runner: RunnerSnapshot, context: ContextStatus | None, *, mode: str, session_id: str, sandbox: SandboxStatus | None) -> AgentStatus:
        """The status line from the runner's snapshot and the context engine's status."""
        usage, spent = runner.usage_total, runner.spent
        return cls(
            model=runner.model,
            context_tokens=context.estimated_tokens if context is not None and runner.conversation else 0,
            context_window=context.context_window if context is not None else 0,
            auto_threshold=context.auto_threshold if context is not None else 0,
            tokens_in=usage.prompt_tokens,
            tokens_out=usage.output_tokens,
            cost_usd=spent.usd if spent.known else None,
            mode=mode,
            session_id=session_id,
            effort=runner.effort,
            window_source=context.window_source if context is not None else "",
            request_tokens=runner.request_tokens,
            priced_usd=spent.usd,
            sandbox=sandbox,
            sandbox_known=True,
            context_engine=context.engine if context is not None else "",
        )

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
    engine: str = ""
    """Which context engine runs (the pipeline, or the provider's own)."""

    @classmethod
    def measure(
        cls, engine: ContextEngine, runner: RunnerSnapshot, *, instruction_files: tuple[InstructionFile, ...], spill_dir: Path | None
    ) -> ContextBreakdown:
        """What fills the window, each part counted by the context engine (its estimator, its status)."""
        status = engine.status(runner.conversation)
        assert status is not None, "a built agent always governs its context"
        tools = json.dumps([{"name": s.name, "description": s.description, "input_schema": s.input_schema} for s in runner.tool_specs])
        return cls(
            system_tokens=engine.count([Message.user(runner.system + "\n" + runner.system_suffix)]),
            tools_tokens=engine.count([Message.user(tools)]),
            message_tokens=engine.count(runner.conversation),
            messages=len(runner.conversation),
            estimated_tokens=status.estimated_tokens,
            context_window=status.context_window,
            auto_threshold=status.auto_threshold,
            offloaded_results=status.replaced_results,
            offloaded_bytes=_folder_bytes(spill_dir),
            estimator=status.estimator,
            instruction_files=instruction_files,
            pinned_tokens=status.pinned_tokens,
            window_source=status.window_source,
            images=status.images.images,
            image_tokens=status.images.tokens,
            image_notes=status.images.notes,
            image_rule=status.images.rule,
            pinned=status.pinned,
            engine=status.engine,
        )


def _folder_bytes(folder: Path | None) -> int:
    if folder is None or not folder.is_dir():
        return 0
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())
