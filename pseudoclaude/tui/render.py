"""The Rich renderer of one turn's events.

A ``TurnView`` splits the screen in two: what is finished (answer blocks,
tool blocks, notices) is printed to the console once and scrolls away; what
is still moving (the answer's growing tail, running tools with their spinners,
the "working" line, the footer with queued input or an approval question) is
the view's own renderable, which a ``rich.live.Live`` redraws. A run of
explore calls (reads, searches, listings) stays live as one folded line until
something else comes, then is printed once (``blocks``); every printed tool
block goes to the ``BlockLog``, so it can be expanded later. The view only
reads events and prints; it owns no input and no agent. Every text an event
carries is untrusted (the model's, a tool's, a hook's) and is shown through
``textsafe.for_terminal``; the console under it is a ``SafeConsole``.
"""

from __future__ import annotations

import re
import time
from contextlib import contextmanager
from typing import Callable, Iterator, Mapping

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.control import Control
from rich.segment import ControlType, Segment
from rich.spinner import Spinner
from rich.text import Text

from pseudoclaude.agent import (
    AssistantMessage,
    ErrorEvent,
    Event,
    Progress,
    Stop,
    TextDelta,
    ThinkingDelta,
    ToolCallFinished,
    ToolCallStarted,
    ToolInputDelta,
    UsageReport,
)
from pseudoclaude.textsafe import for_terminal
from pseudoclaude.tui.blocks import Block, BlockLog, ExploreRun, FinishedCall, block_view, builtin_explore_kinds
from pseudoclaude.tui.fit import Fitted
from pseudoclaude.tui.markdown import MarkdownStream
from pseudoclaude.tui.thinking import ThinkingFold
from pseudoclaude.tui.toolview import tool_title

Footer = Callable[[], list[RenderableType]]
SYNC_BEGIN = "\x1b[?2026h"
SYNC_END = "\x1b[?2026l"


class _Escape(Control):
    """One of our own escape sequences, passed through as a control segment (``SafeConsole`` keeps those)."""

    def __init__(self, code: str) -> None:
        self.segment = Segment(code, None, [(ControlType.HOME,)])


@contextmanager
def synchronized(console: Console) -> Iterator[None]:
    """What the block prints goes out in one write, inside a synchronized update (DECSET 2026).

    A terminal that supports it shows the redraw of the live area at once,
    never half erased (no flicker, no torn frame while it is resized); the
    others ignore the two sequences.
    """
    with console:
        console.control(_Escape(SYNC_BEGIN))
        yield
        console.control(_Escape(SYNC_END))


def compact_number(value: int) -> str:
    """1234 -> 1.2k, 1234567 -> 1.2M."""
    if value < 1000:
        return str(value)
    if value < 1_000_000:
        return f"{value / 1000:.1f}k"
    return f"{value / 1_000_000:.1f}M"


COMPACTING_LABEL = "Compacting"


class TurnView:
    """Renders the events of one turn; ``finish()`` flushes what is still live."""

    def __init__(
        self,
        console: Console,
        *,
        footer: Footer = list,
        clock: Callable[[], float] = time.monotonic,
        label: str = "Working",
        show_thinking: bool = False,
        request_tokens: Callable[[], int] = lambda: 0,
        blocks: BlockLog | None = None,
        explore_kinds: Mapping[str, str] | None = None,
        elapsed: Callable[[str], list[Text]] = lambda call_id: [],
    ) -> None:
        self.console = console
        self.markdown = MarkdownStream(console, tail_lines=max(4, (console.height or 24) // 2))
        self.running: dict[str, ToolCallStarted] = {}
        self.started_order: dict[str, int] = {}
        self.footer = footer
        self.clock = clock
        self.label = label
        self.base_label = label
        self.started = clock()
        self.streamed_chars = 0
        self.prompt_tokens = 0
        self.request_tokens = request_tokens
        """The estimated input of the request in flight (0 between requests): ↑ before the reply's usage arrives."""
        self.output_tokens = 0
        self.elapsed = elapsed
        """The lines under a running call's spinner (a command's own clock: ``running_view.CommandClock``)."""
        self.stop: Stop | None = None
        self.errors: list[str] = []
        self._spinner = Spinner("dots", speed=0.5)
        self.thinking = ThinkingFold(expanded=show_thinking, clock=clock)
        self.blocks = blocks if blocks is not None else BlockLog()
        self.run = ExploreRun(builtin_explore_kinds() if explore_kinds is None else explore_kinds)
        """The explore calls finished since the last other output (one folded block once the run ends)."""
        self.frame: tuple[int, list[int]] = (0, [])
        """The width the live area was last drawn at, and the cell length of each of its lines."""

    def handle(self, event: Event) -> None:
        self._label_for(event)
        if not self._continues_run(event):
            self._close_run()
        if isinstance(event, ThinkingDelta):
            self.streamed_chars += len(event.text)
            self.thinking.feed(event.text)
            return
        self._close_thinking()
        if isinstance(event, ToolInputDelta):
            self.streamed_chars += len(event.fragment)
        elif isinstance(event, TextDelta):
            self.streamed_chars += len(event.text)
            self.markdown.feed(event.text)
        elif isinstance(event, AssistantMessage):
            self.markdown.finish()
        elif isinstance(event, ToolCallStarted):
            self.markdown.finish()
            self.running[event.call_id] = event
            self.started_order.setdefault(event.call_id, len(self.started_order))
        elif isinstance(event, ToolCallFinished):
            started = self.running.pop(event.call_id, None)
            position = self.started_order.get(event.call_id, len(self.started_order))
            call = FinishedCall(event.name, started.arguments if started is not None else {}, event, position)
            if not self.run.take(call):
                self._close_run()
                self._print_block(Block((call,), self.run.kinds))
        elif isinstance(event, UsageReport):
            self.prompt_tokens = event.input_tokens + event.cache_read_tokens + event.cache_write_tokens
            self.output_tokens += event.output_tokens
            self.streamed_chars = 0
        elif isinstance(event, Progress):
            self.markdown.finish()
            self.console.print(progress_line(event))
        elif isinstance(event, ErrorEvent):
            self.markdown.finish()
            self.errors.append(event.message)
            self.console.print(Text(for_terminal(f"✗ {labelled(event.error, event.message)}"), style="bold red"))
            if event.error in ERROR_ADVICE:
                self.console.print(Text(f"  {ERROR_ADVICE[event.error]}", style="yellow"))
        elif isinstance(event, Stop):
            self.stop = event
            self.markdown.finish()
            if event.reason not in ("end_turn", "error") and event.message:
                self.console.print(Text(for_terminal(f"■ {event.message}"), style="yellow"))

    def _continues_run(self, event: Event) -> bool:
        """Whether ``event`` leaves a run of explore calls open (it shows nothing between them)."""
        if isinstance(event, (ToolCallStarted, ToolCallFinished)):
            return self.run.explores(event.name)
        if isinstance(event, TextDelta):
            return not event.text.strip()
        return isinstance(event, (UsageReport, ToolInputDelta, AssistantMessage))

    def _close_run(self) -> None:
        block = self.run.close()
        if block is not None:
            self._print_block(block)

    def _print_block(self, block: Block) -> None:
        self.blocks.add(block)
        view = block_view(block)
        images = [line for call in block.calls for line in image_lines(call.finished)]
        self.console.print(Group(view, *images) if images else view)

    def expand_last(self) -> bool:
        """Print the last tool block in full (a run still open is ended first, so it is the one); False when there is none."""
        self._close_run()
        shown = self.blocks.toggle_last()
        if shown is not None:
            self.console.print(shown)
        return shown is not None

    def _close_thinking(self) -> None:
        """Print the finished thought, folded, before whatever comes after it."""
        block = self.thinking.close()
        if block is not None:
            self.console.print(block)

    def _label_for(self, event: Event) -> None:
        """The spinner says "Compacting" from the "compacting" notice until the next event (the summary is done)."""
        compacting = isinstance(event, Progress) and event.kind == "compacting"
        self.label = COMPACTING_LABEL if compacting else self.base_label

    def flush(self) -> None:
        """Print the answer blocks finished since the last flush (the REPL calls this on every tick)."""
        self.markdown.flush()

    def finish(self, *, interrupted: bool = False) -> None:
        """Print what is still live; an interrupt also closes the running tools' blocks."""
        self._close_thinking()
        self._close_run()
        self.markdown.finish()
        if interrupted:
            for started in self.running.values():
                self.console.print(interrupted_title(started))
                self.console.print(Text("  ⎿ interrupted", style="yellow"))
            self.running.clear()
            self.console.print(Text("■ Interrupted. The session is intact; type a new message to go on.", style="yellow"))

    def working_line(self) -> Text:
        elapsed = self.clock() - self.started
        out = self.output_tokens + self.streamed_chars // 4
        sent = self.request_tokens() or self.prompt_tokens
        parts = [f"{self.label}… {elapsed:.0f}s"]
        if sent or out:
            parts.append(f"↑ {compact_number(sent)} ↓ {compact_number(out)}")
        parts.append("esc to interrupt")
        return Text(" · ".join(parts), style="cyan")

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        parts: list[RenderableType] = []
        thought = self.thinking.live()
        if thought is not None:
            parts.append(thought)
        tail = self.markdown.tail()
        if tail is not None:
            parts.append(tail)
        explored = self.run.live()
        if explored is not None:
            parts.append(explored)
        for started in self.running.values():
            title = tool_title(started.name, started.arguments, bullet="", style="yellow", width=options.max_width - 2)
            parts.append(Group(Spinner("dots", text=title, style="yellow")))
            parts.extend(self.elapsed(started.call_id))
        self._spinner.update(text=self.working_line())
        parts.append(self._spinner)
        parts.extend(self.footer())
        lines = console.render_lines(Group(*parts), options, pad=False)
        self.frame = (options.max_width, [Segment.get_line_length(line) for line in lines])
        for index, line in enumerate(lines):
            yield from line
            if index < len(lines) - 1:
                yield Segment.line()

    def rows_at(self, width: int) -> int:
        """How many rows the last frame takes once a reflowing terminal (tmux, VTE, iTerm2, kitty) re-wraps it at ``width``."""
        return sum(max(1, -(-length // width)) for length in self.frame[1])


def interrupted_title(started: ToolCallStarted) -> Fitted:
    """The title of a call the interrupt stopped, fitted to the width it is drawn at."""
    return Fitted(lambda width: tool_title(started.name, started.arguments, style="yellow", width=width))


def image_lines(event: ToolCallFinished) -> list[Text]:
    """One line per image the call showed the model (name, pixels, type, size): never its bytes."""
    return [Text("    ▣ ", style="cyan") + Text(for_terminal(image.line()), style="dim") for image in event.images]


def progress_line(event: Progress) -> Text:
    icon = {"compact": "⟳", "compacting": "⟳", "offload": "⇣", "retry": "↻", "warning": "!", "overflow": "⟳"}.get(event.kind, "·")
    style = "yellow" if event.kind in ("warning", "retry", "overflow") else "magenta"
    message = _ECHOED_LABEL.sub(r"\1", event.message)
    return Text(f"{icon} {for_terminal(message)}", style=style)


_ECHOED_LABEL = re.compile(r"^([\w .-]+): \1(?=$|[;:.,])", re.IGNORECASE)


ERROR_ADVICE = {
    "Overloaded": "The provider stayed overloaded through every retry: send your message again in a minute, or switch model with /model.",
}
"""One line of what to do, under the error that ended a turn (the run's error name, ``llm/errors.py``)."""


def labelled(label: str, message: str) -> str:
    """``label: message``, or the message alone when it already says the label ("Overloaded", not "Overloaded: Overloaded")."""
    if not message or message.strip().lower().startswith(label.strip().lower()):
        return message or label
    return f"{label}: {message}"
