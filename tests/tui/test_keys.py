"""Keys during a turn: interrupt, queue, approvals (no terminal needed)."""

from __future__ import annotations

import asyncio

from pseudoclaude.tools.permissions import ApprovalAnswer, ApprovalRequest, Rule
from pseudoclaude.tui.approval import TerminalApprover
from pseudoclaude.tui.keys import TurnKeys

REQUEST = ApprovalRequest("run_command", {"command": "ls"}, "ls", Rule("run_command", "ls"))


def make() -> tuple[TurnKeys, list[str], list[str]]:
    queue: list[str] = []
    calls: list[str] = []
    keys = TurnKeys(queue=queue.append, queued=lambda: queue, on_interrupt=lambda: calls.append("interrupt"), on_cycle_mode=lambda: calls.append("mode"))
    return keys, queue, calls


def type_text(keys: TurnKeys, text: str) -> None:
    for char in text:
        keys.handle(char)


def test_escape_and_ctrl_c_interrupt_and_shift_tab_cycles_the_mode() -> None:
    keys, _, calls = make()
    keys.handle("escape")
    keys.handle("c-c")
    keys.handle("s-tab")
    assert calls == ["interrupt", "interrupt", "mode"]


def test_text_typed_during_a_turn_is_queued_on_enter() -> None:
    keys, queue, _ = make()
    type_text(keys, "next tasx")
    keys.handle("c-h")
    type_text(keys, "k")
    assert queue == []
    keys.handle("c-m")
    keys.handle("<bracketed-paste>", "pasted\ntext")
    keys.handle("c-m")
    assert queue == ["next task", "pasted\ntext"]
    assert [line.plain for line in keys.footer()] == ["  queued: next task", "  queued: pasted\ntext"]  # type: ignore[attr-defined]


def answer(keys_input: list[tuple[str, str]]) -> ApprovalAnswer:
    async def go() -> ApprovalAnswer:
        keys, _, _ = make()
        approver = TerminalApprover()
        approver.keys = keys
        pending = asyncio.ensure_future(approver.ask(REQUEST))
        await asyncio.sleep(0)
        for key, data in keys_input:
            keys.handle(key, data)
        result = await pending
        assert keys.approval is None
        return result

    return asyncio.run(go())


def test_approval_answers_once_always_and_deny_with_a_reason() -> None:
    assert answer([("y", "")]) == ApprovalAnswer("once")
    assert answer([("a", "")]) == ApprovalAnswer("always")
    assert answer([("x", ""), ("n", ""), *((c, "") for c in "too risky"), ("c-m", "")]) == ApprovalAnswer("deny", "too risky")


def test_without_a_running_turn_the_approver_denies_with_a_reason() -> None:
    result = asyncio.run(TerminalApprover().ask(REQUEST))
    assert result.choice == "deny" and result.reason


def test_alt_enter_during_a_turn_is_a_newline_not_an_interrupt() -> None:
    from pseudoclaude.tui.keys import combine_presses

    keys, queue, calls = make()
    type_text(keys, "line one")
    for key, data in combine_presses([("escape", "\x1b"), ("c-m", "\r")]):
        keys.handle(key, data)
    type_text(keys, "line two")
    keys.handle("c-m")
    assert calls == [] and queue == ["line one\nline two"]
    assert combine_presses([("escape", "\x1b")]) == [("escape", "\x1b")]
    assert combine_presses([("escape", "\x1b"), ("x", "x")]) == [("escape", "\x1b"), ("x", "x")]
