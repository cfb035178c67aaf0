"""The shrink tier: older large results become their previews, in one batch, when that pays for the cache it breaks.

Layer 1 keeps every result it did not spill verbatim for the rest of the
session, so a long session re-sends the same big outputs every turn until
Layer 2 summarizes everything. This tier sits between them: once the estimate
reaches ``Budget.shrink_threshold`` (half the window) a batch is considered,
and when it pays the inline bodies of older large results are replaced by
their head+tail preview and the path of their complete output
(``preview.py``), all in one step. Rules:

* **Which results.** Not the most recent ``SHRINK_KEEP_RECENT_RESULTS``, nor
  any result of the latest tool round (the model has not answered them yet);
  only tools that declare their results clearable (``state.clearable_tools``:
  never ``todo_write`` or ``remember``); only results more than twice a
  preview's size; never a result already replaced by a layer.
* **A batch runs only when it pays for the cache it breaks.** Rewriting an
  old result breaks the provider's prompt-cache prefix from there on: the
  next request writes everything after the first rewritten result again
  instead of reading it. In multiples of the model's uncached input price,
  with the provider's cache prices (``llm.cache_prices``: Anthropic reads at
  ``r`` = 0.1 and writes at ``w`` = 1.25; OpenAI reads at 0.1 and has no write
  premium, ``w`` = 1), ``T`` the estimate now, ``P`` the tokens before the
  first result the batch rewrites that the provider still serves from its
  cache (Anthropic looks back only 20 blocks from a breakpoint, so for a
  result further back than that ``P`` is the system prompt and tools:
  ``CachePrices.lookback_blocks``), ``S`` the tokens it
  removes, ``g`` what a round adds on average since the last summary and
  ``A`` the automatic summary threshold::

      break  = (T - S - P) * w  -  (T - P) * r     # rewritten suffix written, instead of read
      rounds = (A - T) / g                          # requests left before the summary anyway
      saving = rounds * S * r                       # each of them reads S fewer cached tokens

  The batch runs when ``saving > 1.5 * break`` (the margin below), or when it **avoids a summary** for
  less: the estimate is at ``A`` now, the batch brings it to ``A - SHRINK_MIN_ROUNDS * g``
  or below, and the room it buys costs less a round than the room a summary
  buys. A break that costs ``K`` and leaves ``X`` tokens costs, a round::

      rate(K, X) = K / ((A - X) / g)  +  (X + A) / 2 * r

  (the break spread over the rounds until the threshold again, plus reading
  the prompt, halfway between on average). The batch: ``K = 1.5 * break``,
  ``X = T - S``; the summary: ``K = T * r + O * o + C * w`` (the summary request,
  cached in place, its ``O`` output tokens at the output price ``o``, the prefix
  ``C`` after it written: kept tail, pinned block, summary; ``batchprice.summary_price``),
  ``X = C``. A batch that leaves much more than a summary would is a
  postponement, not a saving: the previews it keeps are summarized anyway a
  few rounds later. Either way it must remove at least
  ``SHRINK_MIN_ROUNDS`` rounds of growth and ``Budget.shrink_min_saving_bytes``
  (a fifth of the window), so it clears enough at once not to fire again for a
  few rounds, and a call right after a batch finds nothing to do. When the
  cache has gone cold (``clear.cache_is_cold``) nothing is cached: ``P`` is 0,
  the "instead" term is paid at ``w`` and any batch pays.

  The break is counted ``SHRINK_BREAK_MARGIN`` (1.5) times in both rules: it
  is paid at once, the saving only if the rounds it is counted over come, so a
  batch runs only when it pays clearly (``batchprice.py`` has the rule in one
  formula, the reason, measured, and worked examples).

  Worked example, Anthropic, 20 KB results (about 5,700 tokens a round):
  at 60k (``A`` = 47,600) with ``T`` = 34,000, ``P`` = 3,000 and ``S`` = 18,000 the
  break costs ``13,000 * 1.25 - 31,000 * 0.1 = 13,150`` while the 2.4 rounds
  left save ``2.4 * 18,000 * 0.1 = 4,300``: no batch (the old rule ran it and
  broke the cache every few rounds). At 200k (``A`` = 167,000) with ``T`` = 100,000,
  ``P`` = 3,000, ``S`` = 80,000: ``17,000 * 1.25 - 97,000 * 0.1 = 11,550`` against
  ``13.4 * 80,000 * 0.1 = 107,000``: it runs and pays nine times over.
* **Only removes text.** It can lower the estimate and so postpone Layer 2,
  never bring it forward.
* **Recorded like any decision.** Each replacement goes into the ledger and the
  session (layer ``shrink``, ``resets_anchor``: it rewrote text the provider had
  counted), so a resumed session sends the same bytes. A result whose
  complete output cannot be saved stays as it is (with a warning).

* **Old images go in the same batch.** Tool-result images older than the
  newest ``IMAGE_KEEP_RECENT_ROUNDS`` rounds become notes naming the file
  that keeps them (``imagenotes.py``); what they save (their published token
  cost, in bytes at 3.5 a token) counts toward the batch's minimum, so a
  cache break is spent on text and images together, never twice.

The most recent user message does not protect what follows it: a long
autonomous task is one user message and dozens of tool rounds, which is exactly
where older outputs pile up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from pseudoclaude.compact.budget import (
    ESTIMATE_CHARS_PER_TOKEN,
    PREVIEW_HEAD_BYTES,
    PREVIEW_TAIL_BYTES,
    SHRINK_KEEP_RECENT_RESULTS,
)
from pseudoclaude.compact.batchprice import BatchPrice, batch_price
from pseudoclaude.compact.estimate import image_rule, utf8_len
from pseudoclaude.compact.imagenotes import old_image_results, result_image_tokens, with_notes
from pseudoclaude.compact.layer import LayerAction, LayerStep
from pseudoclaude.compact.offload import round_start
from pseudoclaude.compact.resultkey import result_id
from pseudoclaude.compact.preview import PREVIEW_REMINDER, preview_for, save_complete
from pseudoclaude.compact.state import ContextState
from pseudoclaude.llm import Message

PREVIEW_BYTES = PREVIEW_HEAD_BYTES + PREVIEW_TAIL_BYTES + len(PREVIEW_REMINDER) + 512
"""About the largest a preview gets (head, tail, header lines with an ordinary path, reminder)."""


@dataclass(frozen=True)
class Candidate:
    """A result a batch would shrink: where it is, its ledger key, its size in bytes."""

    index: int
    call_id: str
    size: int


def _candidates(conversation: Sequence[Message], state: ContextState) -> list[Candidate]:
    """The results a batch would shrink now (see the module docstring), oldest first."""
    names = {call.id: call.name for message in conversation for call in message.tool_calls}
    results = [i for i, m in enumerate(conversation) if m.tool_result is not None]
    if not results:
        return []
    newest = min(results[-SHRINK_KEEP_RECENT_RESULTS:][0], round_start(conversation, results[-1]))
    out: list[Candidate] = []
    for i in results:
        if i >= newest:
            break
        message = conversation[i]
        assert message.tool_result is not None
        if names.get(message.tool_result.call_id) not in state.clearable_tools:
            continue
        call_id = result_id(message, i, state)
        decided = state.decision(call_id)
        if decided is not None and decided[0] == "replace":
            continue
        size = utf8_len(message.tool_result.content)
        if size <= 2 * PREVIEW_BYTES:
            continue
        out.append(Candidate(i, call_id, size))
    return out


def shrink_older_results(conversation: Sequence[Message], state: ContextState, tokens: int) -> tuple[Sequence[Message], int, tuple[str, ...]]:
    """The conversation (estimated at ``tokens``) with older large results shrunk when a batch is due (else itself); how many; warnings."""
    budget = state.budget
    if tokens < budget.shrink_threshold:
        return conversation, 0, ()
    candidates = {c.index: c for c in _candidates(conversation, state)}
    pictures = set(old_image_results(conversation, state)) if state.session is not None else set()
    if not candidates and not pictures:
        return conversation, 0, ()
    rule = image_rule(state.model)
    image_bytes = sum(int(result_image_tokens(conversation[i], rule) * ESTIMATE_CHARS_PER_TOKEN) for i in pictures)
    saving_bytes = sum(c.size - PREVIEW_BYTES for c in candidates.values()) + image_bytes
    if saving_bytes < budget.shrink_min_saving_bytes:
        return conversation, 0, ()
    if not _price(conversation, state, tokens, list(candidates.values()), sorted(pictures), image_bytes).pays:
        return conversation, 0, ()
    out = list(conversation)
    warnings: list[str] = []
    for index in sorted(set(candidates) | pictures):
        warnings.extend(_shrink_one(out, index, candidates.get(index), index in pictures, state))
    shrunk = sum(1 for new, old in zip(out, conversation) if new is not old)
    if shrunk:
        state.reset_anchor()
    return (out if shrunk else conversation), shrunk, tuple(warnings)


def _price(
    conversation: Sequence[Message], state: ContextState, tokens: int, candidates: Sequence[Candidate], pictures: Sequence[int], image_bytes: int
) -> BatchPrice:
    """The price of shrinking ``candidates`` to previews and the images of ``pictures`` to notes now, at ``tokens``.

    A result's removed tokens are its count times the share of its bytes that go
    (the estimator's count, cached per message, without encoding the preview).
    """
    count = state.estimator.count
    removed = sum(count([conversation[c.index]]) * (c.size - PREVIEW_BYTES) / c.size for c in candidates)
    removed += image_bytes / ESTIMATE_CHARS_PER_TOKEN
    return batch_price(conversation, state, tokens, int(removed), min([c.index for c in candidates] + list(pictures)))


def _shrink_one(out: list[Message], index: int, candidate: Candidate | None, images: bool, state: ContextState) -> list[str]:
    """Shrink ``out[index]``: its text to a preview (``candidate``), its images to notes (``images``); record it; warnings."""
    message = out[index]
    result = message.tool_result
    assert result is not None
    call_id = candidate.call_id if candidate is not None else result_id(message, index, state)
    session = state.session
    warnings: list[str] = []
    content, saved = result.content, None
    if candidate is not None:
        try:
            saved = save_complete(session, result, call_id)
        except OSError as error:
            warnings.append(f"could not save tool result {call_id} to disk ({error}); it stays in the context")
        if saved is not None:
            content = preview_for(result, saved)
    dropped = images and session is not None
    if dropped and session is not None:
        try:
            content = with_notes(content, result.images, session)
        except OSError as error:
            dropped = False
            warnings.append(f"could not keep the images of tool result {call_id} in the session folder ({error}); they stay in the context")
    if saved is None and not dropped:
        return warnings
    if dropped:
        state.mark_images_dropped(call_id, content)
    else:
        state.mark_cleared(call_id, content)
    out[index] = state.replaced(message, call_id, content)
    if session is None:
        return warnings
    original = saved.original_bytes if saved is not None else utf8_len(result.content) + sum(len(i.data) for i in result.images)
    try:
        session.append_replacement(
            call_id,
            content,
            layer="shrink",
            original_bytes=original,
            path=saved.path if saved is not None else None,
            resets_anchor=True,
            drops_images=dropped,
        )
    except OSError as error:
        warnings.append(f"could not record the shrinking of {call_id} in the session ({error})")
    return warnings


def shrink_layer(conversation: Sequence[Message], state: ContextState) -> LayerStep:
    """The shrink tier as a pipeline step."""
    before = state.estimate(conversation)
    out, shrunk, warnings = shrink_older_results(conversation, state, before)
    if not shrunk:
        return LayerStep(out, warnings=warnings)
    after = state.estimate(out)
    notes = sum(len(old.all_images()) - len(new.all_images()) for new, old in zip(out, conversation))
    pictures = f" ({notes} images became notes)" if notes else ""
    action = LayerAction(
        "shrink",
        shrunk,
        f"older tool results shrunk to previews: {shrunk}{pictures}; estimated tokens {before} -> {after}",
        {"shrunk": shrunk, "images": notes, "before_tokens": before, "after_tokens": after},
    )
    return LayerStep(out, action, warnings)
