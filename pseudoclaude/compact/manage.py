"""The step before every model call: Layer 1, re-estimate, Layer 2 when needed.

``manage_context`` never raises for a compaction problem: a spill failure, a
failed summary or a tripped breaker travel back in the ``ManageResult``
(``warnings``, ``error``, ``tripped``) with a conversation that is always valid
to send, so the runner decides whether to go on. Order and invariants:

0. After a long pause (the provider's prompt cache has expired), old
   observation results are cleared (``clear.py``); never while the cache is warm.
1. Layer 1 (``offload_tool_results``): deterministic, decisions reused.
2. Re-estimate. Automatic Layer 2 runs at ``auto_threshold`` unless the
   breaker is tripped (then the result says so and asks for ``/compact``).
3. Layer 2 (``compact_conversation``): summary of the history, then the three
   meta messages and the recent closed tail. If that is still over the
   threshold, the tail loses its oldest groups (the summary covers them); a
   compaction that cannot get under it counts as a failure, so automatic
   compaction can never loop. Success resets the failure count and the anchor.

``force_compact`` (``/compact``, overflow recovery) runs the same pipeline with
the manual margin, optional focus instructions and no breaker check.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Awaitable, Callable, Literal, Sequence

from pseudoclaude.compact.clear import clear_stale_tool_results
from pseudoclaude.compact.offload import offload_tool_results
from pseudoclaude.compact.runtime import Runtime
from pseudoclaude.compact.select import closed_groups, select_recent
from pseudoclaude.compact.summarize import (
    SUMMARY_MESSAGE_PREFIX,
    meta_prefix_length,
    summarize,
)
from pseudoclaude.llm.errors import ProviderError
from pseudoclaude.llm.messages import Message
from pseudoclaude.llm.provider import Provider

Trigger = Literal["auto", "manual"]
ProgressCallback = Callable[[str], None]
BeforeSummary = Callable[[int], Awaitable[None]]

SUMMARY_ACKNOWLEDGEMENT = "Understood. I have the summary of the earlier conversation and will continue from where it left off."
SUMMARY_REMINDER = (
    "Note: the summary above is not the original conversation. When you need exact details "
    "(file contents, code, command output), re-read the files or re-run the commands instead of "
    "relying on the summary. The most recent messages follow verbatim."
)
TRIPPED_WARNING = (
    "automatic context compaction is paused after {failures} consecutive failures; "
    "run /compact to compact the conversation manually"
)


@dataclass(frozen=True)
class ManageResult:
    conversation: list[Message]
    before_tokens: int
    after_tokens: int
    triggered_layer1: bool
    triggered_layer2: bool
    offloaded_count: int
    cleared_count: int = 0
    warnings: tuple[str, ...] = ()
    tripped: bool = False
    summary: str | None = None
    error: ProviderError | None = None


def compacted_conversation(summary: str, tail: Sequence[Message]) -> list[Message]:
    """The three meta messages and ``tail``, roles alternating (a leading user message is merged)."""
    head = [
        Message.user(f"{SUMMARY_MESSAGE_PREFIX} Summary of the earlier conversation:\n\n{summary}"),
        Message.assistant(SUMMARY_ACKNOWLEDGEMENT),
    ]
    rest = list(tail)
    if rest and rest[0].role == "user":
        return [*head, Message.user(f"{SUMMARY_REMINDER}\n\n{rest[0].text}"), *rest[1:]]
    return [*head, Message.user(SUMMARY_REMINDER), *rest]


def history_after_meta(conversation: Sequence[Message]) -> list[Message]:
    """The conversation without an earlier compaction's meta messages (a merged user message stays)."""
    prefix = meta_prefix_length(conversation)
    if prefix == 3 and conversation[2].text.startswith(SUMMARY_REMINDER + "\n\n"):
        merged = conversation[2].text[len(SUMMARY_REMINDER) + 2 :]
        return [Message.user(merged), *conversation[3:]]
    return list(conversation[prefix:])


async def compact_conversation(
    conversation: Sequence[Message],
    runtime: Runtime,
    provider: Provider,
    *,
    trigger: Trigger = "auto",
    instructions: str | None = None,
    memory: str | None = None,
) -> tuple[list[Message], str]:
    """Layer 2: (new conversation, summary). Raises ``ProviderError`` when the summary fails."""
    budget = runtime.budget
    count = runtime.estimator.count
    summary = await summarize(
        provider,
        runtime.model,
        conversation,
        budget_tokens=budget.summary_input_budget(trigger),
        instructions=instructions,
        max_tokens=budget.summary_max_output_tokens,
        count=count,
        memory=memory,
    )
    history = history_after_meta(conversation)
    tail = select_recent(history, keep_tokens=budget.recent_keep_tokens, count=count)
    compacted = compacted_conversation(summary, tail)
    while runtime.overhead_tokens + count(compacted) >= runtime.auto_threshold:
        groups = closed_groups(tail)
        if len(groups) <= 1:
            break
        tail = tail[groups[1][0] :]
        compacted = compacted_conversation(summary, tail)
    return compacted, summary


def nothing_to_summarize(conversation: Sequence[Message], runtime: Runtime) -> bool:
    """Whether Layer 2 would keep every message verbatim anyway (a short history)."""
    history = history_after_meta(conversation)
    tail = select_recent(history, keep_tokens=runtime.budget.recent_keep_tokens, count=runtime.estimator.count)
    return len(tail) == len(history)


async def manage_context(
    conversation: Sequence[Message],
    runtime: Runtime,
    provider: Provider,
    *,
    trigger: Trigger = "auto",
    on_progress: ProgressCallback | None = None,
    instructions: str | None = None,
    memory: str | None = None,
    before_summary: BeforeSummary | None = None,
) -> ManageResult:
    """Govern the context before a model call (see the module docstring).

    ``before_summary(tokens)`` is awaited right before a Layer 2 summary is
    requested (after Layer 1, so never for a compaction Layer 1 made
    unnecessary): the ``PreCompact`` hook's dispatch point.
    """
    notify = on_progress or (lambda _message: None)
    before = runtime.estimate(conversation)
    conversation, cleared = clear_stale_tool_results(conversation, runtime, runtime.clock())
    layer1 = offload_tool_results(conversation, runtime)
    warnings = list(layer1.warnings)
    current = layer1.conversation
    tokens = runtime.estimate(current) if layer1.offloaded_count or cleared else before
    if layer1.offloaded_count:
        notify(f"offloaded {layer1.offloaded_count} large tool result(s) to disk")

    def finish(
        messages: list[Message],
        after: int,
        *,
        layer2: bool = False,
        summary: str | None = None,
        error: ProviderError | None = None,
    ) -> ManageResult:
        runtime.note_sent(messages)
        return ManageResult(
            conversation=messages,
            before_tokens=before,
            after_tokens=after,
            triggered_layer1=layer1.offloaded_count > 0,
            triggered_layer2=layer2,
            offloaded_count=layer1.offloaded_count,
            cleared_count=cleared,
            warnings=tuple(warnings),
            tripped=runtime.tripped,
            summary=summary,
            error=error,
        )

    if trigger == "auto" and tokens < runtime.auto_threshold:
        return finish(current, tokens)
    if trigger == "auto" and runtime.tripped:
        warnings.append(TRIPPED_WARNING.format(failures=runtime.failures))
        return finish(current, tokens)
    if not current:
        warnings.append("there is nothing to compact yet")
        return finish(current, tokens)
    if tokens < runtime.auto_threshold and nothing_to_summarize(current, runtime):
        warnings.append(
            f"nothing to compact: the whole conversation ({tokens} estimated tokens) fits in the recent "
            "messages that compaction keeps verbatim, so a summary would only make it longer"
        )
        return finish(current, tokens)
    if before_summary is not None:
        await before_summary(tokens)
    notify(f"compacting the conversation (estimated {tokens} tokens)")
    try:
        compacted, summary = await compact_conversation(
            current, runtime, provider, trigger=trigger, instructions=instructions, memory=memory
        )
    except ProviderError as error:
        if trigger == "auto":
            runtime.failures += 1
        warnings.append(f"context compaction failed: {error.message}")
        if trigger == "auto" and runtime.tripped:
            warnings.append(TRIPPED_WARNING.format(failures=runtime.failures))
        return finish(current, tokens, error=error)
    runtime.reset_anchor()
    after = runtime.estimate(compacted)
    if after < runtime.auto_threshold:
        runtime.failures = 0
    else:
        warnings.append("the conversation is still over the compaction threshold after compacting")
        if trigger == "auto":
            runtime.failures += 1
    if runtime.recorder is not None:
        try:
            runtime.recorder.append_compaction(
                summary=summary, messages=compacted, trigger=trigger, before_tokens=before, after_tokens=after
            )
        except OSError as error:
            warnings.append(f"could not record the compaction in the session ({error})")
    notify(f"context compacted: estimated tokens {before} -> {after}")
    return finish(compacted, after, layer2=True, summary=summary)


async def force_compact(
    conversation: Sequence[Message],
    runtime: Runtime,
    provider: Provider,
    *,
    instructions: str | None = None,
    on_progress: ProgressCallback | None = None,
    memory: str | None = None,
    before_summary: BeforeSummary | None = None,
) -> ManageResult:
    """``/compact``: Layer 1 then Layer 2 now, manual margin, no breaker check; ``memory`` informs the summary."""
    return await manage_context(
        conversation,
        runtime,
        provider,
        trigger="manual",
        on_progress=on_progress,
        instructions=instructions,
        memory=memory,
        before_summary=before_summary,
    )
