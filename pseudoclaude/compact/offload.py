"""Layer 1: move oversized tool results to disk, leave a preview in the conversation.

Cheap and deterministic, no model call. A result over the single limit is
spilled; within one tool round (the results that follow one assistant message)
the largest not-yet-replaced results are spilled while their total is over the
aggregate limit. A result a tool already shaped to the output budget
(``ToolResult.shaped``) is never spilled by the single limit, only by the
aggregate one (forty parallel pages must not fill the window); its preview then
names the tool's complete output (``full_output``) and no new file is written.
Previews hold the head and the tail (``preview.py``). Invariants:

* The preview replaces the content **only after the file is written**; a
  failed write keeps the original content, reports a warning and leaves the
  result undecided so the next call retries. A run never stops for it.
* Every decision goes into the state's ledger and is reused verbatim
  afterwards (prompt-cache prefix stability); results that stay are marked
  ``keep`` and are never reconsidered.
* Work per call is proportional to what was appended since the last call: the
  state remembers how far it decided (``ScanMark``) and trusts that prefix
  only while the caller hands back the very message objects it returned.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from pseudoclaude.compact.estimate import utf8_len
from pseudoclaude.compact.layer import LayerAction, LayerStep
from pseudoclaude.compact.preview import preview_for, save_complete
from pseudoclaude.compact.resultkey import result_id
from pseudoclaude.compact.state import ContextState, ScanMark
from pseudoclaude.llm import Message


@dataclass(frozen=True)
class OffloadResult:
    conversation: list[Message]
    offloaded_count: int
    warnings: tuple[str, ...] = ()


def round_start(messages: Sequence[Message], index: int) -> int:
    """The first index of the run of tool results that ``index`` belongs to or continues."""
    start = index
    while start > 0 and messages[start - 1].role == "tool":
        start -= 1
    return start


def _rounds(messages: Sequence[Message], start: int) -> list[list[int]]:
    """Indices of tool messages from ``start``, grouped by the run of results they belong to."""
    groups: list[list[int]] = []
    current: list[int] = []
    for i in range(start, len(messages)):
        if messages[i].tool_result is not None:
            current.append(i)
        elif current:
            groups.append(current)
            current = []
    if current:
        groups.append(current)
    return groups


def _resume_point(messages: Sequence[Message], state: ContextState) -> tuple[int, list[tuple[int, Message]]]:
    mark = state.scan_mark
    if mark is None or mark.length > len(messages) or messages[mark.length - 1] is not mark.last:
        return 0, []
    if any(index >= len(messages) or messages[index] is not msg for index, msg in mark.replaced):
        return 0, []
    return round_start(messages, mark.length), list(mark.replaced)


class _Pass:
    """One Layer 1 pass over ``out`` (mutated in place)."""

    def __init__(self, out: list[Message], state: ContextState) -> None:
        self.out = out
        self.state = state
        self.offloaded = 0
        self.warnings: list[str] = []
        self.failed: set[int] = set()

    def spill(self, index: int, call_id: str) -> bool:
        state = self.state
        message = self.out[index]
        assert message.tool_result is not None
        session = state.session
        try:
            saved = save_complete(session, message.tool_result, call_id)
        except OSError as error:
            self.failed.add(index)
            self.warnings.append(f"could not save tool result {call_id} to disk ({error}); it stays in the context")
            return False
        if saved is None:
            if not state.warned_no_session:
                state.warned_no_session = True
                self.warnings.append("large tool results stay in the context: this session has no spill directory")
            return False
        preview = preview_for(message.tool_result, saved)
        state.mark_replace(call_id, preview)
        self.out[index] = message.with_result_content(preview)
        self.offloaded += 1
        if session is None:
            return True
        try:
            session.append_replacement(call_id, preview, layer="offload", original_bytes=saved.original_bytes, path=saved.path)
        except OSError as error:
            self.warnings.append(f"could not record the offload of {call_id} in the session ({error})")
        return True


def offload_tool_results(conversation: Sequence[Message], state: ContextState) -> OffloadResult:
    """Apply ledger decisions and decide the undecided results (see the module docstring)."""
    out = list(conversation)
    start, replaced = _resume_point(out, state)
    budget = state.budget
    work = _Pass(out, state)
    sizes: dict[int, int] = {}
    undecided: dict[int, str] = {}
    for i in range(start, len(out)):
        message = out[i]
        if message.tool_result is None:
            continue
        call_id = result_id(message, i, state)
        decided = state.decision(call_id)
        if decided is not None:
            kind, preview = decided
            if kind == "replace":
                out[i] = state.replaced(message, call_id, preview)
            continue
        size = utf8_len(message.tool_result.content)
        if size > budget.single_limit_bytes and not message.tool_result.shaped and work.spill(i, call_id):
            continue
        sizes[i] = size
        undecided[i] = call_id
    for group in _rounds(out, start):
        total = sum(sizes[i] if i in sizes else _kept_size(out[i], i, state) for i in group)
        candidates = sorted((i for i in group if i in undecided and i not in work.failed), key=lambda i: -sizes[i])
        for i in candidates:
            if total <= budget.aggregate_limit_bytes:
                break
            if work.spill(i, undecided[i]):
                total -= sizes.pop(i)
                del undecided[i]
    for i, call_id in undecided.items():
        if i not in work.failed:
            state.mark_keep(call_id)
    replaced.extend((i, out[i]) for i in range(start, len(out)) if out[i] is not conversation[i])
    _remember(state, out, replaced, work.failed, undecided)
    return OffloadResult(out, work.offloaded, tuple(work.warnings))


def _kept_size(message: Message, index: int, state: ContextState) -> int:
    """Bytes a decided result still costs: its content when kept, nothing when replaced."""
    assert message.tool_result is not None
    decided = state.decision(result_id(message, index, state))
    return 0 if decided is not None and decided[0] == "replace" else utf8_len(message.tool_result.content)


def _remember(state: ContextState, out: list[Message], replaced: list[tuple[int, Message]], failed: set[int], undecided: dict[int, str]) -> None:
    pending = [i for i in undecided if state.decision(undecided[i]) is None]
    length = min((round_start(out, i) for i in (*failed, *pending)), default=len(out))
    if length == 0:
        state.scan_mark = None
        return
    state.scan_mark = ScanMark(length, out[length - 1], [(i, m) for i, m in replaced if i < length])


def offload_layer(conversation: Sequence[Message], state: ContextState) -> LayerStep:
    """Layer 1 as a pipeline step."""
    result = offload_tool_results(conversation, state)
    if not result.offloaded_count:
        return LayerStep(result.conversation, warnings=result.warnings)
    before, after = state.estimate(conversation), state.estimate(result.conversation)
    action = LayerAction(
        "offload",
        result.offloaded_count,
        f"tool results offloaded: {result.offloaded_count}; estimated tokens {before} -> {after}",
        {"offloaded": result.offloaded_count, "before_tokens": before, "after_tokens": after},
    )
    return LayerStep(result.conversation, action, result.warnings)
