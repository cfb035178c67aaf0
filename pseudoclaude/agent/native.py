"""The native context engine: the provider manages the context on its side, our Layer 1 in front, our pipeline behind.

``--context-engine pipeline|native|auto`` (setting ``contextEngine``) picks
the engine of a session. ``native`` runs where the model takes server-side
compaction (its ``context_management`` capabilities: the models endpoint's
answer, else the table) and the window leaves room for the API's lowest
trigger; elsewhere it is the pipeline. ``auto`` picks per model by
``AUTO_PICKS_NATIVE`` (the measurement behind it is in its docstring).

How the parts meet (the runner knows no engine but the ``ContextEngine``
seam, and its provider is wrapped):

* ``NativeEngine.prepare`` runs Layer 1 (``compact.offload_layer``), then
  adopts a compaction the last response carried (``compact.adopt_compaction``:
  the conversation from it on, the pinned block after its turn), recorded in
  the session as a compaction entry. It never asks for a summary itself.
* ``ServerContextProvider`` wraps the runner's provider: each main-loop
  request carries the engine's ``ServerContext`` (the adapter turns it into
  the edits and beta headers the model supports), and each completed
  response's ``ServerWork`` is shown to the engine.
* A refusal (a 400 naming the feature: an unknown beta, an unsupported edit)
  is retried once without it, and the engine falls back to the pipeline for
  the rest of the session, saying so once.
* ``/compact`` and overflow recovery are the pipeline's (a summary we ask
  for), as is everything once the engine has fallen back.
* The ``PreCompact`` and ``PostCompact`` hooks cannot run before the server
  compacts (it decides inside the request, and a prediction from our estimate
  would fire for compactions that never happen), so both fire once per
  provider compaction, when the engine adopts it: before the next request,
  which is the first to send the block back (in the same turn when the
  compacting answer called tools, else at the next prompt's first request,
  also after a resume). ``PreCompact`` (``trigger: "auto"``, empty
  ``custom_instructions``, as Claude Code's automatic one) runs before the
  session records the compaction, ``PostCompact`` after, with the provider's
  summary as ``compact_summary`` (Anthropic's text; empty for OpenAI's
  encrypted item). ``/compact`` fires them as the pipeline does (``manual``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import AsyncGenerator, Literal, Sequence

from pseudoclaude.agent.context import CompactionEngine, PrepareRequest
from pseudoclaude.compact import ContextOutcome, ContextStatus, LayerAction, adopt_compaction, native_instructions, offload_layer, server_context
from pseudoclaude.llm import (
    MIN_COMPACT_TRIGGER,
    BadRequest,
    Completed,
    Message,
    Provider,
    Request,
    ServerWork,
    StreamEvent,
    Usage,
    model_info,
    openai_reasoning_model,
    refuses_server_context,
)

EngineChoice = Literal["pipeline", "native", "auto"]
ENGINE_CHOICES: tuple[EngineChoice, ...] = ("pipeline", "native", "auto")
COMPACT_STRATEGY = "compact_20260112"

AUTO_PICKS_NATIVE = False
"""What ``auto`` picks where the model takes server-side compaction: the pipeline, for now.

Measured on the session-cost benchmark against the fake server
(``bench/bench_session_cost.py --engines pipeline,native``, ``bench/README.md``,
Sonnet prices, 200k): debug and small the same ($0.54, $1.56: neither
compacts); explore $2.76 native against $2.86 (both compact twice); multi
$1.85 against $1.49 (the server compacted at 167k where our shrink batch kept
the prompt at a 112k peak without a summary). What survived each compaction
was the same (task, paths, last error, rules: the pinned block, in both
engines). Never cheaper beyond the noise, once a quarter dearer, and the
fake's summary is a stand-in: ``auto`` keeps the engine whose summary we write
and measure. At 60k and below the API's 50k minimum trigger rules native out.

On OpenAI (``--providers openai``, gpt-6.2-sol at the table's prices, 200k/60k/32k,
"Issue 32: both engines on OpenAI" in ``bench/README.md``): native $11.31 against
$11.64 over the twelve runs, but dearer at 200k ($3.57 against $3.43: the server
let explore and multi grow to 191k and compacted where our shrink batches kept
them at 135k with no summary); its gain at 60k and 32k is our summary requests
falling to the uncached transcript form on OpenAI ($0.53 of explore 60k's,
$1.05 of explore 32k's), a defect of ours to fix, not a merit of the server's
compaction; at 32k 20 of its 22 compactions were our fallback anyway, and it
lost a long output's tail twice (39/40) where the pipeline lost none. So the
pipeline on OpenAI too.
"""


def takes_native(model: str, auto_threshold: int) -> bool:
    """Whether ``model`` takes server-side compaction (Anthropic: its ``compact_20260112`` capability, and our threshold
    is one the API accepts as a trigger; OpenAI: it speaks the Responses API, whose ``context_management`` compacts)."""
    info = model_info(model)
    if info is None:
        return False
    if info.provider == "openai":
        return openai_reasoning_model(model)
    return COMPACT_STRATEGY in info.context_management and auto_threshold >= MIN_COMPACT_TRIGGER


class NativeEngine:
    """``ContextEngine`` over the provider's own context management (see the module docstring)."""

    can_recover = True

    def __init__(self, pipeline: CompactionEngine, *, choice: EngineChoice, exclude_tools: Sequence[str] = (), memory: str = "") -> None:
        self.pipeline = pipeline
        self.state = pipeline.state
        self.choice = choice
        self.exclude_tools = tuple(exclude_tools)
        self.instructions = native_instructions(memory or None)
        self.refused: str | None = None
        self._announced = False
        self._work: ServerWork | None = None
        self._compacted = False

    def active(self) -> bool:
        """Whether the provider manages this session's context now (the model takes it, nothing refused it)."""
        if self.refused is not None or self.choice == "pipeline" or (self.choice == "auto" and not AUTO_PICKS_NATIVE):
            return False
        return takes_native(self.state.model, self.state.auto_threshold)

    @property
    def label(self) -> str:
        """Which engine runs, as ``/context`` and ``/status`` say it."""
        if self.refused is not None:
            return "pipeline (the provider refused its context management; fell back)"
        if self.active():
            return "native (the provider compacts and clears; Layer 1 and the pinned block are ours)"
        why = "auto" if self.choice == "auto" else f"{self.state.model} has no server-side compaction" if self.choice == "native" else ""
        return f"pipeline ({why})" if why else "pipeline"

    def server_context(self, request: Request) -> Request:
        """``request`` with what the provider is asked to manage (unchanged when the engine is not active)."""
        if not self.active():
            return request
        context = server_context(request.messages, self.state, instructions=self.instructions, exclude=self.exclude_tools, thinking=request.wants_thinking)
        return replace(request, server_context=context)

    def refuse(self, reason: str) -> None:
        self.refused = reason

    def saw(self, completed: Completed) -> None:
        """A response completed: what the server did to the context (a compaction, edits applied)."""
        self._work = completed.server
        self._compacted = completed.message.compaction is not None

    async def prepare(self, request: PrepareRequest) -> ContextOutcome:
        if request.forced or not self.active():
            outcome = await self.pipeline.prepare(request)
            return self._with_notice(outcome)
        state = self.state
        conversation = request.conversation
        state.working_set.observe(conversation)
        before = state.estimate(conversation)
        actions: list[LayerAction] = self._edit_actions()
        warnings: list[str] = []
        current: Sequence[Message] = conversation
        adopted = adopt_compaction(conversation, state)
        summary: str | None = None
        if adopted is not None:
            current = adopted
            if request.before_adopting is not None:
                await request.before_adopting(before)
            state.reset_anchor()
            after = state.estimate(adopted)
            summary = adopted[0].compaction.text if adopted[0].compaction is not None else ""
            self._record(summary, adopted, before, after, warnings)
            data = {"trigger": "auto", "before_tokens": before, "after_tokens": after, "engine": "native"}
            actions.append(LayerAction("compact", 1, f"context compacted by the provider: {before} -> {after}", data))
        step = offload_layer(current, state)
        current = step.conversation
        warnings.extend(step.warnings)
        if step.action is not None:
            actions.append(step.action)
        tokens = state.estimate(current)
        if tokens >= state.budget.summary_input_budget("manual"):  # the server did not compact in time: ours does
            ours = await self.pipeline.prepare(replace(request, conversation=tuple(current)))
            merged = replace(ours, before_tokens=before, actions=(*actions, *ours.actions), warnings=(*warnings, *ours.warnings))
            return self._with_notice(merged)
        state.note_sent(current)
        state.working_set.mark(current)
        return ContextOutcome(tuple(current), before, tokens, tuple(actions), tuple(warnings), state.tripped, summary, budget=state.budget)

    def _edit_actions(self) -> list[LayerAction]:
        work, self._work = self._work, None
        if work is None:
            return []
        actions = []
        for kind, tokens in work.edits:
            if tokens and kind.startswith("clear_tool_uses"):
                actions.append(
                    LayerAction("clear", 1, f"the provider cleared old tool results ({tokens} tokens)", {"cleared_tokens": tokens, "engine": "native"})
                )
        return actions

    def _record(self, summary: str, messages: Sequence[Message], before: int, after: int, warnings: list[str]) -> None:
        session = self.state.session
        if session is None:
            return
        try:
            session.append_compaction(summary=summary, messages=messages, trigger="auto", before_tokens=before, after_tokens=after)
        except OSError as error:
            warnings.append(f"could not record the compaction in the session ({error})")

    def _with_notice(self, outcome: ContextOutcome) -> ContextOutcome:
        if self.refused is None or self._announced:
            return outcome
        self._announced = True
        notice = f"the provider refused its context management ({self.refused}); this session's context is managed by the pipeline"
        return replace(outcome, warnings=(notice, *outcome.warnings))

    def observe(self, usage: Usage, conversation_length: int) -> None:
        """Anchor to the provider's count, except after a compaction (that count covers the context it replaced)."""
        if self._compacted and self.active():
            self.state.last_call_at = self.state.clock()
            return
        self.pipeline.observe(usage, conversation_length)

    def learn_window(self, tokens: int | None) -> bool:
        return self.pipeline.learn_window(tokens)

    @property
    def window_source(self) -> str:
        return self.pipeline.window_source

    def status(self, conversation: Sequence[Message]) -> ContextStatus:
        return replace(self.pipeline.status(conversation), engine=self.label)

    def count(self, messages: Sequence[Message]) -> int:
        return self.pipeline.count(messages)


class ServerContextProvider:
    """The runner's provider, each request carrying the engine's ``ServerContext``; a refusal retried once without it."""

    def __init__(self, inner: Provider, engine: NativeEngine) -> None:
        self.inner = inner
        self.engine = engine
        self.name = inner.name
        self.model = inner.model

    async def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        asked = self.engine.server_context(request)
        started = False
        try:
            async for item in self.inner.stream(asked):
                started = True
                if isinstance(item, Completed):
                    self.engine.saw(item)
                yield item
        except BadRequest as error:
            if started or asked.server_context is None or not refuses_server_context(error):
                raise
            self.engine.refuse(error.message)
            async for item in self.inner.stream(request):
                yield item

    async def aclose(self) -> None:
        await self.inner.aclose()


def context_engine(
    choice: str, pipeline: CompactionEngine, provider: Provider, *, exclude_tools: Sequence[str] = (), memory: str = ""
) -> tuple[CompactionEngine | NativeEngine, Provider]:
    """The session's engine and the provider its runner calls (wrapped when the engine may be native)."""
    if choice not in ("native", "auto"):
        return pipeline, provider
    engine = NativeEngine(pipeline, choice="native" if choice == "native" else "auto", exclude_tools=exclude_tools, memory=memory)
    return engine, ServerContextProvider(provider, engine)
