"""The step before every model call: Layer 1, re-estimate, Layer 2 when needed.

``manage_context`` is a function of the conversation and the session's
``ContextState``: it returns a ``ContextOutcome`` (the conversation to send
and what each layer did) and never changes the caller's list; the runner
applies it. It never raises for a compaction problem: a spill failure, a
failed summary or a tripped breaker travel back in the outcome (``warnings``,
``error``, ``tripped``) with a conversation that is always valid to send, so
the runner decides whether to go on. The summary request goes through the
same retry policy as every other model call. Order and invariants:

0. The deterministic layers, in ``DETERMINISTIC_LAYERS`` order: after a
   long pause (the provider's prompt cache has expired) old observation
   results are cleared (``clear.py``), never while the cache is warm; then
   Layer 1 (``offload.py``), decisions reused; then, once the estimate
   reaches half the window, older large results shrink to their previews in
   one batch (``shrink.py``), only when what the batch saves over the rounds
   left before a summary outweighs the cache write it causes, or it avoids a
   summary for less than the summary would cost.
2. Re-estimate. Automatic Layer 2 runs at ``auto_threshold`` unless the
   breaker is tripped (then the result says so and asks for ``/compact``).
3. Layer 2 (``compact_conversation``): summary of the prefix the previous
   request sent, which the provider has cached (the messages after it join
   the kept tail; the whole history when they would not fit), then the three
   meta messages (the third opens with the pinned block built from the
   session's ``WorkingSet``, see ``pinned.py``) and the recent closed tail. If that is still over the
   threshold, the tail loses its oldest groups (the summary covers them); a
   compaction that cannot get under it counts as a failure, so automatic
   compaction can never loop. Success resets the failure count and the anchor.
   Against a local server (``local_server``) a summary request the server
   silently cut (``truncation.py``) is never kept: the window it showed is
   learned and the summary asked once more within it, else the compaction fails.

``force_compact`` (``/compact``: trigger ``manual``; overflow recovery:
``overflow``) runs the same pipeline with the manual margin, optional focus
instructions and no breaker check. The working set sees every conversation
first (only what was appended since the last outcome).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Awaitable, Callable, Literal, Sequence

from pseudoclaude.compact.budget import Budget
from pseudoclaude.compact.clear import clear_layer
from pseudoclaude.compact.imagenotes import summary_image_text
from pseudoclaude.compact.layer import Layer, LayerAction
from pseudoclaude.compact.offload import offload_layer
from pseudoclaude.compact.pinned import block_tokens, is_user_request, pinned_text
from pseudoclaude.compact.select import closed_groups, select_recent
from pseudoclaude.compact.shrink import shrink_layer
from pseudoclaude.compact.state import ContextState
from pseudoclaude.compact.tail import preview_older_results, record_previews
from pseudoclaude.compact.summarize import (
    SUMMARY_MESSAGE_PREFIX,
    RequestShape,
    meta_prefix_length,
    summarize,
    validated_summary,
)
from pseudoclaude.compact.truncation import SUMMARY_CONSEQUENCE, TRUNCATED_SOURCE, check_truncation
from pseudoclaude.llm import Message, PromptTruncated, Provider, ProviderError, RetryPolicy

Trigger = Literal["auto", "manual", "overflow"]
BeforeSummary = Callable[[int], Awaitable[None]]

DETERMINISTIC_LAYERS: tuple[Layer, ...] = (clear_layer, offload_layer, shrink_layer)

SUMMARY_ACKNOWLEDGEMENT = "Understood. I have the summary of the earlier conversation and will continue from where it left off."
SUMMARY_REMINDER = (
    "Note: the summary above is not the original conversation. When you need exact details "
    "(file contents, code, command output), re-read the files or re-run the commands instead of "
    "relying on the summary. The most recent messages follow verbatim."
    " The recall tool searches the summarized conversation (messages and tool results) for its exact text."
)
TRIPPED_WARNING = "automatic context compaction is paused after {failures} consecutive failures; run /compact to compact the conversation manually"


@dataclass(frozen=True)
class ContextOutcome:
    """What ``manage_context`` decided: the conversation to send and what each layer did.

    ``budget`` is the budget the layers planned with (the runner sizes tool
    output from it).
    """

    conversation: tuple[Message, ...]
    before_tokens: int
    after_tokens: int
    actions: tuple[LayerAction, ...] = ()
    warnings: tuple[str, ...] = ()
    tripped: bool = False
    summary: str | None = None
    error: ProviderError | None = None
    budget: Budget | None = None

    def action(self, layer: str) -> LayerAction | None:
        """What ``layer`` did this time, if anything."""
        return next((action for action in self.actions if action.layer == layer), None)

    def count(self, layer: str) -> int:
        action = self.action(layer)
        return action.count if action is not None else 0

    @property
    def changed(self) -> bool:
        """Whether any layer changed what the model sees (overflow recovery retries only then)."""
        return bool(self.actions)

    @property
    def summarized(self) -> bool:
        return self.action("compact") is not None


def compacted_conversation(summary: str, tail: Sequence[Message], pinned: str = "") -> list[Message]:
    """The three meta messages and ``tail``, roles alternating (a leading user message is merged, its images kept).

    The third message opens with the ``pinned`` block (``pinned.py``), then the
    reminder, so the block sits between the summary and the verbatim tail.
    """
    head = [
        Message.user(f"{SUMMARY_MESSAGE_PREFIX} Summary of the earlier conversation:\n\n{summary}"),
        Message.assistant(SUMMARY_ACKNOWLEDGEMENT),
    ]
    reminder = f"{pinned}\n\n{SUMMARY_REMINDER}" if pinned else SUMMARY_REMINDER
    rest = list(tail)
    if rest and rest[0].role == "user":
        return [*head, Message.user(f"{reminder}\n\n{rest[0].text}", rest[0].images), *rest[1:]]
    return [*head, Message.user(reminder), *rest]


def history_after_meta(conversation: Sequence[Message]) -> list[Message]:
    """The conversation without an earlier compaction's meta messages (a merged user message stays)."""
    prefix = meta_prefix_length(conversation)
    if prefix == 3:
        text = conversation[2].text
        pinned = pinned_text(conversation)
        if pinned and text.startswith(pinned + "\n\n"):
            text = text[len(pinned) + 2 :]
        if text.startswith(SUMMARY_REMINDER + "\n\n"):
            return [Message.user(text[len(SUMMARY_REMINDER) + 2 :], conversation[2].images), *conversation[3:]]
    return list(conversation[prefix:])


async def compact_conversation(
    conversation: Sequence[Message],
    state: ContextState,
    provider: Provider,
    *,
    trigger: Trigger = "auto",
    instructions: str | None = None,
    memory: str | None = None,
    retry: RetryPolicy = RetryPolicy(),
    shape: RequestShape | None = None,
    warnings: list[str] | None = None,
    local_server: bool = False,
) -> tuple[list[Message], str]:
    """Layer 2: (new conversation, summary). Raises ``ProviderError`` when the summary fails.

    ``shape`` builds the main loop's request: with it the summary is asked in
    place, reusing the cached prefix (see ``summarize``), when the whole
    request fits the manual summary budget (window - reserve - the small
    margin): the automatic trigger fires at the automatic budget, so that
    budget would send every automatic summary as a transcript. The reserve
    still covers the summary's output. Older results inside the kept tail
    become previews (``tail.py``); ``warnings`` receives what could not be saved
    or recorded. ``local_server``: the provider is a local server that may cut
    a prompt silently; each summary request's reported count is checked
    (``truncation.py``), and a cut one is never kept: the window the server
    showed is learned and the summary asked again within it (a transcript
    trimmed from the middle, the first request and the latest kept); a second
    cut raises ``PromptTruncated``, a failed compaction.
    """
    count = state.estimator.count
    ask = _SummaryCall(state, provider, trigger, instructions, memory, retry, shape, local_server)
    try:
        covered, summary = await ask(conversation)
    except PromptTruncated as error:
        if not state.learn_window(error.limit_tokens, TRUNCATED_SOURCE):
            raise
        if warnings is not None:
            warnings.append(f"{error.message}; budgeting against a window of {state.context_window:,} tokens and summarizing again")
        covered, summary = await ask(conversation)
    budget = state.budget
    summary = validated_summary(summary, budget.summary_max_output_tokens, count)
    history = history_after_meta(conversation)
    unsummarized = len(conversation) - covered
    tail = select_recent(history, keep_tokens=budget.recent_keep_tokens, max_tokens=budget.recent_max_tokens, count=count)
    if len(tail) < unsummarized:
        tail = history[len(history) - unsummarized :]
    names = {call.id: call.name for message in conversation for call in message.tool_calls}
    tail, previews, preview_warnings = preview_older_results(tail, state, names)
    pinned = pinned_block(state, tail)
    compacted = compacted_conversation(summary, tail, pinned)
    while state.overhead_tokens + count(compacted) >= state.auto_threshold:
        groups = closed_groups(tail)
        if len(groups) <= 1 or len(tail) - groups[1][0] < unsummarized:
            break
        tail = tail[groups[1][0] :]
        pinned = pinned_block(state, tail)
        compacted = compacted_conversation(summary, tail, pinned)
    if trigger == "auto" and count(compacted) >= count(conversation):
        raise ProviderError("the summary would make the conversation larger than the one it replaces")
    shown = {m.tool_result.content for m in compacted if m.tool_result is not None}
    preview_warnings += record_previews([p for p in previews if p.preview in shown], state)
    if warnings is not None:
        warnings.extend(preview_warnings)
    return compacted, summary


@dataclass(frozen=True)
class _SummaryCall:
    """One summary request as ``compact_conversation`` asks it, budgeted against the state's window at the time."""

    state: ContextState
    provider: Provider
    trigger: Trigger
    instructions: str | None
    memory: str | None
    retry: RetryPolicy
    shape: RequestShape | None
    local_server: bool

    async def __call__(self, conversation: Sequence[Message]) -> tuple[int, str]:
        """(how many leading messages the summary covers, its text)."""
        state, budget = self.state, self.state.budget
        covered = _summary_scope(conversation, state, self.shape)
        summary = await summarize(
            self.provider,
            state.model,
            conversation[:covered],
            budget_tokens=budget.summary_input_budget(self.trigger),
            instructions=self.instructions,
            max_tokens=budget.summary_max_output_tokens,
            count=state.estimator.count,
            memory=self.memory,
            retry=self.retry,
            shape=self.shape,
            prompt_tokens=state.estimate(conversation[:covered]),
            in_place_budget_tokens=budget.summary_input_budget("manual"),
            image_text=summary_image_text(state.session),
            check=self._check if self.local_server else None,
        )
        return covered, summary

    def _check(self, messages: Sequence[Message], reported: int, overhead: int | None) -> None:
        check_truncation(reported, messages, self.state, overhead_tokens=overhead, consequence=SUMMARY_CONSEQUENCE)


def _summary_scope(conversation: Sequence[Message], state: ContextState, shape: RequestShape | None) -> int:
    """How many leading messages the summary covers: the prefix the provider has cached, else all of them.

    The summary is asked in place for the conversation as the previous request
    sent it (``ContextState.last_sent``, a prefix of this one, so the provider
    serves all of it from its cache, and it fits: it was under the threshold)
    and the messages after it (the newest round, which the model has not
    answered yet) stay in the kept tail verbatim, whenever they fit under the
    threshold beside a full summary and the pinned block. Otherwise (a round
    too large for that, a rewritten prefix, nothing sent yet after a resume
    or a summary) everything is summarized, in place or as a transcript
    trimmed to fit. Measured on the session-cost benchmark: every summary
    request 98-99% cached, against 86% at the least when the newest round was
    summarized with the rest.
    """
    everything = len(conversation)
    sent = state.last_sent
    if shape is None or not sent or len(sent) >= everything or len(sent) <= meta_prefix_length(conversation):
        return everything
    if any(a is not b and a != b for a, b in zip(sent, conversation)):
        return everything
    budget = state.budget
    pinned = block_tokens(state.context_window, budget.pinned_max_tokens)
    after = state.overhead_tokens + budget.summary_max_output_tokens + pinned + state.estimator.count(conversation[len(sent) :])
    return len(sent) if after < state.auto_threshold else everything


def pinned_block(state: ContextState, tail: Sequence[Message]) -> str:
    """The pinned block to follow the summary; user messages the tail keeps verbatim are named, not repeated."""
    in_tail = [message.text for message in tail if is_user_request(message)]
    cap = block_tokens(state.context_window, state.budget.pinned_max_tokens)
    return state.working_set.render(cap, state.count_text, in_tail, window=state.context_window, kept=tail)


def nothing_to_summarize(conversation: Sequence[Message], state: ContextState) -> bool:
    """Whether Layer 2 would keep every message verbatim anyway (a short history)."""
    history = history_after_meta(conversation)
    tail = select_recent(history, keep_tokens=state.budget.recent_keep_tokens, max_tokens=state.budget.recent_max_tokens, count=state.estimator.count)
    return len(tail) == len(history)


def _skip_reason(current: Sequence[Message], tokens: int, state: ContextState, trigger: Trigger) -> str | None:
    """Why no summary is requested now ("" for the ordinary case of being under the threshold)."""
    if trigger == "auto" and tokens < state.auto_threshold:
        return ""
    if trigger == "auto" and state.tripped:
        return ""  # announced once when the breaker tripped, not on every later turn
    if not current:
        return "there is nothing to compact yet"
    if tokens < state.auto_threshold and nothing_to_summarize(current, state):
        return (
            f"nothing to compact: the whole conversation ({tokens} estimated tokens) fits in the recent "
            "messages that compaction keeps verbatim, so a summary would only make it longer"
        )
    return None


async def manage_context(
    conversation: Sequence[Message],
    state: ContextState,
    provider: Provider,
    *,
    trigger: Trigger = "auto",
    instructions: str | None = None,
    memory: str | None = None,
    before_summary: BeforeSummary | None = None,
    retry: RetryPolicy = RetryPolicy(),
    shape: RequestShape | None = None,
    local_server: bool = False,
) -> ContextOutcome:
    """Govern the context before a model call (see the module docstring).

    ``before_summary(tokens)`` is awaited right before a Layer 2 summary is
    requested (after the deterministic layers, so never for a compaction they
    made unnecessary): the ``PreCompact`` hook's and the "compacting" notice's
    dispatch point. ``shape`` is the main loop's request builder (the summary
    reuses its cached prefix). ``local_server``: summary requests are checked for a
    silent cut (see ``compact_conversation``).
    """
    state.working_set.observe(conversation)
    before = state.estimate(conversation)
    current: Sequence[Message] = conversation
    actions: list[LayerAction] = []
    warnings: list[str] = []
    for layer in DETERMINISTIC_LAYERS:
        step = layer(current, state)
        current = step.conversation
        warnings.extend(step.warnings)
        if step.action is not None:
            actions.append(step.action)
    tokens = state.estimate(current) if actions else before

    def finish(messages: Sequence[Message], after: int, summary: str | None = None, error: ProviderError | None = None) -> ContextOutcome:
        state.note_sent(messages)
        state.working_set.mark(messages)
        return ContextOutcome(tuple(messages), before, after, tuple(actions), tuple(warnings), state.tripped, summary, error, state.budget)

    reason = _skip_reason(current, tokens, state, trigger)
    if reason is not None:
        if reason:
            warnings.append(reason)
        return finish(current, tokens)
    if before_summary is not None:
        await before_summary(tokens)
    try:
        compacted, summary = await compact_conversation(
            current,
            state,
            provider,
            trigger=trigger,
            instructions=instructions,
            memory=memory,
            retry=retry,
            shape=shape,
            warnings=warnings,
            local_server=local_server,
        )
    except ProviderError as error:
        _count_failure(state, trigger, warnings, f"context compaction failed: {error.message}", announce_trip=True)
        return finish(current, tokens, error=error)
    state.reset_anchor()
    after = state.estimate(compacted)
    if after < state.auto_threshold:
        state.failures = 0
    else:
        _count_failure(state, trigger, warnings, "the conversation is still over the compaction threshold after compacting", announce_trip=True)
    _record_compaction(state, summary, compacted, trigger, before, after, warnings)
    data = {"trigger": trigger, "before_tokens": before, "after_tokens": after}
    actions.append(LayerAction("compact", 1, f"context compacted: {before} -> {after}", data))
    return finish(compacted, after, summary=summary)


def _count_failure(state: ContextState, trigger: Trigger, warnings: list[str], warning: str, *, announce_trip: bool = False) -> None:
    """A failed automatic summary counts toward the breaker; a manual one never trips it."""
    warnings.append(warning)
    if trigger != "auto":
        return
    state.failures += 1
    if state.tripped and announce_trip:
        warnings.append(TRIPPED_WARNING.format(failures=state.failures))


def _record_compaction(state: ContextState, summary: str, compacted: Sequence[Message], trigger: Trigger, before: int, after: int, warnings: list[str]) -> None:
    if state.session is None:
        return
    try:
        state.session.append_compaction(summary=summary, messages=compacted, trigger=trigger, before_tokens=before, after_tokens=after)
    except OSError as error:
        warnings.append(f"could not record the compaction in the session ({error})")


async def force_compact(
    conversation: Sequence[Message],
    state: ContextState,
    provider: Provider,
    *,
    instructions: str | None = None,
    memory: str | None = None,
    before_summary: BeforeSummary | None = None,
    retry: RetryPolicy = RetryPolicy(),
    shape: RequestShape | None = None,
    trigger: Trigger = "manual",
    local_server: bool = False,
) -> ContextOutcome:
    """``/compact`` (``manual``) or overflow recovery (``overflow``): the same pipeline now, manual margin, no breaker
    check; ``memory`` informs the summary."""
    return await manage_context(
        conversation,
        state,
        provider,
        trigger=trigger,
        instructions=instructions,
        memory=memory,
        before_summary=before_summary,
        retry=retry,
        shape=shape,
        local_server=local_server,
    )
