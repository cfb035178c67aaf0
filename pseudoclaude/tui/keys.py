"""The keyboard while the agent works: interrupt, queue messages, answer approvals.

Between turns prompt-toolkit owns the terminal; during a turn Rich redraws the
live area, so keys are read raw (``prompt_toolkit.input`` in raw mode, on the
event loop) and fed to ``TurnKeys.handle``, a small state machine that needs no
terminal and is tested directly:

* Esc or Ctrl-C interrupts the turn (``on_interrupt``), whatever else is going on
  (Alt+Enter arrives as Esc then Enter in one read: ``combine_presses`` makes it
  a newline, not an interrupt);
* typed text collects in a one-line buffer; Enter queues it for the next turn
  (a long paste folds to ``[Pasted text #N +L lines]``, as at the prompt, and is
  queued unfolded; Backspace after the placeholder deletes it whole);
* while an approval is pending, ``y`` allows once, ``a`` always, ``n`` starts a
  reason (Enter sends the denial with it);
* Ctrl+B sends the running commands to the background (``on_background``);
* Shift+Tab cycles the permission mode;
* Ctrl+O folds or unfolds the model's thinking while it streams, else prints the
  last tool block in full (``blocks.BlockLog``; at the prompt too, ``block_keys``);
* Ctrl+V mentions the clipboard's image in the typed text (``clipboard.ImagePaste``,
  as at the prompt), so it is attached when that message is sent.
"""

from __future__ import annotations

import asyncio
from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

from rich.console import RenderableType
from rich.text import Text

from pseudoclaude.tools.permissions import ApprovalAnswer, ApprovalRequest
from pseudoclaude.tui.pastes import PasteStore, shared_pastes
from pseudoclaude.tui.pending import PendingApproval

if TYPE_CHECKING:
    from pseudoclaude.tui.clipboard import ImagePaste

ENTER_KEYS = ("c-m", "c-j")
BACKSPACE_KEYS = ("c-h", "backspace")
INTERRUPT_KEYS = ("escape", "c-c")
ESCAPE_FLUSH_S = 0.05
ALT_ENTER = "alt-enter"


class TurnKeys:
    """Key handling during a turn; ``queue`` receives the messages typed meanwhile, ``queued`` lists those not sent yet."""

    def __init__(
        self,
        *,
        queue: Callable[[str], None],
        queued: Callable[[], Sequence[str]],
        on_interrupt: Callable[[], None],
        on_cycle_mode: Callable[[], None] = lambda: None,
        on_change: Callable[[], None] = lambda: None,
        on_toggle_thinking: Callable[[], None] = lambda: None,
        paste: ImagePaste | None = None,
        pastes: PasteStore | None = None,
        on_background: Callable[[], object] = lambda: None,
    ) -> None:
        self.queue = queue
        self.queued = queued
        self.on_interrupt = on_interrupt
        self.on_cycle_mode = on_cycle_mode
        self.on_change = on_change
        self.on_toggle_thinking = on_toggle_thinking
        self.on_background = on_background
        self.paste = paste
        self.pastes = pastes if pastes is not None else shared_pastes()
        self.buffer = ""
        """The typed text as shown: long pastes folded (the prompt's store, so a draft moves to the prompt folded)."""
        self.approval: PendingApproval | None = None
        self._waiting: list[str] = []

    def take_sent(self) -> list[str]:
        """The messages queued here that the agent has taken since the last call (the transcript shows them now).

        The agent takes queued messages oldest first, so what ``queued()`` still
        lists is the tail of what was queued here.
        """
        cut = max(0, len(self._waiting) - len(self.queued()))
        sent, self._waiting = self._waiting[:cut], self._waiting[cut:]
        return sent

    def ask(self, request: ApprovalRequest) -> asyncio.Future[ApprovalAnswer]:
        """Show ``request`` in the footer; the future resolves when the user answers."""
        future: asyncio.Future[ApprovalAnswer] = asyncio.get_running_loop().create_future()
        self.approval = PendingApproval(request, future)
        future.add_done_callback(lambda _: self._clear_approval(future))
        self.on_change()
        return future

    def handle(self, key: str, data: str = "") -> None:
        if key in INTERRUPT_KEYS:
            self.on_interrupt()
        elif key == "s-tab":
            self.on_cycle_mode()
        elif key == "c-o":
            self.on_toggle_thinking()
        elif key == "c-b":
            self.on_background()
        elif self.approval is not None:
            self._approval_key(self.approval, key, data)
        else:
            self._buffer_key(key, data)
        self.on_change()

    def _buffer_key(self, key: str, data: str) -> None:
        before = self.buffer
        if key == ALT_ENTER:
            self.buffer += "\n"
        elif key in ENTER_KEYS:
            if self.paste is None or not self.paste.hold_enter():
                self.submit()
        elif key == "c-v" and self.paste is not None:
            self.paste.start(self)
        elif key in BACKSPACE_KEYS:
            deleted = self.pastes.delete_before(self.buffer, len(self.buffer))
            self.buffer = deleted[0] if deleted is not None else self.buffer[:-1]
        elif key == "<bracketed-paste>":
            self.buffer += self.pastes.insertion(data)
        elif len(key) == 1 and key.isprintable():
            self.buffer += key
        if self.paste is not None and self.buffer != before:
            self.paste.clear_hint()

    def submit(self) -> None:
        """Queue the typed text (Enter); the ``ImagePaste`` calls it when Enter came while it read the clipboard."""
        shown = self.buffer.strip()
        if shown:
            self._waiting.append(shown)  # echoed folded, as the prompt leaves a sent message in the scrollback
            self.queue(self.pastes.expand(shown))
        self.buffer = ""

    def text_and_cursor(self) -> tuple[str, int]:
        return self.buffer, len(self.buffer)

    def set_text(self, text: str, cursor: int) -> None:
        self.buffer = text

    def redraw(self) -> None:
        self.on_change()

    def _approval_key(self, pending: PendingApproval, key: str, data: str) -> None:
        if pending.future.done():
            return
        if pending.typing_reason or pending.editing_rule:
            if key in ENTER_KEYS and pending.editing_rule:
                from pseudoclaude.tui.approval import edited_answer

                pending.future.set_result(edited_answer(pending.request, pending.reason))
            elif key in ENTER_KEYS:
                pending.future.set_result(ApprovalAnswer("deny", pending.reason.strip()))
            elif key in BACKSPACE_KEYS:
                pending.reason = pending.reason[:-1]
            elif key == "<bracketed-paste>":
                pending.reason += data
            elif len(key) == 1 and key.isprintable():
                pending.reason += key
            return
        choice = {"y": "once", "a": "always", "n": "deny"}.get(key.lower() if len(key) == 1 else "")
        if choice == "deny":
            pending.typing_reason = True
        elif key == "e" and (text := _editable(pending.request)) is not None:
            pending.editing_rule, pending.reason = True, text
        elif choice is not None:
            pending.future.set_result(ApprovalAnswer(choice))  # type: ignore[arg-type]

    def _clear_approval(self, future: asyncio.Future[ApprovalAnswer]) -> None:
        if self.approval is not None and self.approval.future is future:
            self.approval = None
            self.on_change()

    def footer(self) -> list[RenderableType]:
        lines: list[RenderableType] = [Text(f"  queued: {self.pastes.fold_known(message)}", style="dim italic") for message in self.queued()]
        if self.approval is not None:
            lines.extend(approval_lines(self.approval))
        elif self.buffer:
            lines.append(Text("› ", style="bold") + Text(self.buffer) + Text("▌", style="dim"))
        if self.paste is not None and self.paste.hint and self.approval is None:
            lines.append(Text(f"  {self.paste.hint}", style="yellow"))
        return lines


def approval_lines(pending: PendingApproval) -> list[RenderableType]:
    request = pending.request
    if request.kind == "plan":
        from pseudoclaude.tui.plan_view import plan_lines

        return plan_lines(pending)
    from pseudoclaude.tui.approval import question_lines  # the question's look lives with the approver

    return question_lines(pending.request, typing_reason=pending.typing_reason, reason=pending.reason, editing_rule=pending.editing_rule)


def _editable(request: ApprovalRequest) -> str | None:
    from pseudoclaude.tui.approval import editable_rule

    return editable_rule(request)


def combine_presses(presses: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Keys as read in one batch, with Esc directly followed by Enter turned into Alt+Enter."""
    out: list[tuple[str, str]] = []
    index = 0
    while index < len(presses):
        key, data = presses[index]
        if key == "escape" and index + 1 < len(presses) and presses[index + 1][0] in ENTER_KEYS:
            out.append((ALT_ENTER, data + presses[index + 1][1]))
            index += 2
            continue
        out.append((key, data))
        index += 1
    return out


@contextmanager
def raw_keys(handle: Callable[[str, str], None]) -> Iterator[None]:
    """Feed the terminal's keys to ``handle`` while the block runs (no-op when stdin is not a terminal)."""
    import sys

    if not sys.stdin.isatty():
        yield
        return
    from prompt_toolkit.input import create_input

    terminal = create_input()
    loop = asyncio.get_running_loop()
    pending_flush: list[asyncio.TimerHandle] = []

    def deliver(presses: list) -> None:  # type: ignore[type-arg]
        keys = [(str(press.key.value if hasattr(press.key, "value") else press.key), press.data) for press in presses]
        for key, data in combine_presses(keys):
            handle(key, data)

    def flush() -> None:
        pending_flush.clear()
        deliver(terminal.flush_keys())

    def ready() -> None:
        deliver(terminal.read_keys())
        for timer in pending_flush:
            timer.cancel()
        pending_flush[:] = [loop.call_later(ESCAPE_FLUSH_S, flush)]

    try:
        with terminal.raw_mode(), terminal.attach(ready):
            yield
    finally:
        for timer in pending_flush:
            timer.cancel()
        terminal.close()
