"""Termination signals end a run the way Ctrl-C does.

Without this, SIGTERM (a service manager, ``kill``) or SIGHUP (the terminal
closed) would end the process at once: a running command, in its own process
group, would outlive the agent and the session would not record the
interrupt. Instead the main task is cancelled, so every layer runs its
cancellation path: the command's group is killed, open tool calls get a
result, the session records the interrupt and is synced.
"""

from __future__ import annotations

import asyncio
import signal

from pseudoclaude.exitcodes import exit_code_for_signal

TERMINATION_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def cancel_on_termination(stopped_by: list[int]) -> None:
    """Cancel the current task on SIGTERM / SIGHUP, appending the signal number to ``stopped_by``."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    if task is None:
        return

    def stop(signum: int) -> None:
        stopped_by.append(signum)
        task.cancel(f"the process received {signal.Signals(signum).name}")

    for signum in TERMINATION_SIGNALS:
        loop.add_signal_handler(signum, stop, signum)


def exit_code_for(stopped_by: list[int]) -> int:
    """The exit code of a run cancelled by the first signal in ``stopped_by``."""
    return exit_code_for_signal(stopped_by[0] if stopped_by else None)
