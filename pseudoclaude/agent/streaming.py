"""The one bridge from a turn to its event stream, provider items as events, and interrupts named.

A turn is a plain coroutine that reports progress through one ``Emit``
callback and returns its ``Stop``. ``event_stream`` runs it in one task and
hands the consumer its events, then the ``Stop``, as an async iterator. It
keeps the pace of a generator: ``emit`` returns once the consumer has
handled the event (asked for the next one), so the turn never runs ahead of
what the user has seen (a "compacting" notice is on screen before the
summary request is sent, a tool call is shown before its approval is asked).
Closing the stream or cancelling its consumer cancels the task with the same
message, and waits for it, so the turn has recorded the interrupt by the time
the consumer's cancellation completes; ``interrupt_cause`` tells a SIGTERM
from the user's Esc, so the record says which.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any, AsyncGenerator, Awaitable, Callable

from pseudoclaude.agent import events as ev
from pseudoclaude.llm import ProviderError, Retrying, StreamEvent, TextChunk, ThinkingChunk, ToolArgsChunk, ToolCallStart, Usage, UsageSoFar


INTERRUPTED_BY_USER = "[Request interrupted by user]"

Emit = Callable[[ev.Event], Awaitable[None]]
"""How a step reports progress: the event reaches the consumer, and the call returns once it was handled."""


async def discard(event: ev.Event) -> None:
    """The ``Emit`` of a run nobody watches (a sub-agent's)."""


def interrupt_cause(stop: BaseException) -> str:
    """Who ended a turn: a cancel carrying a message names it (``SIGTERM``); otherwise the user."""
    if isinstance(stop, asyncio.CancelledError) and stop.args and isinstance(stop.args[0], str) and stop.args[0]:
        return stop.args[0]
    return "user"


def stream_event(item: StreamEvent | Retrying) -> ev.Event | None:
    """What the user sees of one provider stream item (usage and the completed message are the runner's)."""
    if isinstance(item, TextChunk):
        return ev.TextDelta(item.text)
    if isinstance(item, ThinkingChunk):
        return ev.ThinkingDelta(item.text)
    if isinstance(item, ToolCallStart):
        return ev.ToolInputStart(item.id, item.name, item.index)
    if isinstance(item, ToolArgsChunk):
        return ev.ToolInputDelta(item.id, item.index, item.fragment)
    if isinstance(item, Retrying):
        return ev.Progress(
            "retry",
            f"{type(item.error).__name__}: {item.error.message}; retrying in {item.delay:.1f}s (attempt {item.attempt + 1} of {item.max_attempts})",
            {"attempt": item.attempt + 1, "delay": item.delay, "error": type(item.error).__name__},
        )
    return None


async def event_stream(turn: Callable[[Emit], Awaitable[ev.Stop]]) -> AsyncGenerator[ev.Event, None]:
    """The events ``turn`` emits, then the ``Stop`` it returns (see the module docstring)."""
    waiting: asyncio.Queue[tuple[ev.Event, asyncio.Future[None]]] = asyncio.Queue()

    async def emit(event: ev.Event) -> None:
        handled = asyncio.get_running_loop().create_future()
        waiting.put_nowait((event, handled))
        await handled

    task = asyncio.ensure_future(turn(emit))
    try:
        while not (task.done() and waiting.empty()):
            getter = asyncio.ensure_future(waiting.get())
            watched: set[asyncio.Future[Any]] = {getter, task}
            try:
                await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
            finally:
                if not getter.done():
                    getter.cancel()
            if getter.done() and not getter.cancelled():
                event, handled = getter.result()
                yield event
                if not handled.done():
                    handled.set_result(None)
        stop = task.result()
    except (asyncio.CancelledError, GeneratorExit) as cut:
        if not task.done():
            task.cancel(cut.args[0] if isinstance(cut, asyncio.CancelledError) and cut.args else None)
            await asyncio.gather(task, return_exceptions=True)
        raise
    yield stop


CHARS_PER_TOKEN = 4
"""How the live view sizes what is streaming (``tui/render.py``'s working line); an interrupted call is counted the same way."""


def streamed_chars(item: object) -> int:
    """How much model output a stream item carries: answer and reasoning text, a tool call's arguments."""
    if isinstance(item, (TextChunk, ThinkingChunk)):
        return len(item.text)
    return len(item.fragment) if isinstance(item, ToolArgsChunk) else 0


class ReplyInFlight:
    """What the model call in flight has said so far: its text, how much it streamed, the usage the provider reported.

    An interrupt keeps it and bills it (the provider charges a call cut off);
    a retry starts it over, and so does a completed message.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._text: list[str] = []
        self._chars = 0
        self._reported: Usage | None = None

    def see(self, item: StreamEvent | Retrying | UsageSoFar) -> ev.Event | None:
        """Take one stream item in; the event to show for it (None: nothing to show)."""
        if isinstance(item, UsageSoFar):
            self._reported = item.usage
            return None
        event = stream_event(item)
        if event is not None:
            self._chars += streamed_chars(item)
            if isinstance(item, Retrying):
                self.reset()
            elif isinstance(item, TextChunk):
                self._text.append(item.text)
        return event

    def take(self, request_tokens: int) -> tuple[str, Usage | None]:
        """The text said, and the usage to bill (None: nothing said or reported; the output at least what streamed); starts over."""
        text, spoken, reported = "".join(self._text), self._chars // CHARS_PER_TOKEN, self._reported
        self.reset()
        if reported is None and not spoken:
            return text, None
        used = reported or Usage(input_tokens=request_tokens)
        return text, dataclasses.replace(used, output_tokens=max(used.output_tokens, spoken))


class RunFailed(Exception):
    """A provider failure that ends the run: the error, and the reason its Stop gives."""

    def __init__(self, error: ProviderError, reason: ev.StopReason) -> None:
        super().__init__(error.message)
        self.error = error
        self.reason = reason
