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

from typing import Protocol, Sequence

from pseudoclaude.agent import events as ev
from pseudoclaude.compact import (
    BeforeSummary,
    ContextOutcome,
    ContextState,
    ContextStatus,
    RequestShape,
    Trigger,
    force_compact,
    manage_context,
)
from pseudoclaude.llm import Message, Provider, RetryPolicy, Usage


class ContextEngine(Protocol):
    """What the runner needs of context governance.

    ``prepare`` returns what to send (``forced``: summarize now, for
    ``/compact`` and overflow recovery, recorded as ``trigger``: ``manual`` or
    ``overflow``); ``observe`` sees the provider's usage
    of the request just made; ``learn_window`` adopts a smaller window the
    provider stated; ``status`` and ``count`` are read-only views for the UI.
    ``can_recover`` says whether a forced ``prepare`` can shrink anything.
    ``shape`` builds the request the runner would send for a conversation, so
    a summary can be asked as that request (reusing its cached prefix).
    """

    @property
    def can_recover(self) -> bool: ...

    async def prepare(
        self,
        conversation: Sequence[Message],
        *,
        forced: bool = False,
        instructions: str | None = None,
        before_summary: BeforeSummary | None = None,
        shape: RequestShape | None = None,
        trigger: Trigger = "manual",
    ) -> ContextOutcome: ...

    def observe(self, usage: Usage, conversation_length: int) -> None: ...

    def learn_window(self, tokens: int | None) -> bool: ...

    def status(self, conversation: Sequence[Message]) -> ContextStatus | None: ...

    def count(self, messages: Sequence[Message]) -> int: ...


class NoCompaction:
    """A pass-through engine: the conversation is sent as it is."""

    can_recover = False

    async def prepare(
        self,
        conversation: Sequence[Message],
        *,
        forced: bool = False,
        instructions: str | None = None,
        before_summary: BeforeSummary | None = None,
        shape: RequestShape | None = None,
        trigger: Trigger = "manual",
    ) -> ContextOutcome:
        return ContextOutcome(tuple(conversation), 0, 0)

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

    async def prepare(
        self,
        conversation: Sequence[Message],
        *,
        forced: bool = False,
        instructions: str | None = None,
        before_summary: BeforeSummary | None = None,
        shape: RequestShape | None = None,
        trigger: Trigger = "manual",
    ) -> ContextOutcome:
        memory = self.memory or None
        if forced:
            return await force_compact(
                conversation, self.state, self.provider, instructions=instructions, memory=memory, before_summary=before_summary,
                retry=self.retry, shape=shape, trigger=trigger,
            )
        return await manage_context(
            conversation, self.state, self.provider, memory=memory, before_summary=before_summary, retry=self.retry, shape=shape
        )

    def observe(self, usage: Usage, conversation_length: int) -> None:
        self.state.record_usage(usage.prompt_tokens, conversation_length)

    def learn_window(self, tokens: int | None) -> bool:
        return self.state.learn_window(tokens)

    def status(self, conversation: Sequence[Message]) -> ContextStatus:
        return self.state.status(conversation)

    def count(self, messages: Sequence[Message]) -> int:
        return self.state.estimator.count(messages)


def outcome_events(outcome: ContextOutcome) -> list[ev.Event]:
    """What the user is told about an outcome: its warnings, each layer's action, a failed summary."""
    events: list[ev.Event] = [ev.Progress("warning", warning) for warning in outcome.warnings]
    events.extend(ev.Progress(action.layer, action.message, dict(action.data)) for action in outcome.actions)
    if outcome.error is not None:
        events.append(ev.Progress("warning", f"summary failed: {outcome.error.message}"))
    return events
