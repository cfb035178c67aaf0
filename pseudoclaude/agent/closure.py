"""Pure repair of a conversation so that no history can make a provider reject it.

Runs every time a request is built. Whatever produced the history (an
interrupt, a crash, a torn session file, a hand-edited transcript), the
result obeys the rules both providers enforce:

- the first message is from the user;
- every assistant tool call is answered by exactly one tool result, placed
  after that assistant message and before the next user or assistant message,
  in call order (a missing answer is synthesized as an error result);
- every tool result answers a call of the assistant message just before it
  (orphans and duplicates are dropped);
- no empty assistant message; consecutive user texts, and consecutive
  assistant texts without calls, are merged so roles alternate.

``normalize_call_ids`` makes tool-call ids safe at the moment an assistant
message enters the conversation: an empty, duplicate or hostile id (anything
outside ``[A-Za-z0-9_-]{1,64}``) is replaced by a stable derived one.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace
from typing import Sequence

from pseudoclaude.llm import Message, ToolCall

INTERRUPTED_RESULT = "Tool call interrupted by the user before it finished; it may not have run."


def interrupted_result(cause: str = "user") -> str:
    """The result of a call cut off by ``cause``: "user" (Esc, Ctrl-C) or what ended the process ("the process received SIGTERM")."""
    if cause == "user":
        return INTERRUPTED_RESULT
    return f"Tool call interrupted before it finished ({cause}, not the user); it may not have run."


MISSING_RESULT = "No result was recorded for this tool call (the run stopped before it finished)."

_SAFE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def normalize_call_ids(message: Message, seen: set[str]) -> Message:
    """``message`` with every tool-call id safe and unique among ``seen`` (which it updates)."""
    if not message.tool_calls:
        return message
    calls: list[ToolCall] = []
    changed = False
    for index, call in enumerate(message.tool_calls):
        call_id = call.id
        if not _SAFE_ID.match(call_id) or call_id in seen:
            digest = hashlib.sha256(f"{call.id}\0{index}\0{len(seen)}".encode("utf-8", "replace")).hexdigest()
            call_id = f"call_{digest[:24]}"
            changed = True
        seen.add(call_id)
        calls.append(call if call_id == call.id else replace(call, id=call_id))
    return replace(message, tool_calls=tuple(calls)) if changed else message


def _unplaced_compaction(message: Message, index: int) -> Message:
    """A provider's compaction is sent only first (where it replaces what came before); elsewhere (a summary of ours
    kept it in its tail) its readable summary becomes text."""
    if index == 0 or message.compaction is None:
        return message
    said = f"[summary of the conversation before this point]\n{message.compaction.text}" if message.compaction.text else ""
    return replace(message, compaction=None, text="\n\n".join(part for part in (said, message.text) if part))


def repair(messages: Sequence[Message], missing_text: str = MISSING_RESULT) -> list[Message]:
    """A copy of ``messages`` that every provider accepts (see the module docstring)."""
    out: list[Message] = []
    index = 0
    while index < len(messages):
        message = _unplaced_compaction(messages[index], index)
        index += 1
        if message.role == "tool":
            continue  # a result not directly after its call: an orphan
        if message.role == "assistant" and message.tool_calls:
            _append(out, message)
            results: dict[str, Message] = {}
            while index < len(messages) and messages[index].role == "tool":
                result = messages[index]
                index += 1
                call_id = result.tool_result.call_id if result.tool_result else ""
                if call_id not in results:
                    results[call_id] = result
            for call in message.tool_calls:
                out.append(results.get(call.id) or Message.tool(call.id, missing_text, is_error=True))
            continue
        if message.role == "assistant" and not message.text.strip() and message.compaction is None:
            continue
        _append(out, message)
    if out and out[0].role != "user" and out[0].compaction is None:  # a provider's compaction opens the conversation it replaced
        out.insert(0, Message.user("(continuing an earlier conversation)"))
    return out


def _append(out: list[Message], message: Message) -> None:
    previous = out[-1] if out else None
    if previous is not None and previous.role == message.role and not previous.tool_calls:
        out[-1] = replace(message, text="\n\n".join(t for t in (previous.text, message.text) if t))
        return
    out.append(message)
