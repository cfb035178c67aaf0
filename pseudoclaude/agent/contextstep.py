"""The context-management step the runner takes before every model call.

A thin bridge to ``pseudoclaude.compact``: it runs ``manage_context`` (or
``force_compact`` when recovering from an overflow), swaps the runner's
conversation for the managed one, and turns the outcome into progress events.
Without a compaction runtime it is a pass-through. ``memory`` (the session's
memory snapshot) is handed to the Layer 2 summary prompt as context. The
``PreCompact`` hook fires right before a summary is requested (after Layer 1,
so never for a compaction Layer 1 made unnecessary); ``PostCompact`` fires
when a summary replaced the history.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, AsyncGenerator, Protocol

from pseudoclaude.agent import events as ev
from pseudoclaude.llm.messages import Usage

if TYPE_CHECKING:
    from pseudoclaude.agent.runner import Runner


class ContextEngine(Protocol):
    """The seam between the runner and context governance (``ContextStep`` is the built-in one).

    ``before_call`` may replace ``runner.conversation`` and yields progress
    events; ``after_call`` sees the provider's usage; ``learn_window`` adopts a
    window the provider stated; ``shrank`` says whether the last step changed
    what the model sees (overflow recovery retries only then).
    """

    runtime: Any

    @property
    def can_recover(self) -> bool: ...

    def before_call(self, runner: Runner, *, forced: bool, instructions: str | None = None) -> AsyncGenerator[ev.Event, None]: ...

    def after_call(self, usage: Usage, conversation_length: int) -> None: ...

    def learn_window(self, tokens: int | None) -> bool: ...

    def shrank(self) -> bool: ...


class ContextStep:
    """``runtime`` is a ``pseudoclaude.compact.Runtime`` or None (pass-through)."""

    def __init__(self, runtime: Any = None, memory: str = "") -> None:
        self.runtime = runtime
        self.memory = memory
        self.last_result: Any = None

    @property
    def can_recover(self) -> bool:
        return self.runtime is not None

    async def before_call(self, runner: Runner, *, forced: bool, instructions: str | None = None) -> AsyncGenerator[ev.Event, None]:
        if self.runtime is None:
            return
        from pseudoclaude.compact import force_compact, manage_context

        runner.tool_context.result_limit_bytes = self.runtime.budget.single_limit_bytes

        trigger = "manual" if forced else "auto"
        hook_events: list[ev.Event] = []

        async def pre_compact(tokens: int) -> None:
            hook_events.extend(await runner.hooks.pre_compact(trigger, tokens, instructions))

        memory = self.memory or None
        if forced:
            result = await force_compact(
                runner.conversation, self.runtime, runner.provider, instructions=instructions, memory=memory, before_summary=pre_compact
            )
        else:
            result = await manage_context(runner.conversation, self.runtime, runner.provider, memory=memory, before_summary=pre_compact)
        self.last_result = result
        for event in hook_events:
            yield event
        runner.replace_conversation(result.conversation)
        for warning in result.warnings:
            yield ev.Progress("warning", warning)
        if result.cleared_count:
            yield ev.Progress(
                "clear",
                f"cleared {result.cleared_count} old tool results after a long pause (the prompt cache had expired)",
                {"cleared": result.cleared_count},
            )
        if result.triggered_layer1:
            yield ev.Progress(
                "offload",
                f"tool results offloaded: {result.offloaded_count}; estimated tokens {result.before_tokens} -> {result.after_tokens}",
                {"offloaded": result.offloaded_count, "before_tokens": result.before_tokens, "after_tokens": result.after_tokens},
            )
        if result.triggered_layer2:
            yield ev.Progress(
                "compact",
                f"context compacted: {result.before_tokens} -> {result.after_tokens}",
                {"trigger": trigger, "before_tokens": result.before_tokens, "after_tokens": result.after_tokens},
            )
            for event in await runner.hooks.post_compact(trigger, result.before_tokens, result.after_tokens):
                yield event
        if result.error is not None:
            yield ev.Progress("warning", f"summary failed: {result.error.message}")

    def shrank(self) -> bool:
        """Whether the last step changed what the model sees (an offload or a summary)."""
        result = self.last_result
        return result is not None and bool(result.triggered_layer1 or result.triggered_layer2)

    def learn_window(self, tokens: int | None) -> bool:
        """Adopt a smaller window the provider stated in a prompt-too-long error."""
        return self.runtime is not None and self.runtime.learn_window(tokens)

    def after_call(self, usage: Usage, conversation_length: int) -> None:
        if self.runtime is not None:
            self.runtime.record_usage(usage.prompt_tokens, conversation_length)
