"""One prompt's run in Claude Code's formats: its events fed to a ``ClaudeStream``, the structured-output reminders, its result.

With ``--json-schema`` (the SDK's ``output_format``) a run that ends well but
without a ``structured_output`` is reminded, in the same session, up to
``MAX_STRUCTURED_NUDGES`` times; the result then says whether the output came
(``structured_output``) or not (``error_max_structured_output_retries``).
"""

from __future__ import annotations

import asyncio
from typing import AsyncIterator, Awaitable, Callable, Mapping, TextIO

from pseudoclaude.agent import Event, Progress
from pseudoclaude.textsafe import for_terminal
from pseudoclaude.headless.printer import json_line
from pseudoclaude.headless.stream import ClaudeStream

STRUCTURED_NUDGE = (
    "You ended your turn without giving the structured output. Call the structured_output tool now with your final answer, "
    "an object matching its schema exactly, then end your turn."
)
MAX_STRUCTURED_NUDGES = 2
"""How many times a run that ended without its structured output is asked again before its result says so."""

Again = Callable[[str], AsyncIterator[Event]]
"""Run one more prompt in the same session (the structured-output nudge)."""


async def feed_until_structured(events: AsyncIterator[Event], claude: ClaudeStream, again: Again | None, err: TextIO | None = None) -> None:
    """Feed one prompt's events to ``claude``; then, while it lacks the structured output it was asked for, nudge the model (``again``)."""
    for attempt in range(MAX_STRUCTURED_NUDGES + 1):
        if attempt:
            assert again is not None
            events = again(STRUCTURED_NUDGE)
        try:
            async for event in events:
                claude.feed(event)
                if err is not None and isinstance(event, Progress) and event.kind == "warning":
                    err.write(f"[warning] {for_terminal(event.message)}\n")
                    err.flush()
        finally:
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                await aclose()
        if again is None or not claude.needs_structured_output():
            return


StartServers = Callable[[], Awaitable[tuple[str, ...]]]
"""Start the MCP servers; one line for each that failed (``Agent.mcp.start``)."""


async def print_claude(
    events: AsyncIterator[Event],
    claude: ClaudeStream,
    out: TextIO,
    err: TextIO | None = None,
    again: Again | None = None,
    start: StartServers | None = None,
) -> dict[str, object]:
    """Consume one prompt's events; the result object (printed here when ``claude`` prints no events, i.e. ``json``).

    ``start``: the MCP servers are started first and the ``system``/``init``
    line printed after, so it says which are ``connected`` and lists their
    prompts, as Claude Code's does (None: the caller printed init).
    Warnings (an MCP server that failed, a setting ignored) also go to ``err``
    as one line each, as in every output format. A cancelled run (an
    interrupt, a signal) still prints its init and result, then the cancellation goes on.
    ``again`` runs the structured-output nudges (``--json-schema``).
    """
    claude.begin()
    init_due = start is not None
    try:
        if start is not None:
            failures = await start()
            init_due = False
            claude.emit(claude.init_event())
            for line in failures:
                _warn(claude, err, line)
        await feed_until_structured(events, claude, again, err)
    except asyncio.CancelledError:
        if init_due:
            claude.emit(claude.init_event())
        _print_result(claude, claude.finish(interrupted=True), out)
        raise
    result = claude.finish()
    _print_result(claude, result, out)
    return result


def _warn(claude: ClaudeStream, err: TextIO | None, line: str) -> None:
    claude.feed(Progress("warning", line))
    if err is not None:
        err.write(f"[warning] {for_terminal(line)}\n")
        err.flush()


def _print_result(claude: ClaudeStream, result: Mapping[str, object], out: TextIO) -> None:
    if claude.write is None:
        out.write(json_line(result))
        out.flush()
