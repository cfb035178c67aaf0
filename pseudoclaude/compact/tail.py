"""The kept tail after a summary: older tool results inside it become previews, the newest stay whole.

A summary rewrites the whole prefix, so the prompt cache is lost from the
summary on anyway: this is the one moment a result the model has already
answered can be shortened for free. Inside the tail ``select_recent`` keeps,
each result older than the newest tool round (the round the model has not
answered yet) becomes its head+tail preview with the path of its complete
output (``preview.py``), under the shrink tier's rules: only tools that
declare their results clearable, only results more than twice a preview's
size, never a result a layer already replaced. The newest round stays whole.
Each replacement is recorded like a shrink (ledger and session, layer
``compact``) once the compaction is committed, so a resume sends the same
bytes; a result whose complete output cannot be saved stays whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from pseudoclaude.compact.estimate import utf8_len
from pseudoclaude.compact.offload import round_start
from pseudoclaude.compact.resultkey import result_id
from pseudoclaude.compact.preview import Saved, preview_for, save_complete
from pseudoclaude.compact.shrink import PREVIEW_BYTES
from pseudoclaude.compact.state import ContextState
from pseudoclaude.llm import Message


@dataclass(frozen=True)
class TailPreview:
    """One result of the tail shown as its preview: to record once the compaction is committed."""

    call_id: str
    preview: str
    saved: Saved


def preview_older_results(tail: Sequence[Message], state: ContextState, names: dict[str, str]) -> tuple[list[Message], list[TailPreview], list[str]]:
    """``tail`` with its older large results as previews (module docstring), what to record, warnings.

    ``names`` maps call ids to tool names (the tail may not hold the calls of its first results).
    """
    results = [i for i, m in enumerate(tail) if m.tool_result is not None]
    if not results:
        return list(tail), [], []
    newest = round_start(tail, results[-1])
    out = list(tail)
    previews: list[TailPreview] = []
    warnings: list[str] = []
    for index in results:
        message = tail[index]
        result = message.tool_result
        assert result is not None
        call_id = result_id(message, index, state)
        decided = state.decision(call_id)
        if index >= newest or names.get(result.call_id) not in state.clearable_tools or utf8_len(result.content) <= 2 * PREVIEW_BYTES:
            continue
        if decided is not None and decided[0] == "replace":
            continue
        try:
            saved = save_complete(state.session, result, call_id)
        except OSError as error:
            warnings.append(f"could not save tool result {call_id} to disk ({error}); it stays whole in the kept messages")
            continue
        if saved is None:
            continue
        preview = preview_for(result, saved)
        out[index] = message.with_result_content(preview)
        previews.append(TailPreview(call_id, preview, saved))
    return out, previews, warnings


def record_previews(previews: Sequence[TailPreview], state: ContextState) -> list[str]:
    """Put the committed previews in the ledger and the session; warnings for what could not be recorded."""
    warnings: list[str] = []
    for item in previews:
        state.mark_cleared(item.call_id, item.preview)
        if state.session is None:
            continue
        try:
            state.session.append_replacement(
                item.call_id, item.preview, layer="compact", original_bytes=item.saved.original_bytes, path=item.saved.path, resets_anchor=True
            )
        except OSError as error:
            warnings.append(f"could not record the preview of {item.call_id} in the session ({error})")
    return warnings
