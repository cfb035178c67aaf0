"""Anthropic extended thinking: the request parameters an effort maps to, and thinking blocks on the wire.

The mapping (the model table's ``reasoning`` style decides):

| style           | sent                                                                   |
|-----------------|------------------------------------------------------------------------|
| ``budget``      | ``thinking: {type: enabled, budget_tokens}``; effort low 4k, medium 10k, high 32k, max 64k; ``max_thinking_tokens`` overrides |
| ``adaptive``    | ``thinking: {type: adaptive, display: summarized}`` + ``output_config: {effort}``; an explicit ``max_thinking_tokens`` sends a budget instead |
| ``adaptive_only`` | the adaptive form, always (a budget is refused by the API)           |
| none / unknown  | nothing: the setting is dropped (the CLI shows a one-line notice)      |

Thinking tokens are output tokens and count against ``max_tokens``, so
``max_tokens`` grows by the budget, capped at the model's maximum output and
at what the context window leaves after the prompt (estimated generously at
3 bytes a token: the API rejects prompt + ``max_tokens`` over the window),
and the budget shrinks to stay below it; a budget that cannot reach the API's
1,024 minimum is not requested at all. ``display: summarized`` because newer
models omit the thinking text unless asked.

Thinking blocks go back first in their assistant turn, unchanged (text and
signature, or a redacted block's data), as the API requires in a tool-use
turn. When a budget request continues a tool round that was answered without
thinking (thinking switched on mid-turn), thinking is left off for that
request: the API rejects such a turn. Adaptive thinking is optional for the
model, so an unthought round is valid there.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from pseudoclaude.llm.images import image_tokens
from pseudoclaude.llm.messages import Thinking
from pseudoclaude.llm.models import model_info
from pseudoclaude.llm.provider import Effort, Request
from pseudoclaude.llm.providers import ANTHROPIC

BUDGETS: Mapping[Effort, int] = {"low": 4_000, "medium": 10_000, "high": 32_000, "max": 64_000}
MIN_BUDGET = 1_024
DEFAULT_EFFORT: Effort = "high"


def thinking_params(request: Request) -> dict[str, Any]:
    """``max_tokens`` and the thinking parameters for ``request``; ``{}`` when it sends none."""
    info = model_info(request.model)
    style = info.reasoning if info is not None and info.provider == ANTHROPIC.name else ""
    if not request.wants_thinking or style not in ("budget", "adaptive", "adaptive_only"):
        return {}
    cap = _room(request, info.max_output_tokens, info.context_window) if info is not None else 0
    effort = request.effort or DEFAULT_EFFORT
    if style == "adaptive_only" or (style == "adaptive" and not request.max_thinking_tokens):
        return {
            "max_tokens": _capped(request.max_tokens + BUDGETS[effort], cap, request.max_tokens),
            "thinking": {"type": "adaptive", "display": "summarized"},
            "output_config": {"effort": effort},
        }
    budget = max(MIN_BUDGET, request.max_thinking_tokens or BUDGETS[effort])
    max_tokens = _capped(request.max_tokens + budget, cap, request.max_tokens)
    room = max_tokens - request.max_tokens
    budget = min(budget, room if room >= MIN_BUDGET else max_tokens // 2)
    if budget < MIN_BUDGET:
        return {}
    return {"max_tokens": max_tokens, "thinking": {"type": "enabled", "budget_tokens": budget}}


def _room(request: Request, max_output: int, window: int) -> int:
    """The most ``max_tokens`` may be: the model's output limit and what the window leaves after the prompt
    (its images counted by their pixels, as the service bills them)."""
    prompt = len(request.system) + len(request.system_suffix)
    prompt += sum(len(json.dumps(m.to_dict(), ensure_ascii=False)) for m in request.messages)
    prompt += sum(len(t.description) + len(json.dumps(dict(t.input_schema))) for t in request.tools)
    images = sum(image_tokens(i, ANTHROPIC.name) for m in request.messages for i in m.all_images() if i.available)
    left = max(1, window - prompt // 3 - images)
    return min(max_output, left) if max_output > 0 else left


def _capped(wanted: int, cap: int, floor: int) -> int:
    return max(floor, min(wanted, cap)) if cap > 0 else wanted


def thinking_blocks(parts: tuple[Thinking, ...]) -> list[dict[str, Any]]:
    """The wire blocks of the Anthropic thinking parts, in order, unchanged; other providers' parts are dropped."""
    blocks: list[dict[str, Any]] = []
    for part in parts:
        if part.provider != ANTHROPIC.name:
            continue
        if part.kind == "redacted_thinking":
            blocks.append({"type": "redacted_thinking", "data": part.opaque})
        elif part.kind == "thinking":
            blocks.append({"type": "thinking", "thinking": part.text, "signature": part.opaque})
    return blocks


def continues_unthought_tool_round(turns: list[dict[str, Any]]) -> bool:
    """Whether the last turn answers tool calls of an assistant turn that does not start with thinking."""
    if len(turns) < 2 or turns[-1]["role"] != "user" or turns[-2]["role"] != "assistant":
        return False
    if not any(b.get("type") == "tool_result" for b in turns[-1]["content"]):
        return False
    first = turns[-2]["content"][0] if turns[-2]["content"] else {}
    return first.get("type") not in ("thinking", "redacted_thinking")
