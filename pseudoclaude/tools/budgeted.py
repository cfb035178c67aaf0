"""A finished text result fitted to the output budget, for tools whose output arrives whole (MCP tools, web_fetch).

The same shaping as a command's output (``output.StreamCapture`` and
``preview.shape``): within ``limit`` bytes the text goes inline as it is;
beyond, the model reads a status line naming the spill file that holds the
complete text, then its head, the error-like lines of the middle, and its end.
"""

from __future__ import annotations

from functools import partial

from pseudoclaude.tools.base import ToolContext, ToolOutput
from pseudoclaude.tools.output import StreamCapture
from pseudoclaude.tools.preview import shape
from pseudoclaude.tools.shell import open_spill_file


def budgeted_output(text: str, ctx: ToolContext, *, label: str, limit: int | None = None, is_error: bool = False, summary: str = "") -> ToolOutput:
    """``text`` inline when it fits ``limit`` (default: the inline budget), else a shaped preview with the whole text spilled."""
    data = text.encode("utf-8", errors="replace")
    inline = limit if limit is not None else ctx.budget.inline_bytes
    if len(data) <= inline:
        return ToolOutput(text, is_error=is_error, summary=summary, display={"total_bytes": len(data)})
    opener = partial(open_spill_file, ctx.spill_dir, label) if ctx.spill_dir is not None else None
    capture = StreamCapture(inline_bytes=inline, open_spill=opener)
    capture.feed(data)
    capture.close()
    preview = shape(capture)
    path = capture.spill_path
    saved = f"complete text: {path}" if path is not None and capture.spill_complete else (capture.spill_error or "the complete text was not saved")
    lines = capture.total_lines
    status = f"[{len(data):,} bytes, {lines:,} line{'s' if lines != 1 else ''}; shortened · {saved}]\n"
    return ToolOutput(
        status + preview.text,
        is_error=is_error,
        summary=summary,
        display={"total_bytes": len(data), "output_path": str(path) if path is not None else None},
        shaped=True,
        full_output=str(path) if path is not None and capture.spill_complete else None,
    )
