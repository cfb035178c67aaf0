"""The effort and the output cap of an OpenAI reasoning model, the same in both of OpenAI's APIs.

A reasoning model (the model table's ``effort`` styles: gpt-5, o1, o3,
o4-mini...) takes the effort as ``reasoning.effort`` through Responses and as
``reasoning_effort`` through Chat Completions, with the same values; and it
counts its reasoning against the output cap, so the cap gets room to reason
on top of the answer's (``REASONING_ALLOWANCE``), within the model's own
limit. ``thinking: disabled`` asks for the least reasoning (``low``: every
reasoning model takes it). ``max`` is sent as ``max`` where the model takes it
(GPT-5.6, GPT-6), else ``xhigh`` where it takes that, else ``high``
(``models.openai_effort``; the CLI says so once, ``effort_notice``).
"""

from __future__ import annotations

from pseudoclaude.llm.models import model_info, openai_effort, openai_reasoning_model
from pseudoclaude.llm.provider import Request

__all__ = ["REASONING_ALLOWANCE", "output_cap", "reasoning_effort"]

REASONING_ALLOWANCE = {"low": 8_192, "medium": 16_384, "high": 32_768, "max": 65_536}
"""Output tokens added to the answer's cap for reasoning (OpenAI counts reasoning against the output cap)."""


def reasoning_effort(request: Request) -> str | None:
    """The effort value to send for ``request`` (None: none to send, the model's default or not a reasoning model)."""
    if not openai_reasoning_model(request.model):
        return None
    if request.thinking == "disabled":
        return "low"
    return openai_effort(request.model, request.effort) if request.effort is not None else None


def output_cap(request: Request) -> int:
    """The answer's cap, plus room to reason for a reasoning model, within the model's own output limit."""
    if not openai_reasoning_model(request.model):
        return request.max_tokens
    level = "low" if request.thinking == "disabled" else request.effort or "medium"
    cap = request.max_tokens + REASONING_ALLOWANCE.get(level, REASONING_ALLOWANCE["medium"])
    info = model_info(request.model)
    return min(cap, info.max_output_tokens) if info is not None and info.max_output_tokens else cap
