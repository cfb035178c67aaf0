"""The ledger key of a tool result, below the ledger (``state``) and every layer that reads it.

``ContextState`` keys its decisions by call id; the layers and the image
count (``imagecount``) ask this one function which key a result has, so it
lives under all of them and reads the ledger through ``seam.Ledger``.
"""

from __future__ import annotations

from pseudoclaude.compact.estimate import utf8_len
from pseudoclaude.compact.preview import replaced_size
from pseudoclaude.compact.seam import Ledger
from pseudoclaude.llm import Message


def result_id(message: Message, index: int, state: Ledger | None = None) -> str:
    """The ledger key of a result: its call id, made unique by position when an id is reused.

    A preview recorded for ``call_id`` must never replace a *different*
    result that happens to carry the same id (some servers reuse ids); the
    preview's recorded original size tells them apart.
    """
    assert message.tool_result is not None
    call_id = message.tool_result.call_id or f"#result-{index}"
    decided = state.decision(call_id) if state is not None else None
    if decided is None or decided[0] != "replace" or message.tool_result.content == decided[1]:
        return call_id
    size = replaced_size(decided[1])
    if size is None or size == utf8_len(message.tool_result.content):
        return call_id
    return f"{call_id}#{index}"
