"""The runner's plumbing between tasks and the event stream: provider items as events, queues drained, interrupts named.

``drain`` is how a step that runs as a task (a tool round, a context
preparation) streams the events it announces while the runner's generator
stays the only thing that yields; ``interrupt_cause`` tells a SIGTERM from
the user's Esc, so the record says which.
"""

from __future__ import annotations

import asyncio
from typing import Any, AsyncGenerator

from pseudoclaude.agent import events as ev
from pseudoclaude.llm import ProviderError, Retrying, StreamEvent, TextChunk, ThinkingChunk, ToolArgsChunk, ToolCallStart


INTERRUPTED_BY_USER = "[Request interrupted by user]"


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


async def drain(queue: asyncio.Queue[ev.Event], task: asyncio.Future[Any]) -> AsyncGenerator[ev.Event, None]:
    """The events ``task`` puts on ``queue`` while it runs, and any left when it ends.

    Each one is marked done once the consumer asks for the next, so ``task``
    can ``await queue.join()`` until what it announced has been handled. A pending ``queue.get()`` is cancelled on every way out, so none is left behind.
    """
    while not (task.done() and queue.empty()):
        getter = asyncio.ensure_future(queue.get())
        waited: set[asyncio.Future[Any]] = {getter, task}
        try:
            await asyncio.wait(waited, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not getter.done():
                getter.cancel()
        if getter.done() and not getter.cancelled():
            yield getter.result()
            queue.task_done()


class RunFailed(Exception):
    """A provider failure that ends the run: the error, and the reason its Stop gives."""

    def __init__(self, error: ProviderError, reason: ev.StopReason) -> None:
        super().__init__(error.message)
        self.error = error
        self.reason = reason
