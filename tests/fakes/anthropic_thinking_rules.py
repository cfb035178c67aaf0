"""The fake Anthropic server's thinking: signed blocks it issues, and the request rules the real API enforces.

Signatures are an HMAC of the thinking text under a key only the fake knows,
so a thinking block that comes back edited, truncated or re-signed is caught
the way the real service catches it (``Invalid signature``); a redacted
block's data carries its hidden text and the same kind of signature.

Rules (from the extended / adaptive thinking documentation):

- ``thinking.type`` is ``enabled`` (with ``budget_tokens`` >= 1024 and below
  ``max_tokens``), ``adaptive`` or ``disabled``; adaptive only on the models
  that have it, ``enabled`` not on the adaptive-only ones, neither on models
  without thinking; ``output_config.effort`` one of the five levels.
- With thinking on: no ``temperature`` other than 1, no ``top_k``, no
  ``tool_choice`` that forces a tool.
- Thinking blocks only in assistant turns, before that turn's text and tool
  calls (budget mode), unchanged (valid signature), never with ``cache_control``.
- Budget mode: when the request continues a tool round (the last user turn
  holds tool results), the assistant turn it continues starts with a thinking block.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any, Iterator, Mapping

_KEY = b"fake-anthropic-thinking-key"
MIN_BUDGET = 1024
EFFORTS = ("low", "medium", "high", "xhigh", "max")
ADAPTIVE_ONLY = ("claude-opus-4-7", "claude-opus-4-8", "claude-opus-5", "claude-sonnet-5", "claude-haiku-5", "claude-fable-5", "claude-mythos")
"""Manual extended thinking (a budget) is refused from Opus 4.7 on and by the Claude 5 families (Sonnet 5's page: it
"returns a 400 error"; Opus 5.5, Fable: thinking always on). Some of them may turn thinking off, which this fake refuses."""
ADAPTIVE = ("claude-opus-4-6", "claude-sonnet-4-6", *ADAPTIVE_ONLY)
NO_THINKING = ("claude-3-5", "claude-3-haiku", "claude-3-opus", "claude-3-sonnet")
THINKING_TYPES = ("thinking", "redacted_thinking")


def signature(text: str) -> str:
    return base64.b64encode(hmac.new(_KEY, text.encode("utf-8"), hashlib.sha256).digest()).decode("ascii")


def redacted_data(text: str) -> str:
    hidden = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return f"{hidden}.{signature(text)}"


def _redacted_ok(data: Any) -> bool:
    if not isinstance(data, str) or "." not in data:
        return False
    hidden, sig = data.split(".", 1)
    try:
        text = base64.b64decode(hidden.encode("ascii"), validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return False
    return hmac.compare_digest(sig, signature(text))


def thinking_type(body: Mapping[str, Any]) -> str | None:
    """``enabled`` / ``adaptive`` when the request asks for thinking, else None."""
    config = body.get("thinking")
    kind = config.get("type") if isinstance(config, dict) else None
    return kind if kind in ("enabled", "adaptive") else None


def config_problems(body: Mapping[str, Any]) -> Iterator[str]:
    config = body.get("thinking")
    model = str(body.get("model", ""))
    if config is not None:
        kind = config.get("type") if isinstance(config, dict) else None
        if kind not in ("enabled", "adaptive", "disabled"):
            yield f"thinking: Input tag {kind!r} found using 'type' does not match any of the expected tags: 'enabled', 'disabled', 'adaptive'"
            return
        if kind != "disabled" and model.startswith(NO_THINKING):
            yield f"thinking: extended thinking is not supported on {model}"
        if kind == "adaptive" and not model.startswith(ADAPTIVE):
            yield f"thinking.type: 'adaptive' is not supported on {model}; use 'enabled' with budget_tokens"
        if kind in ("enabled", "disabled") and model.startswith(ADAPTIVE_ONLY):
            yield f"thinking.type: {kind!r} is not supported on {model}; use 'adaptive' with output_config.effort"
        if kind == "enabled":
            yield from _budget_problems(config, body.get("max_tokens"))
    output_config = body.get("output_config")
    if output_config is not None:
        effort = output_config.get("effort") if isinstance(output_config, dict) else None
        if effort not in EFFORTS:
            yield "output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'"
    if thinking_type(body):
        if body.get("temperature") not in (None, 1):
            yield "`temperature` may only be set to 1 when thinking is enabled."
        if body.get("top_k") is not None:
            yield "`top_k` is not compatible with thinking."
        choice = body.get("tool_choice")
        if isinstance(choice, dict) and choice.get("type") in ("any", "tool"):
            yield "Thinking may not be enabled when tool_choice forces tool use."


def _budget_problems(config: Mapping[str, Any], max_tokens: Any) -> Iterator[str]:
    budget = config.get("budget_tokens")
    if not isinstance(budget, int):
        yield "thinking.enabled.budget_tokens: Field required"
    elif budget < MIN_BUDGET:
        yield f"thinking.enabled.budget_tokens: Input should be greater than or equal to {MIN_BUDGET}"
    elif isinstance(max_tokens, int) and budget >= max_tokens:
        yield "`max_tokens` must be greater than `thinking.budget_tokens`."


def block_problems(where: str, role: str, block: Mapping[str, Any], after_other: bool, budget_mode: bool) -> Iterator[str]:
    """Problems of one thinking or redacted_thinking block at ``where``."""
    if role != "assistant":
        yield f"{where}: thinking blocks may only appear in assistant messages"
    if block.get("cache_control") is not None:
        yield f"{where}: cache_control cannot be set for thinking blocks"
    if after_other and budget_mode:
        yield f"{where}: thinking blocks must come before the text and tool_use blocks of their message"
    if block.get("type") == "thinking":
        text, sig = block.get("thinking"), block.get("signature")
        if not isinstance(text, str) or not isinstance(sig, str) or not hmac.compare_digest(sig, signature(text)):
            yield f"{where}: Invalid `signature` in `thinking` block"
    elif not _redacted_ok(block.get("data")):
        yield f"{where}: Invalid `data` in `redacted_thinking` block"


def tool_round_problems(body: Mapping[str, Any], messages: list[Any], blocks_of: Any) -> Iterator[str]:
    """Budget mode: the assistant turn a tool-result turn continues must start with thinking."""
    if thinking_type(body) != "enabled" or len(messages) < 2:
        return
    last, previous = blocks_of(messages[-1]), blocks_of(messages[-2])
    if not any(isinstance(b, dict) and b.get("type") == "tool_result" for b in last):
        return
    first = previous[0] if previous else {}
    if first.get("type") not in THINKING_TYPES:
        yield (
            f"messages.{len(messages) - 2}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
            f"`{first.get('type')}`. When `thinking` is enabled, a final `assistant` message must start with a "
            "thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks)."
        )
