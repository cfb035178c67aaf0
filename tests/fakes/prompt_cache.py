"""Anthropic's prompt cache, simulated from the requests themselves (the fake server and the benchmark share it);
OpenAI's automatic prefix caching beside it (``OpenAIPromptCache``, the benchmark's OpenAI runs).

The rule, as the service documents it:

1. A prompt is a sequence of blocks in the order the service reads it: each
   tool, each system block, each content block of each message (with its
   role). A block carrying ``cache_control`` is a breakpoint.
2. ``tool_choice`` is part of what the message blocks are cached under: the
   documentation lists a change of ``tool_choice`` among what invalidates the
   cached *message* blocks (tools and system stay cached). So the hash chain
   takes ``tool_choice`` in right before the first message block: two
   requests that differ only in ``tool_choice`` share their tools and system
   prefix and nothing after it.
3. A request *writes* the prefix ending at each of its breakpoints (when that
   prefix is at least ``min_tokens``, 1,024 for Sonnet).
4. A request *reads* the longest prefix ending at a block that some earlier
   request wrote, found by looking back at most ``LOOKBACK_BLOCKS`` blocks
   from each of its own breakpoints. Those tokens are cached; the rest is not.
   (No expiry: a scripted session runs well within the 5-minute TTL.)
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from tests.fakes.image_checks import strip_images

LOOKBACK_BLOCKS = 20
MIN_CACHE_TOKENS = 1024


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def prompt_blocks(body: Mapping[str, Any]) -> list[tuple[str, bool, int]]:
    """(block text without its marker, carries a cache marker, image tokens) in the order the service reads a prompt.

    A zero-width ``tool_choice:`` block stands right before the first message block (rule 2).
    An image's base64 is replaced by its digest in the text and counted by its pixels instead.
    """

    def block(role: str, value: Any) -> tuple[str, bool, int]:
        stripped, image_tokens = strip_images(value)
        if isinstance(stripped, dict):
            marked = "cache_control" in stripped
            return role + _json({k: v for k, v in stripped.items() if k != "cache_control"}), marked, image_tokens
        return role + _json(stripped), False, image_tokens

    blocks = [block("tool:", tool) for tool in body.get("tools") or []]
    system = body.get("system")
    blocks += [block("system:", b) for b in (system if isinstance(system, list) else [system] if system else [])]
    blocks.append(("\x00tool_choice:" + _json(body.get("tool_choice")), False, 0))
    for message in body.get("messages", []):
        content = message.get("content")
        for b in content if isinstance(content, list) else [content]:
            blocks.append(block(str(message.get("role")) + ":", b))
    return blocks


def _bytes_over_four(text: str) -> float:
    return len(text.encode("utf-8")) / 4


@dataclass
class PromptCache:
    """The cache of one model's prompts: prefixes written at breakpoints, read back (module docstring)."""

    tokens: Callable[[str], float] = _bytes_over_four
    min_tokens: int = MIN_CACHE_TOKENS
    written: set[bytes] = field(default_factory=set)

    def serve(self, body: Mapping[str, Any]) -> tuple[float, float]:
        """(prompt tokens, cached tokens) of one request; records the prefixes it writes."""
        running = hashlib.sha256(str(body.get("model")).encode())
        digests: list[bytes] = []
        ends: list[float] = []
        total = 0.0
        marks: list[int] = []
        for index, (text, marked, image_tokens) in enumerate(prompt_blocks(body)):
            running.update(b"\x00" + text.encode("utf-8"))
            digests.append(running.copy().digest())
            if not text.startswith("\x00"):
                total += self.tokens(text) + image_tokens
            ends.append(total)
            if marked:
                marks.append(index)
        cached = 0.0
        for mark in marks:
            for index in range(mark, max(-1, mark - LOOKBACK_BLOCKS), -1):
                if digests[index] in self.written:
                    cached = max(cached, ends[index])
                    break
        self.written.update(digests[mark] for mark in marks if ends[mark] >= self.min_tokens)
        return total, cached


OPENAI_CACHE_STEP = 128
"""OpenAI caches a prompt's prefix in steps of 128 tokens past the first 1,024."""


def responses_blocks(body: Mapping[str, Any]) -> list[str]:
    """A Responses request's prompt in the order the service reads it: each tool, the instructions, each input item."""
    items = body.get("input")
    blocks = ["tool:" + _json(tool) for tool in body.get("tools") or []]
    blocks.append("instructions:" + _json(body.get("instructions")))
    blocks += ["item:" + _json(strip_images(item)[0]) for item in ([items] if isinstance(items, str) else items or [])]
    return blocks


@dataclass
class OpenAIPromptCache:
    """OpenAI's automatic prompt caching, simulated on Responses requests (as the server renders them).

    No markers and no write step a client asks for: every prompt of at least ``min_tokens`` is cached
    whole, and a later prompt reads the longest prefix it shares with one cached before, counted in
    ``OPENAI_CACHE_STEP`` steps past ``min_tokens`` (a shorter share reads nothing). Prefixes are
    matched at item boundaries (a tool, the instructions, an input item), so a share that ends inside
    an item counts to that item's start: a slight underestimate. The model is part of the key, as are
    the tools and instructions before the items; ``tool_choice`` is not (no rule names it).
    (No expiry: a scripted session runs within the cache's minutes.)
    """

    tokens: Callable[[str], float] = _bytes_over_four
    min_tokens: int = MIN_CACHE_TOKENS
    written: set[bytes] = field(default_factory=set)

    def serve(self, body: Mapping[str, Any]) -> tuple[float, float]:
        """(prompt tokens, cached tokens) of one request; caches its prefixes."""
        running = hashlib.sha256(str(body.get("model")).encode())
        digests: list[bytes] = []
        ends: list[float] = []
        total = 0.0
        for text in responses_blocks(body):
            running.update(b"\x00" + text.encode("utf-8"))
            digests.append(running.copy().digest())
            total += self.tokens(text)
            ends.append(total)
        shared = next((ends[i] for i in range(len(digests) - 1, -1, -1) if digests[i] in self.written), 0.0)
        cached = 0.0 if shared < self.min_tokens else self.min_tokens + (shared - self.min_tokens) // OPENAI_CACHE_STEP * OPENAI_CACHE_STEP
        if total >= self.min_tokens:
            self.written.update(digests)
        return total, cached
