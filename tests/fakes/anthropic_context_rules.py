"""The fake Anthropic server's context management: the rules of ``context_management`` and ``compaction`` blocks,
and what the server does with them (clears old tool results, compacts the conversation).

Shapes are the SDK's (``anthropic.types.beta``: ``BetaContextManagementConfigParam``,
``BetaClearToolUses20250919EditParam``, ``BetaClearThinking20251015EditParam``,
``BetaCompact20260112EditParam``, ``BetaCompactionBlockParam``); the rules the
service documents:

- ``context_management`` needs the beta header ``context-management-2025-06-27``
  for the clearing edits and ``compact-2026-01-12`` for ``compact_20260112``
  (and for any ``compaction`` block in ``messages``); without it the field is
  unknown (``Extra inputs are not permitted``).
- Each edit has only its own fields, of their types; ``clear_thinking`` comes
  first when edits are combined and needs thinking on; a compaction trigger
  is at least 50,000 input tokens; a model takes only the strategies it has
  (``STRATEGIES``, or the catalogue's ``capabilities`` when the server has one).
- A ``compaction`` block is the first block of the conversation (of the first
  message, which may then be the assistant's), at most one carries content,
  its content is not empty, and its ``signature`` verifies (an HMAC of the
  content under the fake's key: an edited summary is caught).

What the server does (``apply``): the clearing edit replaces the oldest
``tool_result`` contents (beyond the newest ``keep`` tool uses, not the
``exclude_tools``) with a placeholder once the prompt reaches its trigger,
only when at least ``clear_at_least`` tokens go; the compaction edit, once
the prompt reaches its trigger, summarizes the whole conversation into a
signed block, and the reply is sampled from the compacted prompt (a summary
that fails, ``summarize`` answering "", is a block with null content).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Sequence

from tests.fakes.anthropic_thinking_rules import signature, thinking_type

EDITING_BETA = "context-management-2025-06-27"
COMPACT_BETA = "compact-2026-01-12"
CLEAR_TOOL_USES = "clear_tool_uses_20250919"
CLEAR_THINKING = "clear_thinking_20251015"
COMPACT = "compact_20260112"
MIN_COMPACT_TRIGGER = 50_000
CLEARED = "[cleared to save context]"
EDITING_MODELS = ("claude-opus-4", "claude-sonnet-4", "claude-haiku-4-5", "claude-sonnet-5", "claude-opus-5", "claude-haiku-5")
COMPACTING_MODELS = ("claude-opus-4-6", "claude-opus-4-7", "claude-sonnet-4-6", "claude-sonnet-5", "claude-opus-5", "claude-mythos")
"""The docs' supported-model lists (context editing; compaction), by prefix."""

_FIELDS = {
    CLEAR_TOOL_USES: {"type", "clear_at_least", "clear_tool_inputs", "exclude_tools", "keep", "trigger"},
    CLEAR_THINKING: {"type", "keep"},
    COMPACT: {"type", "instructions", "pause_after_compaction", "trigger"},
}
_BETA = {CLEAR_TOOL_USES: EDITING_BETA, CLEAR_THINKING: EDITING_BETA, COMPACT: COMPACT_BETA}


def strategies_of(model: str) -> tuple[str, ...]:
    """The strategies the service's docs say ``model`` takes."""
    found: list[str] = []
    if any(model.startswith(prefix) for prefix in EDITING_MODELS + COMPACTING_MODELS):
        found += [CLEAR_TOOL_USES, CLEAR_THINKING]
    if any(model.startswith(prefix) for prefix in COMPACTING_MODELS):
        found.append(COMPACT)
    return tuple(found)


def betas(headers: Mapping[str, str]) -> set[str]:
    return {name.strip() for name in headers.get("anthropic-beta", "").split(",") if name.strip()}


def _counter(value: Any, kinds: tuple[str, ...], where: str) -> Iterator[str]:
    if not isinstance(value, dict) or value.get("type") not in kinds or set(value) != {"type", "value"}:
        yield f"{where}: Input should be an object with type {' or '.join(repr(k) for k in kinds)} and an integer value"
    elif not isinstance(value["value"], int) or isinstance(value["value"], bool) or value["value"] < 0:
        yield f"{where}.value: Input should be a non-negative integer"


def edit_problems(body: Mapping[str, Any], headers: Mapping[str, str], supported: Sequence[str]) -> Iterator[str]:
    """What is wrong with the request's ``context_management`` (and its compaction blocks' beta)."""
    sent = betas(headers)
    if _has_compaction_block(body) and COMPACT_BETA not in sent:
        yield f"messages: compaction blocks require the anthropic-beta header {COMPACT_BETA}"
    config = body.get("context_management")
    if config is None:
        return
    if not isinstance(config, dict) or set(config) - {"edits"} or not isinstance(config.get("edits"), list):
        yield "context_management: Input should be an object with an edits list"
        return
    edits = config["edits"]
    for n, edit in enumerate(edits):
        where = f"context_management.edits.{n}"
        kind = edit.get("type") if isinstance(edit, dict) else None
        if kind not in _FIELDS:
            yield f"{where}: Input tag {kind!r} found using 'type' does not match any of the expected tags: {', '.join(map(repr, _FIELDS))}"
            continue
        if _BETA[kind] not in sent:
            yield f"context_management: Extra inputs are not permitted (the {kind} edit requires the anthropic-beta header {_BETA[kind]})"
            continue
        if kind not in supported:
            yield f"{where}: the {kind} strategy is not supported by model {body.get('model')}"
        extra = set(edit) - _FIELDS[kind]
        if extra:
            yield f"{where}.{sorted(extra)[0]}: Extra inputs are not permitted"
        yield from _edit_shape(where, kind, edit, n, body)


def _edit_shape(where: str, kind: str, edit: Mapping[str, Any], n: int, body: Mapping[str, Any]) -> Iterator[str]:
    if kind == CLEAR_TOOL_USES:
        if "trigger" in edit:
            yield from _counter(edit["trigger"], ("input_tokens", "tool_uses"), f"{where}.trigger")
        if "keep" in edit:
            yield from _counter(edit["keep"], ("tool_uses",), f"{where}.keep")
        if edit.get("clear_at_least") is not None:
            yield from _counter(edit["clear_at_least"], ("input_tokens",), f"{where}.clear_at_least")
        excluded = edit.get("exclude_tools")
        if excluded is not None and not (isinstance(excluded, list) and all(isinstance(name, str) for name in excluded)):
            yield f"{where}.exclude_tools: Input should be a list of tool names"
    elif kind == CLEAR_THINKING:
        if n != 0:
            yield f"{where}: clear_thinking_20251015 must be the first edit when edits are combined"
        if not thinking_type(body):
            yield f"{where}: clear_thinking_20251015 requires thinking to be enabled"
        keep = edit.get("keep", "all")
        if keep != "all" and not (isinstance(keep, dict) and keep.get("type") == "all" and set(keep) == {"type"}):
            yield from _counter(keep, ("thinking_turns",), f"{where}.keep")
    else:
        trigger = edit.get("trigger")
        if trigger is not None:
            yield from _counter(trigger, ("input_tokens",), f"{where}.trigger")
            if isinstance(trigger, dict) and isinstance(trigger.get("value"), int) and trigger["value"] < MIN_COMPACT_TRIGGER:
                yield f"{where}.trigger.value: the compaction trigger must be at least {MIN_COMPACT_TRIGGER} input tokens"
        instructions = edit.get("instructions")
        if instructions is not None and not isinstance(instructions, str):
            yield f"{where}.instructions: Input should be a valid string"
        if "pause_after_compaction" in edit and not isinstance(edit["pause_after_compaction"], bool):
            yield f"{where}.pause_after_compaction: Input should be a valid boolean"


def _blocks(message: Any) -> list[Any]:
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def _has_compaction_block(body: Mapping[str, Any]) -> bool:
    return any(isinstance(b, dict) and b.get("type") == "compaction" for m in body.get("messages") or [] for b in _blocks(m))


def compaction_block_problems(i: int, j: int, block: Mapping[str, Any], with_content: int) -> Iterator[str]:
    """A ``compaction`` block at message ``i``, block ``j`` (``with_content``: such blocks before it)."""
    where = f"messages.{i}.content.{j}"
    extra = set(block) - {"type", "cache_control", "content", "encrypted_content", "signature", "tool_changes"}
    if extra:
        yield f"{where}.compaction.{sorted(extra)[0]}: Extra inputs are not permitted"
    if (i, j) != (0, 0):
        yield f"{where}: the compaction block must be the first block of the conversation (compaction_block_misplaced)"
    content = block.get("content")
    if content is None:
        return
    if not isinstance(content, str) or not content:
        yield f"{where}.compaction.content: Empty string content is not allowed"
    elif with_content:
        yield "messages: more than one compaction block with content; send only the block the conversation returned last"
    elif block.get("signature") != compaction_signature(content):
        yield f"{where}.compaction: the signature does not match the content (compaction_content_mismatch)"


def compaction_signature(content: str) -> str:
    return signature("compaction:" + content)


@dataclass
class Applied:
    """What the server did to one request: the body the model saw, the edits applied, the compaction made."""

    body: dict[str, Any]
    edits: list[dict[str, Any]] = field(default_factory=list)
    compaction: dict[str, Any] | None = None
    full_tokens: int = 0
    summarized: dict[str, Any] | None = None
    """The body the compaction summarized (after any clearing)."""


def apply(body: dict[str, Any], count: Callable[[Any], int], summarize: Callable[[Mapping[str, Any]], str], prompt_tokens: int | None = None) -> Applied:
    """The request as the model sees it after the server's edits (see the module docstring).

    ``prompt_tokens``: the size the script says the prompt has (a scenario reaches a trigger without sending
    that many bytes); None: the body's own count."""
    config = body.get("context_management") or {}
    seen = copy.deepcopy(body)
    seen.pop("context_management", None)
    applied = Applied(seen, full_tokens=count(seen))

    def size() -> int:
        return prompt_tokens if prompt_tokens is not None else count(applied.body)

    for edit in config.get("edits", ()):
        if edit["type"] == CLEAR_TOOL_USES:
            _clear(applied, edit, count, size())
        elif edit["type"] == COMPACT:
            trigger = (edit.get("trigger") or {}).get("value", 150_000)
            if size() >= trigger:
                applied.full_tokens = size()
                _compact(applied, summarize)
    return applied


def _clear(applied: Applied, edit: Mapping[str, Any], count: Callable[[Any], int], size: int) -> None:
    trigger = edit.get("trigger") or {"type": "input_tokens", "value": 100_000}
    if trigger.get("type") == "input_tokens" and size < trigger["value"]:
        return
    keep = (edit.get("keep") or {}).get("value", 3)
    excluded = set(edit.get("exclude_tools") or ())
    names = {b.get("id"): b.get("name") for m in applied.body["messages"] for b in _blocks(m) if b.get("type") == "tool_use"}
    results = [b for m in applied.body["messages"] for b in _blocks(m) if b.get("type") == "tool_result" and b.get("content") != CLEARED]
    clearable = [b for b in results[: max(0, len(results) - keep)] if names.get(b.get("tool_use_id")) not in excluded]
    before = count(applied.body)
    originals = [(b, b.get("content")) for b in clearable]
    for block in clearable:
        block["content"] = CLEARED
    cleared = before - count(applied.body)
    least = (edit.get("clear_at_least") or {}).get("value", 0)
    if not clearable or cleared < least:
        for block, content in originals:
            block["content"] = content
        return
    applied.edits.append({"type": CLEAR_TOOL_USES, "cleared_tool_uses": len(clearable), "cleared_input_tokens": cleared})


def _compact(applied: Applied, summarize: Callable[[Mapping[str, Any]], str]) -> None:
    applied.summarized = applied.body
    content = summarize(applied.body)
    if not content:  # the summary failed: a block with null content, a no-op; the reply sees the whole prompt
        applied.compaction = {"type": "compaction", "content": None, "signature": None}
        return
    block = {"type": "compaction", "content": content, "signature": compaction_signature(content)}
    applied.compaction = block
    applied.body = {**applied.body, "messages": [{"role": "assistant", "content": [dict(block)]}, {"role": "user", "content": "Continue."}]}


def default_summary(body: Mapping[str, Any]) -> str:
    """The fake's summary: the count of messages and the first user text (a stand-in for the model's)."""
    messages = body.get("messages") or []
    first = next((m for m in messages if m.get("role") == "user"), {})
    content = first.get("content")
    text = content if isinstance(content, str) else " ".join(b.get("text", "") for b in _blocks(first) if b.get("type") == "text")
    return f"Summary of {len(messages)} messages. The task began with: {json.dumps(text[:300])}"
