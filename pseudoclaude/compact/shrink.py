"""The shrink tier: older large results become their previews, in one batch, well before a summary.

Layer 1 keeps every result it did not spill verbatim for the rest of the
session, so a long session re-sends the same big outputs every turn until
Layer 2 summarizes everything. This tier sits between them: once the estimate
reaches ``Budget.shrink_threshold`` (half the window), the inline bodies of
older large results are replaced by their head+tail preview and the path of
their complete output (``preview.py``), all in one step. Rules:

* **Which results.** Not the most recent ``SHRINK_KEEP_RECENT_RESULTS``, nor
  any result of the latest tool round (the model has not answered them yet);
  only tools that declare their results clearable (``state.clearable_tools``:
  never ``todo_write`` or ``remember``); only results more than twice a
  preview's size; never a result already replaced by a layer.
* **One batch, one cache break.** Rewriting an old result breaks the provider's
  prompt-cache prefix from there on, so a batch runs only when it saves at
  least ``Budget.shrink_min_saving_bytes`` (a fifth of the window): a single
  new result never triggers one, and a call right after a batch finds nothing
  to do. After a batch the estimate has to grow again, with enough new
  candidates, before the next one.
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
from pseudoclaude.compact.estimate import image_rule, utf8_len
from pseudoclaude.compact.imagenotes import old_image_results, result_image_tokens, with_notes
from pseudoclaude.compact.layer import LayerAction, LayerStep
from pseudoclaude.compact.offload import result_id, round_start
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


def shrink_older_results(
    conversation: Sequence[Message], state: ContextState, tokens: int
) -> tuple[Sequence[Message], int, tuple[str, ...]]:
    """The conversation (estimated at ``tokens``) with older large results shrunk when a batch is due (else itself); how many; warnings."""
    budget = state.budget
    if tokens < budget.shrink_threshold:
        return conversation, 0, ()
    candidates = {c.index: c for c in _candidates(conversation, state)}
    pictures = set(old_image_results(conversation, state)) if state.session is not None else set()
    rule = image_rule(state.model)
    saving = sum(c.size - PREVIEW_BYTES for c in candidates.values())
    saving += sum(int(result_image_tokens(conversation[i], rule) * ESTIMATE_CHARS_PER_TOKEN) for i in pictures)
    if saving < budget.shrink_min_saving_bytes:
        return conversation, 0, ()
    out = list(conversation)
    warnings: list[str] = []
    for index in sorted(set(candidates) | pictures):
        warnings.extend(_shrink_one(out, index, candidates.get(index), index in pictures, state))
    shrunk = sum(1 for new, old in zip(out, conversation) if new is not old)
    if shrunk:
        state.reset_anchor()
    return (out if shrunk else conversation), shrunk, tuple(warnings)


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
            call_id, content, layer="shrink", original_bytes=original, path=saved.path if saved is not None else None,
            resets_anchor=True, drops_images=dropped,
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
