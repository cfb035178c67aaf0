"""Clearing old tool results once the provider's prompt cache has gone cold.

Layer 1 never re-decides a result, so that the prompt prefix stays
byte-identical while the provider caches it. That reason is gone after a long
pause: provider caches live minutes, so after ``COLD_CACHE_SECONDS`` without a
model call the whole prefix is processed again anyway. Then, and only then,
old results of observation tools (reads, searches, command output, edits) are
replaced by a short marker, keeping the most recent ``KEEP_RECENT_TOOL_RESULTS``:
the next request is smaller and cheaper, and the model re-runs a tool if it
needs the details again. Results of tools that carry lasting state
(``todo_write``, ``remember``) are never cleared (the second seed's rule).

By the shrink tier's arithmetic (``shrink.py``) this is the one case where
clearing always pays: with nothing cached, the next request writes the whole
prompt whatever happens, so every token cleared is saved on it and on every
request after, and no cache read is lost.

Which tools are which is each tool's own declaration (``ToolTraits.clearable``);
this package does not know the tools, so the names arrive as data:
``Runtime.clearable_tools``, set by whoever builds the session (empty: nothing
is cleared).

Clearing is a ledger decision like an offload: recorded in the session as a
``replacement`` of layer ``clear`` that resets the usage anchor (it rewrote
text the provider had counted), so a resumed session sends the same text.
A cleared result's images go with its text: each becomes a note naming the
file that keeps it (``imagenotes.py``), recorded as ``drops_images``.
"""

from __future__ import annotations

from typing import Sequence

from pseudoclaude.compact.estimate import utf8_len
from pseudoclaude.compact.imagenotes import with_notes
from pseudoclaude.compact.layer import LayerAction, LayerStep
from pseudoclaude.compact.resultkey import result_id
from pseudoclaude.compact.state import ContextState
from pseudoclaude.llm import Message

COLD_CACHE_SECONDS = 30 * 60
KEEP_RECENT_TOOL_RESULTS = 5
CLEARED_RESULT = (
    "[Old tool result content cleared] This result was cleared to keep the context small after a long pause. Run the tool again if you need its output."
)


def cache_is_cold(state: ContextState, now: float) -> bool:
    return state.last_call_at is not None and now - state.last_call_at >= COLD_CACHE_SECONDS


def clear_stale_tool_results(conversation: Sequence[Message], state: ContextState, now: float) -> tuple[Sequence[Message], int]:
    """The conversation with old observation results cleared when the cache is cold (else itself); how many were cleared."""
    if not cache_is_cold(state, now):
        return conversation, 0
    out = list(conversation)
    names = {call.id: call.name for message in out for call in message.tool_calls}
    clearable = [i for i, m in enumerate(out) if m.tool_result is not None and names.get(m.tool_result.call_id) in state.clearable_tools]
    cleared = 0
    for i in clearable[: max(0, len(clearable) - max(1, KEEP_RECENT_TOOL_RESULTS))]:
        message = out[i]
        assert message.tool_result is not None
        call_id = result_id(message, i, state)
        decided = state.decision(call_id)
        if decided is not None and decided[1].startswith(CLEARED_RESULT):
            continue
        text, dropped = _cleared_text(message, state)
        if dropped:
            state.mark_images_dropped(call_id, text)
        else:
            state.mark_cleared(call_id, text)
        out[i] = state.replaced(message, call_id, text)
        cleared += 1
        if state.session is not None:
            try:
                state.session.append_replacement(
                    call_id, text, layer="clear", original_bytes=utf8_len(message.tool_result.content), resets_anchor=True, drops_images=dropped
                )
            except OSError:
                pass  # the session keeps its own record of failed writes
    if cleared:
        state.reset_anchor()
    return out, cleared


def _cleared_text(message: Message, state: ContextState) -> tuple[str, bool]:
    """The marker for a cleared result, with a note per image it showed (whether its images go too)."""
    result = message.tool_result
    if result is None or not result.images or state.session is None:
        return CLEARED_RESULT, False
    try:
        return with_notes(CLEARED_RESULT, result.images, state.session), True
    except OSError:
        return CLEARED_RESULT, False  # the images stay; the text is cleared all the same


def clear_layer(conversation: Sequence[Message], state: ContextState) -> LayerStep:
    """Cold-cache clearing as a pipeline step."""
    out, cleared = clear_stale_tool_results(conversation, state, state.clock())
    if not cleared:
        return LayerStep(out)
    message = f"cleared {cleared} old tool results after a long pause (the prompt cache had expired)"
    return LayerStep(out, LayerAction("clear", cleared, message, {"cleared": cleared}))
