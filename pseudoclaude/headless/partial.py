"""``--include-partial-messages``: one assistant message as Anthropic's raw stream events, as Claude Code prints them.

Each streamed message is ``message_start``, then its content blocks in the
order the model writes them (``thinking`` with ``thinking_delta``s, ``text``
with ``text_delta``s, each ``tool_use`` opened with an empty ``input`` and
filled by ``input_json_delta`` pieces as the model writes the arguments),
each ended by ``content_block_stop``, then ``message_delta`` and
``message_stop``. Block indexes are the places the blocks take in the
``assistant`` message that follows (thinking, then text, then the tool
calls), so a reader may assemble either. A tool call's pieces concatenate to
its final ``input``: argument names are rewritten to Claude Code's
(``path`` -> ``file_path``) as they stream, by ``KeyRenamer``.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Callable, Mapping

from pseudoclaude.agent import ToolInputDelta, ToolInputStart
from pseudoclaude.tools import ToolTraits

Emit = Callable[[dict[str, object]], None]


class KeyRenamer:
    """Rewrites the top-level keys of a JSON object that arrives in pieces, leaving every other character as written.

    The model's own formatting (spaces, escapes) passes through; a key is
    held back only until its closing quote, then printed under its new name.
    """

    def __init__(self, names: Mapping[str, str]) -> None:
        self.names = dict(names)
        self.depth = 0
        self.in_string = False
        self.escaped = False
        self.expect_key = False
        self.object = False
        self.key: list[str] | None = None

    def feed(self, piece: str) -> str:
        if not self.names:
            return piece
        out: list[str] = []
        for char in piece:
            if self.in_string:
                self._string_char(char, out)
                continue
            if char in "{[":
                self.depth += 1
                if self.depth == 1:
                    self.object = self.expect_key = char == "{"
            elif char in "}]":
                self.depth -= 1
            elif self.depth == 1 and char in ",:":
                self.expect_key = char == "," and self.object
            elif char == '"':
                self.in_string = True
                if self.depth == 1 and self.expect_key:
                    self.key = [char]
                    continue
            out.append(char)
        return "".join(out)

    def _string_char(self, char: str, out: list[str]) -> None:
        closing = char == '"' and not self.escaped
        self.escaped = char == "\\" and not self.escaped
        if self.key is None:
            out.append(char)
        else:
            self.key.append(char)
        if not closing:
            return
        self.in_string = False
        if self.key is not None:
            raw, self.key = "".join(self.key), None
            try:
                name = json.loads(raw)
            except json.JSONDecodeError:
                out.append(raw)
                return
            out.append(json.dumps(self.names[name], ensure_ascii=False) if name in self.names else raw)


@dataclass
class _ToolBlock:
    index: int
    renamer: KeyRenamer
    written: bool = False


@dataclass
class PartialMessage:
    """One assistant message's stream events as they arrive; ``close`` ends it once the whole message is known."""

    emit: Emit
    model: str
    traits: Mapping[str, ToolTraits]
    blocks: int = 0
    open: int | None = None
    text_index: int | None = None
    thinking_open: bool = False
    tools: dict[int, _ToolBlock] = field(default_factory=dict)

    def __post_init__(self) -> None:
        start = {"id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant", "model": self.model, "content": []}
        self.emit({"type": "message_start", "message": start})

    def text(self, text: str) -> None:
        if self.text_index is None:
            self.text_index = self._start({"type": "text", "text": ""})
        elif self.open != self.text_index:
            self._stop()
            self.open = self.text_index
        self._delta(self.text_index, {"type": "text_delta", "text": text})

    def thinking(self, text: str) -> None:
        if not self.thinking_open:
            self._start({"type": "thinking", "thinking": "", "signature": ""})
            self.thinking_open = True
        self._delta(self.open, {"type": "thinking_delta", "thinking": text})

    def tool_start(self, event: ToolInputStart) -> None:
        traits = self.traits.get(event.name)
        name = traits.claude_name(event.name) if traits is not None else event.name
        renames = dict(traits.claude_arguments) if traits is not None else {}
        index = self._start({"type": "tool_use", "id": event.call_id, "name": name, "input": {}})
        self.tools[event.index] = _ToolBlock(index, KeyRenamer(renames))

    def tool_delta(self, event: ToolInputDelta) -> None:
        block = self.tools.get(event.index)
        if block is None:
            return
        piece = block.renamer.feed(event.fragment)
        if piece:
            block.written = True
            self._delta(block.index, {"type": "input_json_delta", "partial_json": piece})

    def close(self, tool_uses: list[dict[str, object]], stop_reason: str | None) -> None:
        """End the message; the calls that never streamed (a provider that sends them whole) are sent whole here."""
        self._stop()
        for position, block in enumerate(tool_uses):
            if position not in self.tools:
                index = self._start({**block, "input": {}})
                self._delta(index, {"type": "input_json_delta", "partial_json": json.dumps(block["input"], ensure_ascii=False)})
                self._stop()
        self.emit({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None}})
        self.emit({"type": "message_stop"})

    def _start(self, content_block: dict[str, object]) -> int:
        self._stop()
        index, self.blocks = self.blocks, self.blocks + 1
        self.open = index
        self.emit({"type": "content_block_start", "index": index, "content_block": content_block})
        return index

    def _stop(self) -> None:
        if self.open is None:
            return
        for block in self.tools.values():
            if block.index == self.open and not block.written:
                block.written = True
                self._delta(block.index, {"type": "input_json_delta", "partial_json": "{}"})
        self.emit({"type": "content_block_stop", "index": self.open})
        self.open, self.thinking_open = None, False

    def _delta(self, index: int | None, delta: dict[str, object]) -> None:
        self.emit({"type": "content_block_delta", "index": index, "delta": delta})
