"""The seam between the runner and context governance.

The runner asks its ``ContextEngine`` to ``prepare`` the conversation before
every model call and applies the ``ContextOutcome`` it gets back: the
conversation to send, the inline result limit for tools, and what each layer
did (shown as progress events by ``outcome_events``). The engine never
touches the runner. ``CompactionEngine`` is the built-in engine (the seeds'
pipeline in ``pseudoclaude.compact``); ``NoCompaction`` passes the
conversation through, for runs that do not govern context.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol, Sequence

from pseudoclaude.agent import events as ev
from pseudoclaude.compact import (
    BeforeSummary,
    ContextOutcome,
    ContextState,
    ContextStatus,
    RequestShape,
    TRUNCATED_SOURCE,
    Trigger,
    check_truncation,
    force_compact,
    manage_context,
)
from pseudoclaude.compact import Budget
from pseudoclaude.llm import Message, PromptTruncated, Provider, RetryPolicy, Usage, WindowProber


@dataclass(frozen=True)
class PrepareRequest:
    """What the runner asks before a model call.

    ``forced``: summarize now, for ``/compact`` and overflow recovery,
    recorded as ``trigger`` (``manual`` or ``overflow``); ``instructions``:
    what ``/compact`` was told to keep; ``before_summary``: awaited before a
    summary request is sent (the ``PreCompact`` hook and the notice);
    ``before_adopting``: awaited before an engine applies a compaction it did
    not ask for (the provider's, under the native engine: the ``PreCompact``
    hook alone, since the provider already summarized); ``shape`` builds the
    request the runner would send for a conversation, so a summary can be
    asked as that request (reusing its cached prefix).
    """

    conversation: tuple[Message, ...]
    forced: bool = False
    instructions: str | None = None
    before_summary: BeforeSummary | None = None
    shape: RequestShape | None = None
    trigger: Trigger = "manual"
    before_adopting: BeforeSummary | None = None


class ContextEngine(Protocol):
    """What the runner needs of context governance.

    ``prepare`` returns what to send (see ``PrepareRequest``); ``observe``
    sees the provider's usage of the request just made; ``learn_window``
    adopts a smaller window the provider stated; ``status`` and ``count`` are
    read-only views for the UI. ``can_recover`` says whether a forced
    ``prepare`` can shrink anything.
    """

    @property
    def can_recover(self) -> bool: ...

    async def prepare(self, request: PrepareRequest) -> ContextOutcome: ...

    def observe(self, usage: Usage, conversation_length: int) -> None: ...

    def learn_window(self, tokens: int | None) -> bool: ...

    def status(self, conversation: Sequence[Message]) -> ContextStatus | None: ...

    def count(self, messages: Sequence[Message]) -> int: ...


class NoCompaction:
    """A pass-through engine: the conversation is sent as it is."""

    can_recover = False

    async def prepare(self, request: PrepareRequest) -> ContextOutcome:
        return ContextOutcome(request.conversation, 0, 0)

    def observe(self, usage: Usage, conversation_length: int) -> None:
        return None

    def learn_window(self, tokens: int | None) -> bool:
        return False

    def status(self, conversation: Sequence[Message]) -> ContextStatus | None:
        return None

    def count(self, messages: Sequence[Message]) -> int:
        return 0


class CompactionEngine:
    """The seeds' pipeline over one session's ``ContextState``.

    ``memory`` (the session's standing instructions: its instruction files and
    memory snapshot, as in the system prompt) is given to the summary prompt as
    context, so the transcript form, which has no system prompt, sees them too; ``retry`` is the same policy the runner's model calls use.
    """

    can_recover = True

    def __init__(self, state: ContextState, provider: Provider, *, memory: str = "", retry: RetryPolicy = RetryPolicy()) -> None:
        self.state = state
        self.provider = provider
        self.memory = memory
        self.retry = retry
        self._probed = False
        self._local = False
        self._sent: Sequence[Message] = ()
        self._learned_from = "the provider's error"

    async def prepare(self, request: PrepareRequest) -> ContextOutcome:
        memory = self.memory or None
        notice = await self._probe_window()
        if request.forced:
            outcome = await force_compact(
                request.conversation,
                self.state,
                self.provider,
                instructions=request.instructions,
                memory=memory,
                before_summary=request.before_summary,
                retry=self.retry,
                shape=request.shape,
                trigger=request.trigger,
                local_server=self._local,
            )
        else:
            outcome = await manage_context(
                request.conversation,
                self.state,
                self.provider,
                memory=memory,
                before_summary=request.before_summary,
                retry=self.retry,
                shape=request.shape,
                local_server=self._local,
            )
        self._sent = outcome.conversation
        return replace(outcome, warnings=(notice, *outcome.warnings)) if notice else outcome

    async def _probe_window(self) -> str | None:
        """At the first call: ask a local server the window it runs and budget against it (the user's setting caps it).

        Returns the one line to tell the user (how to raise Ollama's window), once.
        """
        if self._probed or not isinstance(self.provider, WindowProber):
            return None
        self._probed = True
        probe = await self.provider.probe_window() if self.provider.local_server else None
        if probe is None:
            return None
        self._local = True  # a server that said what it runs: its counts are checked for a cut prompt from now on
        state = self.state
        if probe.tokens < state.context_window:
            state.learn_window(probe.tokens, probe.source)
        elif probe.tokens > state.context_window and state.window_source in ("model table", "default"):
            state.budget, state.window_source = Budget.for_window(probe.tokens), probe.source
        return probe.notice

    def observe(self, usage: Usage, conversation_length: int) -> None:
        """Anchor the estimate to the provider's count; ``PromptTruncated`` when a local server counted far fewer tokens than sent."""
        self._check_truncation(usage.prompt_tokens, conversation_length)
        self.state.record_usage(usage.prompt_tokens, conversation_length)

    def _check_truncation(self, reported: int, conversation_length: int) -> None:
        if not self._local or conversation_length != len(self._sent):
            return
        try:
            check_truncation(reported, self._sent, self.state)
        except PromptTruncated:
            self._learned_from = TRUNCATED_SOURCE
            raise

    def learn_window(self, tokens: int | None) -> bool:
        source, self._learned_from = self._learned_from, "the provider's error"
        return self.state.learn_window(tokens, source)

    @property
    def window_source(self) -> str:
        return self.state.window_source

    def status(self, conversation: Sequence[Message]) -> ContextStatus:
        return replace(self.state.status(conversation), engine="pipeline")

    def count(self, messages: Sequence[Message]) -> int:
        return self.state.estimator.count(messages)


def outcome_events(outcome: ContextOutcome) -> list[ev.Event]:
    """What the user is told about an outcome: its warnings, each layer's action, a failed summary."""
    events: list[ev.Event] = [ev.Progress("warning", warning) for warning in outcome.warnings]
    events.extend(ev.Progress(action.layer, action.message, dict(action.data)) for action in outcome.actions)
    if outcome.error is not None:
        events.append(ev.Progress("warning", f"summary failed: {outcome.error.message}"))
    return events


@dataclass(frozen=True)
class Compacted:
    """One compaction an outcome reports, as the ``PostCompact`` hook is told it."""

    trigger: str
    before_tokens: int
    after_tokens: int
    summary: str


def compactions(outcome: ContextOutcome, trigger: str) -> list[Compacted]:
    """Each compaction in ``outcome`` (one, or two when the native engine adopted the provider's and ours still had to
    summarize); the summary text goes with the last, the one the outcome carries."""
    actions = [action for action in outcome.actions if action.layer == "compact"]
    found = []
    for index, action in enumerate(actions):
        data = action.data
        summary = (outcome.summary or "") if index == len(actions) - 1 else ""
        before, after = int(data.get("before_tokens", outcome.before_tokens)), int(data.get("after_tokens", outcome.after_tokens))
        found.append(Compacted(str(data.get("trigger", trigger)), before, after, summary))
    return found
