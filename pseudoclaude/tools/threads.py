"""The tools' blocking work, each call on its own daemon thread.

``asyncio.to_thread`` runs work on the loop's default executor, whose threads
the interpreter joins at exit, and ``asyncio.run`` waits for them when it
shuts down: one read stuck in a system call (a FIFO nobody writes, a hung
network mount) kept the process alive after Ctrl-C or SIGTERM, whatever the
runner did. ``in_thread`` gives every call a daemon thread instead: awaiting
it is cancellable at once, a cancelled call's thread is abandoned (its result
dropped), and exit never waits for it. Work that may run long checks a
``threading.Event`` the caller sets when it stops waiting.

Nothing that writes runs here: an abandoned thread must never leave half a
file behind when the process ends.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import Callable, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


async def in_thread(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)`` on a new daemon thread; cancelling the await abandons the thread."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    context = contextvars.copy_context()

    def deliver(outcome: Callable[[], None]) -> None:
        if not future.done():
            outcome()

    def work() -> None:
        try:
            result = context.run(fn, *args, **kwargs)
        except BaseException as error:  # handed to the awaiting task, like to_thread does
            failure = error
            _post(loop, deliver, lambda: future.set_exception(failure))
        else:
            _post(loop, deliver, lambda: future.set_result(result))

    threading.Thread(target=work, name=f"pseudoclaude-{getattr(fn, '__name__', 'tool')}", daemon=True).start()
    return await future


def _post(loop: asyncio.AbstractEventLoop, deliver: Callable[[Callable[[], None]], None], outcome: Callable[[], None]) -> None:
    try:
        loop.call_soon_threadsafe(deliver, outcome)
    except RuntimeError:  # the loop closed while the thread worked: nobody is waiting any more
        pass
