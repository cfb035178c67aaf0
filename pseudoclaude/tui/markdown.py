"""Streaming markdown: finished blocks are rendered once, only the growing tail is redrawn.

Re-rendering the whole answer on every delta is quadratic; here the cost stays
linear in the answer's length:

* ``BlockSplitter`` turns deltas into finished blocks as soon as the markdown
  grammar says they cannot change any more: a paragraph/list/table ends at a
  blank line followed by an unindented line, a fenced code block at its closing
  fence; a heading or a new top-level list item ends what came before it.
  Inside a fenced block every complete line is final: ``take_code`` hands them
  out on each tick, so a long code block scrolls up line by line, rendered,
  instead of being redrawn as a growing window. Blank-less runs are cut every
  ``CHUNK_LINES`` lines, so no tail grows without bound. A block that goes on
  the previous one (``continued``) is printed without a blank line before it.
  Every character is examined a constant number of times.
* ``MarkdownStream`` prints finished blocks to the console exactly once, in
  batches (one print per live-display tick, so the live area is redrawn per
  tick rather than per block), and renders the tail on demand, as markdown
  (never raw), cropped to its last ``tail_lines`` rendered lines, so a redraw
  costs the same however long the answer is. Links show their URL, and two
  blocks are separated by a blank line (two adjacent code blocks stay two).

The answer is the model's text, untrusted: every block and the tail are
neutralized (``textsafe.for_terminal``) before Rich lays them out, so an
escape sequence in the answer is shown (``^[]0;...``), never obeyed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.markdown import Heading, ListElement, Markdown
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax

from pseudoclaude.textsafe import for_terminal

CHUNK_LINES = 80
CODE_THEME = "monokai"
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)")


@dataclass(frozen=True)
class Block:
    """A finished piece of the answer: markdown text, or lines of a fenced code block."""

    kind: Literal["markdown", "code"]
    text: str
    lang: str = ""
    continued: bool = False
    """The block goes on the previous one (more lines of the same code block, the next item of a list)."""


class BlockSplitter:
    """Feed deltas, get back the blocks they finished; ``pending`` is what may still change."""

    def __init__(self) -> None:
        self._lines: list[str] = []
        self._parts: list[str] = []
        """The line still open, in pieces: a line without end (a paragraph written as one line) grows by appending,
        never by copying what came before (a copy per delta made a 200 KB line quadratic)."""
        self._fence: str | None = None
        self._lang = ""
        self._blank_seen = False
        self._continues = False

    @property
    def in_code(self) -> bool:
        return self._fence is not None

    @property
    def continues(self) -> bool:
        """Whether the pending lines go on the last finished block (printed without a blank line before)."""
        return self._continues

    @property
    def lang(self) -> str:
        return self._lang

    @property
    def _partial(self) -> str:
        if len(self._parts) > 1:
            self._parts[:] = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    def pending_lines(self) -> list[str]:
        """The unfinished block's lines, the partial last line included (code: without the fence line)."""
        partial = self._partial
        return self._lines + ([partial] if partial else [])

    def take_code(self) -> list[Block]:
        """The complete lines of the open code block, which cannot change any more."""
        done: list[Block] = []
        if self._fence is not None and self._lines:
            self._emit(done, chunk=True)
        return done

    def feed(self, delta: str) -> list[Block]:
        done: list[Block] = []
        if "\n" not in delta:
            if delta:
                self._parts.append(delta)
            if self._blank_seen and self._fence is None and self._parts and self._parts[0][:1].strip():
                self._emit(done)
            return done
        text = self._partial + delta
        start = 0
        while True:
            newline = text.find("\n", start)
            if newline < 0:
                break
            self._line(text[start:newline], done)
            start = newline + 1
        rest = text[start:]
        self._parts = [rest] if rest else []
        if self._blank_seen and self._fence is None and rest[:1].strip():
            self._emit(done)
        return done

    def finish(self) -> list[Block]:
        """Everything still pending, as finished blocks (the answer is complete)."""
        done: list[Block] = []
        if self._parts:
            line, self._parts = self._partial, []
            self._line(line, done)
        self._emit(done)
        self._fence = None
        self._blank_seen = False
        return done

    def _line(self, line: str, done: list[Block]) -> None:
        if self._fence is not None:
            stripped = line.strip()
            if stripped.startswith(self._fence) and not stripped.strip(self._fence[0]):
                self._emit(done)
                self._fence = None
            else:
                self._lines.append(line)
                if len(self._lines) >= CHUNK_LINES:
                    self._emit(done, chunk=True)
            return
        fence = _FENCE.match(line)
        if fence is not None:
            self._emit(done)
            self._fence, self._lang = fence.group(1), fence.group(2)
            return
        if not line.strip():
            self._blank_seen = bool(self._lines)
            if self._lines:
                self._lines.append(line)
            return
        if self._blank_seen and not line[0].isspace():
            self._emit(done)
        elif self._lines and (_starts_block(line) or len(self._lines) >= CHUNK_LINES) and not _in_table(self._lines):
            self._emit(done, chunk=True)
        self._blank_seen = False
        self._lines.append(line)

    def _emit(self, done: list[Block], *, chunk: bool = False) -> None:
        """Finish the pending lines as a block; ``chunk``: the next block goes on this one."""
        if self._fence is not None:
            if self._lines:
                done.append(Block("code", "\n".join(self._lines), self._lang, self._continues))
        else:
            while self._lines and not self._lines[-1].strip():
                self._lines.pop()
            if self._lines:
                done.append(Block("markdown", "\n".join(self._lines), continued=self._continues))
        self._continues = chunk and bool(self._lines)
        self._lines = []
        self._blank_seen = False


def _starts_block(line: str) -> bool:
    """A line that can begin a new block without changing the meaning of the previous ones."""
    return bool(re.match(r"^(#{1,6}\s|[-*+]\s|\d+[.)]\s)", line))


def _in_table(lines: list[str]) -> bool:
    return lines[-1].lstrip().startswith("|")


def render_block(block: Block) -> RenderableType:
    if block.kind == "code":
        return code(block.text, block.lang)
    return markdown(block.text)


def code(text: str, lang: str) -> Syntax:
    """A fenced block's lines, highlighted on the terminal's own background, indented by one column."""
    return Syntax(for_terminal(text), lang or "text", theme=CODE_THEME, word_wrap=True, padding=(0, 1), background_color="default")


def markdown(text: str) -> Markdown:
    """Rich's Markdown with link URLs shown after the link text (a terminal hyperlink hides where it goes)."""
    return _Markdown(for_terminal(text), code_theme=CODE_THEME, hyperlinks=False)


NUMBER_DIGITS = 2
"""Digits an ordered list's numbers are right-aligned in: items 1 to 99 start in one column."""


class _LeftHeading(Heading):
    """Every heading starts at the left edge, H1 too (Rich centres H1; a transcript reads down its left side)."""

    LEVEL_ALIGN = {tag: "left" for tag in Heading.LEVEL_ALIGN}


class _AlignedList(ListElement):
    """An ordered list as ``1. item``, its numbers right-aligned in ``NUMBER_DIGITS`` digits.

    A streamed list reaches the screen an item at a time (each its own
    document), so a width taken from the list's own length would shift the
    text at item 10; a fixed one keeps it in place.
    """

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.list_type == "bullet_list_open":
            yield from super().__rich_console__(console, options)
            return
        first = 1 if self.list_start is None else self.list_start
        digits = max(NUMBER_DIGITS, len(str(first + len(self.items) - 1)))
        width = digits + 2
        number_style = console.get_style("markdown.item.number", default="none")
        for index, item in enumerate(self.items):
            lines = console.render_lines(item.elements, options.update(width=options.max_width - width), style=item.style)
            numeral = Segment(f"{first + index}.".rjust(digits + 1) + " ", number_style)
            padding = Segment(" " * width)
            for row, line in enumerate(lines):
                yield numeral if row == 0 else padding
                yield from line
                yield Segment.line()


class _Markdown(Markdown):
    elements = {**Markdown.elements, "heading_open": _LeftHeading, "ordered_list_open": _AlignedList, "bullet_list_open": _AlignedList}


class MarkdownStream:
    """One streamed answer on ``console``.

    ``feed`` collects finished blocks; ``flush`` prints them (consecutive
    markdown blocks as one document: one parse, and one redraw of a live
    display per flush rather than per block); ``tail()`` is the live part.
    """

    def __init__(self, console: Console, *, tail_lines: int = 12) -> None:
        self.console = console
        self.tail_lines = tail_lines
        self._splitter = BlockSplitter()
        self._ready: list[Block] = []
        self._printed = 0
        self._tail_key: tuple[int, int, str, bool] | None = None
        self._tail: RenderableType | None = None

    def feed(self, delta: str) -> None:
        self._ready.extend(self._splitter.feed(delta))

    def flush(self) -> None:
        """Print the blocks finished so far, and the complete lines of an open code block."""
        self._ready.extend(self._splitter.take_code())
        if not self._ready:
            return
        renderables: list[RenderableType] = []
        group: list[Block] = []
        for block in self._ready:
            if block.kind == "markdown" and (not group or block.continued):
                group.append(block)
                continue
            if group:
                renderables.append(self._markdown(group))
                group = []
            if block.kind == "markdown":
                group.append(block)
            else:
                renderables.append(_Spaced(render_block(block), self._printed > 0 and not block.continued))
                self._printed += 1
        if group:
            renderables.append(self._markdown(group))
        self._ready = []
        self.console.print(Group(*renderables))

    def finish(self) -> None:
        self._ready.extend(self._splitter.finish())
        self.flush()
        self._printed = 0
        self._tail_key = None

    def tail(self) -> RenderableType | None:
        lines = self._splitter.pending_lines()
        key = (len(lines), len(lines[-1]) if lines else 0, lines[0] if lines else "", self._printed > 0)
        if key != self._tail_key:
            self._tail_key, self._tail = key, self._render_tail(lines)
        return self._tail

    def _render_tail(self, lines: list[str]) -> RenderableType | None:
        """The open block as it will be printed (rendered, never raw markdown), its last ``tail_lines`` lines."""
        if not lines:
            return None
        text = self._tail_text(lines)
        if self._splitter.in_code:
            inner: RenderableType = code(text, self._splitter.lang)
        else:
            inner = markdown(text)
        return _Bottom(_Spaced(inner, self._printed > 0 and not self._splitter.continues), self.tail_lines)

    def _tail_text(self, lines: list[str]) -> str:
        """The open block's text, or only its end when it is long: enough for ``tail_lines`` rows at this width.

        The tail is redrawn on every tick; rendering all of a block that grows
        without a line end (one long paragraph line, a wide table) made the
        cost of an answer grow with its square. The text is cut at a line
        start (else a word); a table keeps its header rows. The finished block
        is printed whole, as always. The cut bounds the lines too (twice the
        rows shown): a block of short lines (a table's rows, a list) within
        the character budget was still a hundred rows laid out per tick to
        show twelve, and a 300-row table streamed in 24 s of CPU.
        """
        budget = 2 * self.tail_lines * max(40, self.console.width)
        most_lines = 2 * self.tail_lines
        total = sum(map(len, lines)) + len(lines)
        if total <= budget and len(lines) <= most_lines:
            return "\n".join(lines)
        kept: list[str] = []
        size = 0
        for line in reversed(lines):
            if size + len(line) + 1 > budget or len(kept) >= most_lines:
                if not kept:
                    cut = line[-budget:]
                    space = cut.find(" ")
                    kept.append(cut[space + 1 :] if 0 <= space < 200 else cut)
                break
            kept.append(line)
            size += len(line) + 1
        kept.reverse()
        dropped = len(lines) - len(kept)
        if not self._splitter.in_code and lines[0].lstrip().startswith("|") and dropped > 0:
            kept = lines[: min(2, dropped)] + kept
        return "\n".join(kept)

    def _markdown(self, blocks: list[Block]) -> RenderableType:
        """Markdown blocks in one document: a blank line before each unless it goes on the previous one."""
        spaced = self._printed > 0 and not blocks[0].continued
        self._printed += len(blocks)
        text = blocks[0].text + "".join(("\n" if block.continued else "\n\n") + block.text for block in blocks[1:])
        return _Spaced(markdown(text), spaced)


class _Bottom:
    """The last ``lines`` lines of a renderable, laid out at the width it is drawn at."""

    def __init__(self, inner: RenderableType, lines: int) -> None:
        self.inner = inner
        self.lines = lines

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in console.render_lines(self.inner, options, pad=False)[-self.lines :]:
            yield from trimmed(line)
            yield Segment.line()


class _Spaced:
    """A renderable without its leading blank lines (Rich starts a lone list with one), preceded by one when ``spaced``."""

    def __init__(self, inner: RenderableType, spaced: bool) -> None:
        self.inner = inner
        self.spaced = spaced

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(self.inner, options, pad=False)
        start = 0
        while start < len(lines) and not "".join(segment.text for segment in lines[start]).strip():
            start += 1
        if self.spaced:
            yield Segment.line()
        for line in lines[start:]:
            yield from trimmed(line)
            yield Segment.line()


def trimmed(line: list[Segment]) -> list[Segment]:
    """``line`` without its trailing blank padding (Rich pads to the full width): fewer bytes, same screen."""
    line = list(Segment.simplify(_no_default_background(segment) for segment in line))
    while line and not line[-1].control and not line[-1].text.strip() and not _visible_blank(line[-1]):
        line.pop()
    if line and not line[-1].control and not _visible_blank(line[-1]):
        last = line[-1]
        line[-1] = Segment(last.text.rstrip(" "), last.style)
    return line


def _no_default_background(segment: Segment) -> Segment:
    """The segment without an explicit "default background" (the terminal's own: 3 bytes a token saved)."""
    style = segment.style
    if style is None or style.bgcolor is None or not style.bgcolor.is_default:
        return segment
    plain = Style(color=style.color, bold=style.bold, dim=style.dim, italic=style.italic, underline=style.underline, reverse=style.reverse)
    return Segment(segment.text, plain, segment.control)


def _visible_blank(segment: Segment) -> bool:
    """A blank with a background or an underline shows on screen."""
    style = segment.style
    return style is not None and ((style.bgcolor is not None and not style.bgcolor.is_default) or bool(style.underline) or bool(style.reverse))
