"""Anthropic's server-side context management on the wire: the ``context_management`` edits, their beta headers,
and the ``compaction`` block in both directions.

What a ``ServerContext`` becomes (SDK: ``anthropic.types.beta``), only for the
strategies the model takes (``model_info(...).context_management``: the
models endpoint's ``capabilities``, else the table), in the order the API
requires (``clear_thinking`` first when edits are combined)::

    clear_thinking_20251015  {keep: "all"}                  only when the request thinks
    clear_tool_uses_20250919 {trigger, keep, clear_at_least, exclude_tools}
    compact_20260112         {trigger, instructions, pause_after_compaction: false}

Beta headers: ``context-management-2025-06-27`` for the two clearing edits,
``compact-2026-01-12`` for compaction, and also whenever the messages carry
a compaction block (a request after a compaction, a resume, a summary asked
in place after a fallback): the block is a beta content type.

The compaction block is kept as received (``Compaction.opaque``: the block's
JSON with the fields the stream gave, ``content`` and ``encrypted_content``
as the last ``compaction_delta`` set them, which is how the SDK's own
accumulator reads them) and sent back as those bytes, first in the message
that carried it. Thinking is kept whole (``keep: all``): clearing it would
break the cached prefix on every turn, and the compaction that comes anyway
removes it with the rest.

A model or gateway that refuses the feature answers 400 naming it (an
unknown beta, an unknown field, an unsupported edit): ``refuses_server_context``
recognises that answer, so the caller can send the request again without it.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from pseudoclaude.llm.errors import BadRequest, ProviderError
from pseudoclaude.llm.messages import Compaction, Message
from pseudoclaude.llm.provider import ServerContext

PROVIDER = "anthropic"
CLEAR_TOOL_USES = "clear_tool_uses_20250919"
CLEAR_THINKING = "clear_thinking_20251015"
COMPACT = "compact_20260112"
EDITING_BETA = "context-management-2025-06-27"
COMPACT_BETA = "compact-2026-01-12"
COMPACTION_FIELDS = ("content", "encrypted_content", "signature", "tool_changes")
MIN_COMPACT_TRIGGER = 50_000
"""The lowest ``compact_20260112`` trigger the API takes (docs: the default is 150,000, the minimum 50,000)."""

_REFUSAL_WORDS = ("context_management", "context-management", "compact", "clear_tool_uses", "clear_thinking", "anthropic-beta", "beta")


def context_params(context: ServerContext | None, supported: Sequence[str], *, thinking: bool) -> dict[str, Any]:
    """The ``context_management`` parameter for ``context`` (only the ``supported`` strategies); {} for none."""
    if context is None:
        return {}
    edits: list[dict[str, Any]] = []
    if context.clear_thinking and thinking and CLEAR_THINKING in supported:
        edits.append({"type": CLEAR_THINKING, "keep": "all"})
    if context.clear_trigger is not None and CLEAR_TOOL_USES in supported:
        edit: dict[str, Any] = {
            "type": CLEAR_TOOL_USES,
            "trigger": {"type": "input_tokens", "value": context.clear_trigger},
            "keep": {"type": "tool_uses", "value": context.clear_keep},
        }
        if context.clear_at_least:
            edit["clear_at_least"] = {"type": "input_tokens", "value": context.clear_at_least}
        if context.clear_exclude:
            edit["exclude_tools"] = list(context.clear_exclude)
        edits.append(edit)
    if context.compact_trigger is not None and COMPACT in supported:
        compact: dict[str, Any] = {"type": COMPACT, "trigger": {"type": "input_tokens", "value": max(MIN_COMPACT_TRIGGER, context.compact_trigger)}}
        if context.compact_instructions:
            compact["instructions"] = context.compact_instructions
        compact["pause_after_compaction"] = False
        edits.append(compact)
    return {"context_management": {"edits": edits}} if edits else {}


def betas_for(params: dict[str, Any], messages: Sequence[Message]) -> list[str]:
    """The ``anthropic-beta`` names a request with these parameters and messages needs."""
    kinds = {edit["type"] for edit in params.get("context_management", {}).get("edits", ())}
    betas = [EDITING_BETA] if kinds & {CLEAR_TOOL_USES, CLEAR_THINKING} else []
    if COMPACT in kinds or any(_ours(m.compaction) for m in messages):
        betas.append(COMPACT_BETA)
    return betas


def _ours(compaction: Compaction | None) -> bool:
    return compaction is not None and compaction.provider == PROVIDER and bool(compaction.opaque)


def compaction_block(compaction: Compaction | None) -> list[dict[str, Any]]:
    """The block to send back for ``compaction`` (ours only, as received); [] for none or another provider's."""
    if not _ours(compaction):
        return []
    assert compaction is not None
    try:
        block = json.loads(compaction.opaque)
    except ValueError:
        return []
    return [block] if isinstance(block, dict) and block.get("type") == "compaction" else []


def block_fields(block: Any) -> dict[str, Any]:
    """A streamed ``compaction`` block's fields, in the SDK's order, those it carries (a model's nested ones as dicts)."""
    fields: dict[str, Any] = {"type": "compaction"}
    for name in COMPACTION_FIELDS:
        value = getattr(block, name, None)
        if value is not None:
            fields[name] = [_plain(item) for item in value] if isinstance(value, list) else value
    return fields


def _plain(item: Any) -> Any:
    to_dict = getattr(item, "to_dict", None)
    return to_dict() if callable(to_dict) else item


def compaction_of(fields: dict[str, Any]) -> Compaction:
    """The neutral part for a finished block (its summary readable, the block itself opaque)."""
    content = fields.get("content")
    return Compaction(PROVIDER, text=content if isinstance(content, str) else "", opaque=json.dumps(fields, ensure_ascii=False))


def applied_edits(context_management: Any) -> tuple[tuple[str, int], ...]:
    """(edit type, input tokens it cleared) for each edit the response says was applied."""
    edits = getattr(context_management, "applied_edits", None) or ()
    return tuple((str(getattr(e, "type", "")), int(getattr(e, "cleared_input_tokens", 0) or 0)) for e in edits)


def refuses_server_context(error: ProviderError) -> bool:
    """Whether ``error`` is a refusal of the feature itself (a 400 naming it), not of the request's content."""
    if not isinstance(error, BadRequest) or error.status not in (400, 404, 422):
        return False
    message = error.message.lower()
    return any(word in message for word in _REFUSAL_WORDS)
