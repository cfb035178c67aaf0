"""Importing a provider's SDK ahead of its first request: the REPL's ``warm_up`` and the headless run's thread.

Moved out of ``providers.py`` (the table) because it is a different concern:
when, and on which thread, the SDK's 1.2 s of imports happen, and how every
place that needs the SDK joins that thread instead of importing beside it.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import threading
from dataclasses import dataclass
from typing import Sequence

from pseudoclaude.llm.providers import PROVIDERS, ProviderEntry, provider_entry


def warm_up(name: str, providers: Sequence[ProviderEntry] = PROVIDERS) -> None:
    """Import the SDK of provider ``name`` now (the REPL calls this off the event loop)."""
    module = provider_entry(name, providers).sdk_module
    if module:
        importlib.import_module(module)


# --- the headless warm-up (issue 30) ---
#
# ``import anthropic`` is about 1.2 s of pydantic building model classes, and a
# headless run used to pay it at its first request, after everything else. So
# ``commands.run_print`` calls ``start_warm_up`` once its own modules are
# imported: a thread imports the SDK, then the shell parser (bashlex, pure
# Python, needed at the first permission check), while the main thread builds
# the agent: session fsyncs, ``git``, the sandbox probe, files.
#
# What overlaps is only what the main thread spends *waiting* (system calls,
# children): both threads run Python under one GIL, so two cores do not make
# two imports faster. Starting earlier (right after the settings) made runs
# slower on a loaded machine: every small system call of the main thread's own
# imports handed the GIL to the warm-up and waited up to the 5 ms switch
# interval to get it back (bench/README.md, "Headless start-up").
#
# Why this cannot produce a partially initialized module. Python's import locks
# are per module; a thread importing a module another thread is initializing
# waits for it (``_initializing``), and only a *cycle* of such waits (each thread
# inside a module the other needs next) is "resolved" by handing out a partial
# module. A cycle needs both threads to be importing modules of the same package
# graph at once. Here they are not:
#   - the main thread already imported what the two share before the thread
#     starts (``SHARED_FIRST``: the stdlib packages the SDKs pull in; pydantic's
#     core came with the settings);
#   - after that, until it joins, the main thread imports only pseudoclaude
#     modules and stdlib ones the SDK does not load, and the SDK never imports
#     pseudoclaude;
#   - every place the main thread needs the SDK or a pydantic-based package
#     joins first: the provider's first request (``sdk_ready`` in the adapters),
#     the MCP servers' start (``commands.run_print``), the first shell parse
#     (``parser_ready`` in ``shell_parse``). A join happens outside any import
#     (in a function body), so the main thread holds no import lock while it waits.
# ``PSEUDOCLAUDE_NO_WARMUP=1`` turns it off (the benchmark's "before").

SHARED_FIRST = ("asyncio", "concurrent.futures", "json", "email.utils", "ssl", "typing_extensions", "pydantic")
"""Imported by the main thread before the warm-up starts: what both threads would otherwise load at once."""

PARSER_MODULE = "bashlex"
SDK_POLL_SECONDS = 0.005


@dataclass(frozen=True)
class _WarmUp:
    thread: threading.Thread
    sdk_done: threading.Event


_running: list[_WarmUp] = []


def start_warm_up(name: str, providers: Sequence[ProviderEntry] = PROVIDERS) -> None:
    """Import provider ``name``'s SDK, then the shell parser, in a daemon thread (once per process; a failure is left for the
    main thread's own import to report). Leaving early never waits for it: the process ends with ``os._exit``."""
    if _running or os.environ.get("PSEUDOCLAUDE_NO_WARMUP"):
        return
    module = provider_entry(name, providers).sdk_module
    for shared in SHARED_FIRST:
        try:
            importlib.import_module(shared)
        except ImportError:
            pass
    sdk_done = threading.Event()

    def run() -> None:
        for index, target in enumerate((module, PARSER_MODULE)):
            try:
                if target:
                    importlib.import_module(target)
            except Exception:  # noqa: BLE001 - the main thread imports it again and reports
                pass
            if index == 0:
                sdk_done.set()

    thread = threading.Thread(target=run, name="pseudoclaude-warm-up", daemon=True)
    _running.append(_WarmUp(thread, sdk_done))
    thread.start()


async def sdk_ready() -> None:
    """Wait until a running warm-up has imported the provider SDK (and what it needs: pydantic, httpx); no-op without one.

    It polls rather than blocking on the event: a blocking wait held the event loop for the rest of the import (seconds
    on a loaded machine), so Ctrl-C, SIGTERM and cancellation waited with it."""
    for warm in _running:
        if threading.current_thread() is not warm.thread:
            while not warm.sdk_done.is_set():
                await asyncio.sleep(SDK_POLL_SECONDS)


def parser_ready() -> None:
    """Wait until a running warm-up has finished (the shell parser comes last); no-op without one."""
    for warm in _running:
        if threading.current_thread() is not warm.thread:
            warm.thread.join()


def warm_up_running() -> bool:
    """Whether a warm-up thread is still importing (tests, benchmarks)."""
    return any(warm.thread.is_alive() for warm in _running)
