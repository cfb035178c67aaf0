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

The most recent user message does not protect what follows it: a long
autonomous task is one user message and dozens of tool rounds, which is exactly
where older outputs pile up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from pseudoclaude.compact.budget import (
    PREVIEW_HEAD_BYTES,
    PREVIEW_TAIL_BYTES,
    SHRINK_KEEP_RECENT_RESULTS,
)
from pseudoclaude.compact.estimate import utf8_len
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
    candidates = _candidates(conversation, state)
    if sum(c.size - PREVIEW_BYTES for c in candidates) < budget.shrink_min_saving_bytes:
        return conversation, 0, ()
    out = list(conversation)
    warnings: list[str] = []
    session = state.session
    for candidate in candidates:
        message = out[candidate.index]
        assert message.tool_result is not None
        try:
            saved = save_complete(session, message.tool_result, candidate.call_id)
        except OSError as error:
            warnings.append(f"could not save tool result {candidate.call_id} to disk ({error}); it stays in the context")
            continue
        if saved is None:
            continue
        preview = preview_for(message.tool_result, saved)
        state.mark_cleared(candidate.call_id, preview)
        out[candidate.index] = message.with_result_content(preview)
        if session is None:
            continue
        try:
            session.append_replacement(
                candidate.call_id, preview, layer="shrink", original_bytes=saved.original_bytes, path=saved.path, resets_anchor=True
            )
        except OSError as error:
            warnings.append(f"could not record the shrinking of {candidate.call_id} in the session ({error})")
    shrunk = sum(1 for new, old in zip(out, conversation) if new is not old)
    if shrunk:
        state.reset_anchor()
    return (out if shrunk else conversation), shrunk, tuple(warnings)


def shrink_layer(conversation: Sequence[Message], state: ContextState) -> LayerStep:
    """The shrink tier as a pipeline step."""
    before = state.estimate(conversation)
    out, shrunk, warnings = shrink_older_results(conversation, state, before)
    if not shrunk:
        return LayerStep(out, warnings=warnings)
    after = state.estimate(out)
    action = LayerAction(
        "shrink",
        shrunk,
        f"older tool results shrunk to previews: {shrunk}; estimated tokens {before} -> {after}",
        {"shrunk": shrunk, "before_tokens": before, "after_tokens": after},
    )
    return LayerStep(out, action, warnings)
