"""Anthropic's prompt cache, simulated from the requests themselves (the fake server and the benchmark share it).

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
