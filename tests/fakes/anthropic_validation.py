"""Request checks of the fake Anthropic server, as strict as the real Messages API.

``first_problem(body)`` returns the message of the first rule a request body
breaks (worded like the real service's ``invalid_request_error``), or None.
The rules are the ones that catch the costly agent bugs: an orphan
``tool_use`` or ``tool_result``, broken role alternation, empty text, bad ids,
and images (``image_checks``): only in user turns and inside a
``tool_result``'s content list, of a declared type the bytes really are, within
the size and dimension limits.
"""

from __future__ import annotations

import re
from typing import Any, Iterator, Mapping

from tests.fakes import anthropic_thinking_rules as thinking
from tests.fakes.anthropic_context_rules import compaction_block_problems
from tests.fakes.image_checks import (
    ANTHROPIC_MANY_IMAGES,
    ANTHROPIC_MANY_MAX_SIDE,
    ANTHROPIC_MAX_IMAGES,
    ANTHROPIC_MAX_SIDE,
    anthropic_image_count,
    anthropic_image_problem,
)

TOOL_USE_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
MAX_CACHE_BREAKPOINTS = 4


def first_problem(body: Any) -> str | None:
    return next(iter(problems(body)), None)


def problems(body: Any) -> Iterator[str]:
    if not isinstance(body, dict):
        yield "request body must be a JSON object"
        return
    for name in ("model", "max_tokens", "messages"):
        if name not in body:
            yield f"{name}: Field required"
            return
    if not isinstance(body["model"], str) or not body["model"]:
        yield "model: Input should be a valid string"
    if not isinstance(body["max_tokens"], int) or body["max_tokens"] < 1:
        yield "max_tokens: Input should be a positive integer"
    if body.get("stream") is not True:
        yield "stream: this fake server only answers streaming requests (stream: true)"
    yield from _system_problems(body.get("system"))
    yield from _tool_problems(body.get("tools"))
    yield from _tool_choice_problems(body.get("tool_choice"), body.get("tools"))
    yield from thinking.config_problems(body)
    images = anthropic_image_count(body.get("messages"))
    if images > ANTHROPIC_MAX_IMAGES:
        yield f"messages: too many images in the request: {images} > {ANTHROPIC_MAX_IMAGES} maximum"
    many = images > ANTHROPIC_MANY_IMAGES
    max_side = ANTHROPIC_MANY_MAX_SIDE if many else ANTHROPIC_MAX_SIDE
    yield from _message_problems(body["messages"], thinking.thinking_type(body) == "enabled", max_side)
    if isinstance(body["messages"], list):
        yield from thinking.tool_round_problems(body, body["messages"], _blocks)
    found = _count_cache_control(body)
    if found > MAX_CACHE_BREAKPOINTS:
        yield f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found {found}."


def _system_problems(system: Any) -> Iterator[str]:
    if system is None or isinstance(system, str):
        return
    if not isinstance(system, list):
        yield "system: Input should be a valid string or list of text blocks"
        return
    for j, block in enumerate(system):
        if not isinstance(block, dict) or block.get("type") != "text":
            yield f"system.{j}: Input should be a text block"
        elif not block.get("text"):
            yield f"system.{j}.text: text content blocks must be non-empty"


def _tool_problems(tools: Any) -> Iterator[str]:
    if tools is None:
        return
    if not isinstance(tools, list):
        yield "tools: Input should be a valid list"
        return
    seen: set[str] = set()
    for i, tool in enumerate(tools):
        name = tool.get("name") if isinstance(tool, dict) else None
        if not isinstance(name, str) or not TOOL_NAME.match(name):
            yield f"tools.{i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'"
            continue
        if name in seen:
            yield "tools: Tool names must be unique."
        seen.add(name)
        if not isinstance(tool.get("input_schema"), dict):
            yield f"tools.{i}.custom.input_schema: Field required"


TOOL_CHOICE_TYPES = ("auto", "any", "tool", "none")


def _tool_choice_problems(choice: Any, tools: Any) -> Iterator[str]:
    """``tool_choice`` is an object whose ``type`` is one of four; ``tool`` names a tool of the request."""
    if choice is None:
        return
    if not isinstance(choice, dict):
        yield "tool_choice: Input should be a valid dictionary or object to extract fields from"
        return
    kind = choice.get("type")
    if kind not in TOOL_CHOICE_TYPES:
        yield f"tool_choice: Input tag {kind!r} found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'"
        return
    if kind == "tool":
        names = {t.get("name") for t in tools if isinstance(t, dict)} if isinstance(tools, list) else set()
        if not isinstance(choice.get("name"), str):
            yield "tool_choice.tool.name: Field required"
        elif choice["name"] not in names:
            yield f"Tool '{choice['name']}' not found in provided tools"
    elif kind in ("any",) and not tools:
        yield "tool_choice: tool_choice.type 'any' may only be specified while providing tools."
    extra = set(choice) - {"type", "name", "disable_parallel_tool_use"}
    if extra:
        yield f"tool_choice.{kind}.{sorted(extra)[0]}: Extra inputs are not permitted"


def _blocks(message: Mapping[str, Any]) -> list[Any]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return list(content) if isinstance(content, list) else []


def _message_problems(messages: Any, budget_mode: bool, max_side: int = ANTHROPIC_MAX_SIDE) -> Iterator[str]:
    if not isinstance(messages, list) or not messages:
        yield "messages: at least one message is required"
        return
    seen_ids: set[str] = set()
    compactions: list[int] = []
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            yield f"messages.{i}.role: Input should be 'user' or 'assistant'"
            return
        role = message["role"]
        if i == 0 and role != "user" and not _opens_with_compaction(message):
            yield 'messages: first message must use the "user" role'
            return
        if i > 0 and messages[i - 1].get("role") == role:
            yield (f'messages: roles must alternate between "user" and "assistant", but found multiple "{role}" roles in a row')
            return
        blocks = _blocks(message)
        last = i == len(messages) - 1
        if not blocks and not (last and role == "assistant"):
            yield (f"messages.{i}: all messages must have non-empty content except for the optional final assistant message")
            return
        yield from _block_problems(i, role, blocks, seen_ids, budget_mode, max_side, compactions)
        if role == "assistant":
            yield from _pairing_after(i, blocks, messages[i + 1] if i + 1 < len(messages) else None, last)
        elif i > 0:
            yield from _pairing_before(i, blocks, _blocks(messages[i - 1]))


def _opens_with_compaction(message: Mapping[str, Any]) -> bool:
    blocks = _blocks(message)
    return bool(blocks) and isinstance(blocks[0], dict) and blocks[0].get("type") == "compaction"


def _block_problems(i: int, role: str, blocks: list[Any], seen_ids: set[str], budget_mode: bool, max_side: int, compactions: list[int]) -> Iterator[str]:
    after_other = False
    for j, block in enumerate(blocks):
        kind = block.get("type") if isinstance(block, dict) else None
        where = f"messages.{i}.content.{j}"
        if kind == "compaction":
            yield from compaction_block_problems(i, j, block, len(compactions))
            if block.get("content") is not None:
                compactions.append(i)
        elif kind in thinking.THINKING_TYPES:
            yield from thinking.block_problems(where, role, block, after_other, budget_mode)
        elif kind == "text":
            if not block.get("text"):
                yield f"{where}.text: text content blocks must be non-empty"
            after_other = True
        elif kind == "tool_use":
            after_other = True
            if role != "assistant":
                yield f"{where}: tool_use blocks may only appear in assistant messages"
            block_id = block.get("id")
            if not isinstance(block_id, str) or not TOOL_USE_ID.match(block_id):
                yield f"{where}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"
            elif block_id in seen_ids:
                yield f"{where}: `tool_use` ids must be unique: {block_id}"
            else:
                seen_ids.add(block_id)
            if not isinstance(block.get("name"), str) or not isinstance(block.get("input"), dict):
                yield f"{where}.tool_use: name and input (an object) are required"
        elif kind == "tool_result":
            if role != "user":
                yield f"{where}: tool_result blocks may only appear in user messages"
            if after_other:
                yield f"{where}: tool_result blocks must come first in the user message content"
            if not isinstance(block.get("tool_use_id"), str):
                yield f"{where}.tool_result.tool_use_id: Field required"
            yield from _tool_result_content_problems(f"{where}.tool_result.content", block.get("content"), max_side)
        elif kind == "image":
            after_other = True
            if role != "user":
                yield f"{where}: image blocks may only appear in user messages"
            problem = anthropic_image_problem(where, block, max_side)
            if problem:
                yield problem
        else:
            yield f"{where}.type: unsupported content block type {kind!r}"
            after_other = True


def _tool_result_content_problems(where: str, content: Any, max_side: int) -> Iterator[str]:
    """A ``tool_result``'s ``content``: absent, a string, or a list of text and image blocks."""
    if content is None or isinstance(content, str):
        return
    if not isinstance(content, list):
        yield f"{where}: Input should be a valid string or list of content blocks"
        return
    for k, part in enumerate(content):
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            if not part.get("text"):
                yield f"{where}.{k}.text: text content blocks must be non-empty"
        elif kind == "image":
            problem = anthropic_image_problem(f"{where}.{k}", part, max_side)
            if problem:
                yield problem
        else:
            yield (f"{where}.{k}: Input tag {kind!r} found using 'type' does not match any of the expected tags: 'text', 'image', 'search_result', 'document'")


def _pairing_after(i: int, blocks: list[Any], following: Any, last: bool) -> Iterator[str]:
    use_ids = [b["id"] for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"]
    if not use_ids or last:
        return
    answered = {
        b.get("tool_use_id") for b in (_blocks(following) if isinstance(following, dict) else []) if isinstance(b, dict) and b.get("type") == "tool_result"
    }
    missing = [u for u in use_ids if u not in answered]
    if missing:
        yield (
            f"messages.{i}: tool_use ids were found without tool_result blocks immediately after: "
            f"{', '.join(missing)}. Each tool_use block must have a corresponding tool_result block "
            "in the next message."
        )


def _pairing_before(i: int, blocks: list[Any], previous: list[Any]) -> Iterator[str]:
    use_ids = {b.get("id") for b in previous if isinstance(b, dict) and b.get("type") == "tool_use"}
    for j, block in enumerate(blocks):
        if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("tool_use_id") not in use_ids:
            yield (
                f"messages.{i}.content.{j}: unexpected tool_use_id found in tool_result blocks: "
                f"{block.get('tool_use_id')}. Each tool_result block must have a corresponding tool_use block "
                "in the previous message."
            )


def _count_cache_control(body: Mapping[str, Any]) -> int:
    count = 0
    sources: list[Any] = []
    if isinstance(body.get("system"), list):
        sources.extend(body["system"])
    if isinstance(body.get("tools"), list):
        sources.extend(body["tools"])
    for message in body.get("messages") or []:
        if isinstance(message, dict):
            sources.extend(_blocks(message))
    for item in sources:
        if isinstance(item, dict) and item.get("cache_control") is not None:
            count += 1
    return count
