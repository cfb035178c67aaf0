"""read_file: numbered lines of a text file, the whole file when the budget allows.

A page holds as much of the file as ``ToolContext.budget.read_bytes`` allows
(about 64 KB at 128k windows and above, so most files come whole in one call;
less at small windows, where the budget scales it down) and, when the model
gives one, at most ``limit`` lines. The budget counts the file's bytes shown,
each line at least ``MIN_LINE_BYTES`` (its number costs about that much), so a
file of blank lines cannot make a page many times the budget. The result ends
with a line giving the range shown, the file's total line count and, when
lines remain, the exact ``offset`` to continue from. The page is the shaped
output (``shaped=True``): context governance keeps it as it is. The file is
streamed, never loaded whole, and so is each line: at most ``LINE_READ_BYTES``
of a line are held (the rest is skipped in blocks and counted), so a file of
one 500 MB line costs no more memory than a short one. Only regular files are
read: a FIFO, a device or a socket is refused before it is opened
(``files.open_regular``). Time is bounded too: at most ``SCAN_LIMIT_BYTES``
of a file are read to find the page and count its lines (a 10 GB sparse file
behind a page of text took over 60 s); beyond, the count says "at least" and
names the limit, and an offset past it is refused with the way round it.

A file a ``Read(...)`` deny rule forbids is refused naming the rule, by any
spelling: through a symlink, ``..`` or an absolute path (``ToolContext.read_guard``).

Reading records a ``FileStamp``, which is what later allows
``write_file``/``edit_file`` to change the file, and logs the read in
``ToolContext.read_log``: reading the same range again while the file's stamp
is unchanged answers with a short note instead of the same text (the runner
empties the log whenever the earlier results may no longer be visible). A read
is logged only once its result is returned, so a cancelled read leaves no
entry. The stamp is taken before the lines are read: a change during the read
makes the stamp stale (the next write is refused), never the text.

A PNG, JPEG, GIF or WebP file (known by its content, not its name: a ``.png``
holding text is read as text, a screenshot without an extension as an image)
comes back as an image the model sees (``ToolOutput.images``), fitted to the
providers' limits by ``imaging.fit_image``; the text names it, its size, and
the size it was downscaled from. The bytes are read from the handle already
opened as a regular file. A model without vision (``ToolContext.vision``) is
told it is an image it cannot see, and sent none. Images are not logged for
the reread note: an unchanged image is cheap to resend, and its earlier
result may have been replaced by a note.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Iterator, Mapping

from pseudoclaude.imaging import MAX_FILE_BYTES, ImageError, fit_image
from pseudoclaude.llm import Image, sniff_media_type
from pseudoclaude.textsafe import quote_name
from pseudoclaude.tools.args import check_args
from pseudoclaude.tools.base import OutputBudget, PriorRead, ToolContext, ToolError, ToolOutput, ToolTraits
from pseudoclaude.tools.files import open_regular, os_error, record_stamp
from pseudoclaude.tools.output import SNIFF_BYTES, guess_type, looks_binary
from pseudoclaude.tools.paths import display_path, resolve_path
from pseudoclaude.tools.read_guard import denial_message, given_path
from pseudoclaude.tools.threads import in_thread

LINE_LIMIT_CHARS = 2000
LINE_READ_BYTES = LINE_LIMIT_CHARS * 4 + 4
MIN_LINE_BYTES = 16
_SKIP_BLOCK_BYTES = 1 << 20
SCAN_LIMIT_BYTES = 256 * 1024 * 1024
"""How much of a file one read may go through (about 0.3 s); a text file larger than that is a log or data."""
_DESCRIBED_PAGE_KB = OutputBudget().read_bytes // 1000
_HEADER_BYTES = 1 << 20
"""Enough of an image file for Pillow to read its size (JPEG puts it after the metadata)."""

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "offset": {"type": "integer", "minimum": 1, "description": "First line, 1-based (default 1)."},
        "limit": {"type": "integer", "minimum": 1, "description": "Maximum lines (default: as many as fit)."},
    },
    "required": ["path"],
    "additionalProperties": False,
}


class ReadFileTool:
    name = "read_file"
    description = (
        "Read a text file or a PNG/JPEG/GIF/WebP image: lines numbered like `cat -n` (number, tab, text), then a line with the lines shown and the "
        f"total. Up to about {_DESCRIBED_PAGE_KB} KB comes whole (less in small context windows); beyond, pages, that line "
        f"giving the offset to continue from. Lines over {LINE_LIMIT_CHARS} characters are cut; other binary files, FIFOs and "
        "devices refused. Rereading unchanged lines returns a note pointing at the earlier result."
    )
    input_schema: Mapping[str, Any] = _SCHEMA
    traits = ToolTraits(
        kind="read",
        clearable=True,
        claude_names=("Read",),
        key_argument="path",
        path_arguments=("path",),
        claude_arguments=(("path", "file_path"),),
        explores="file",
    )

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        checked = check_args(self.name, args, self.input_schema)
        path = resolve_path(ctx, checked["path"], for_write=False)
        shown = display_path(ctx, path)
        rule = ctx.read_guard.denied(given_path(ctx, checked["path"]))
        if rule is not None:
            raise ToolError(denial_message(shown, rule))
        offset: int = checked.get("offset", 1)
        limit: int | None = checked.get("limit")
        key = (path, offset, limit)
        output, logged = await in_thread(_read, ctx, path, shown, offset, limit, ctx.read_log.get(key))
        if logged is not None:
            ctx.read_log[key] = logged
        return output


def _read(ctx: ToolContext, path: Path, shown: str, offset: int, limit: int | None, earlier: PriorRead | None) -> tuple[ToolOutput, PriorRead | None]:
    """The page (and the read to log), or the note that the ``earlier`` read still shows the file."""
    if path.is_dir():
        raise ToolError(f"{shown} is a directory, not a file; use list_dir to see its contents")
    if not path.exists():
        raise ToolError(f"{shown} does not exist" + _near_miss(path))
    cap = ctx.budget.read_bytes
    try:
        with open_regular(path, shown) as f:
            sample = f.read(SNIFF_BYTES + 4)
            size = os.fstat(f.fileno()).st_size
            media_type = sniff_media_type(sample)
            if media_type is not None:
                record_stamp(ctx, path, shown)
                return _image(ctx, f, shown, media_type, size), None
            if looks_binary(sample):
                kind = guess_type(sample, path.name)
                raise ToolError(f"{shown} is a binary file ({size:,} bytes, looks like {kind}); read_file only reads text")
            stamp = record_stamp(ctx, path, shown)
            if earlier is not None and earlier.stamp == stamp:
                return _unchanged(shown, earlier), None
            f.seek(0)
            page = _collect(f, offset, limit, cap)
    except OSError as error:
        raise os_error("read", shown, error) from None
    if page.total_lines == 0:
        return ToolOutput(f"(the file {shown} is empty)", summary=f"Read {shown} (empty)", display={"path": shown, "lines": 0}), None
    if offset > page.total_lines and page.scan_capped:
        raise ToolError(
            f"offset {offset} is beyond the first {SCAN_LIMIT_BYTES >> 20} MiB of {shown} ({size:,} bytes), which is as far as "
            f"read_file goes (line {page.total_lines:,} there); read further with run_command, e.g. `sed -n '{offset},+99p' {shown}`"
        )
    if offset > page.total_lines:
        raise ToolError(f"offset {offset} is past the end of {shown}, which has {page.total_lines} lines")
    last = offset + len(page.lines) - 1
    capped = f" (page capped at {cap // 1000} KB)" if page.byte_capped else ""
    if page.scan_capped:
        capped += f" (lines counted in the first {SCAN_LIMIT_BYTES >> 20} MiB of its {size:,} bytes)"
    output = ToolOutput(
        "".join(page.lines) + _position(offset, last, page.total_lines, capped, at_least=page.scan_capped),
        summary=f"Read {shown} lines {offset}-{last} of {page.total_lines}",
        display={"path": shown, "offset": offset, "lines": len(page.lines), "total_lines": page.total_lines},
        shaped=True,
    )
    return output, PriorRead(stamp, ctx.turn, offset, last, page.total_lines)


def _image(ctx: ToolContext, f: BinaryIO, shown: str, media_type: str, size: int) -> ToolOutput:
    """The image file as an image the model sees, or, for a model without vision, a note saying what it is."""
    kind = media_type.removeprefix("image/").upper()
    display = {"path": shown, "image": media_type, "bytes": size}
    f.seek(0)
    if not ctx.vision:
        header = _pixels(f.read(_HEADER_BYTES))
        dimensions = f"{header[0]}x{header[1]} " if header else ""
        text = f"{shown} is a {dimensions}{kind} image ({size:,} bytes); the current model cannot see images, so none was sent."
        return ToolOutput(text, summary=f"{shown}: {dimensions}{kind} image (not shown: no vision)", display=display)
    if size > MAX_FILE_BYTES:
        raise ToolError(f"{shown} is a {kind} image of {size:,} bytes, over the {MAX_FILE_BYTES // (1024 * 1024)} MB an image may be")
    data = f.read()
    original = _pixels(data)
    try:
        image = fit_image(data, shown)
    except ImageError as error:
        raise ToolError(f"{shown} looks like a {kind} image but cannot be sent: {str(error).removeprefix(shown + ': ')}") from None
    return ToolOutput(_image_text(image, original, kind, size), summary=f"Read image {shown} ({image.width}x{image.height})", display=display, images=(image,))


def _image_text(image: Image, original: tuple[int, int] | None, kind: str, size: int) -> str:
    """The one line naming the image sent: path, pixels, type, size, and what it was downscaled (or re-encoded) from."""
    text = f"Image {image.describe()}"
    if original is not None and original != (image.width, image.height):
        text += f"; downscaled from {original[0]}x{original[1]} {kind} ({size:,} bytes) to fit the model's image limits"
    elif len(image.data) != size:
        text += f"; re-encoded from {kind} ({size:,} bytes) to fit the model's image limits"
    return text + "\n"


def _pixels(data: bytes) -> tuple[int, int] | None:
    """An image's width and height, read from its header only (None when Pillow cannot tell)."""
    import io
    import warnings

    from PIL import Image as PILImage

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with PILImage.open(io.BytesIO(data)) as picture:
                width, height = picture.size
                return int(width), int(height)
    except Exception:  # any undecodable header: fit_image reports the error in its own words
        return None


def _position(first: int, last: int, total: int, capped: str = "", *, at_least: bool = False) -> str:
    """The closing line: the range shown of how many, and where to go on from when lines remain."""
    if at_least:
        return f"… lines {first}-{last} of at least {total}{capped}; call read_file with offset={last + 1} to continue\n"
    if last >= total:
        return f"… lines {first}-{last} of {total} (end of file)\n"
    return f"… lines {first}-{last} of {total}{capped}; {total - last} more lines; call read_file with offset={last + 1} to continue\n"


def _unchanged(shown: str, earlier: PriorRead) -> ToolOutput:
    text = f"{shown} is unchanged since your read at turn {earlier.turn} (lines {earlier.first}-{earlier.last}); its content is above.\n"
    return ToolOutput(
        text + _position(earlier.first, earlier.last, earlier.total),
        summary=f"{shown} unchanged since turn {earlier.turn}",
        display={"path": shown, "unchanged_since_turn": earlier.turn},
        shaped=True,
    )


@dataclass
class _Page:
    lines: list[str] = field(default_factory=list)
    total_lines: int = 0
    byte_capped: bool = False
    scan_capped: bool = False


def _collect(f: BinaryIO, offset: int, limit: int | None, cap: int) -> _Page:
    """Lines from ``offset`` while they fit ``cap`` (and ``limit``); the total line count either way."""
    page = _Page()
    used = 0
    number = 0
    budget = _Budget(SCAN_LIMIT_BYTES)
    for raw, skipped in _lines(f, budget):
        number += 1
        if number < offset:
            continue
        if (limit is not None and len(page.lines) >= limit) or page.byte_capped:
            break
        text = _line_text(raw, skipped)
        cost = max(MIN_LINE_BYTES, len(text.encode("utf-8")) + 1)
        if used + cost > cap and page.lines:
            page.byte_capped = True
            break
        page.lines.append(f"{number:>6}\t{text}\n")
        used += cost
    else:
        page.total_lines = number
        page.scan_capped = budget.spent
        return page
    page.total_lines = number + _count_rest(f, budget)
    page.scan_capped = budget.spent
    return page


@dataclass
class _Budget:
    """Bytes a read may still go through (``SCAN_LIMIT_BYTES``); ``spent`` once they are and the file goes on."""

    left: int
    spent: bool = False

    def take(self, data: bytes) -> bool:
        """Count ``data``; False when the budget is gone (the caller stops)."""
        self.left -= len(data)
        self.spent = self.spent or self.left < 0
        return not self.spent


def _count_rest(f: BinaryIO, budget: _Budget) -> int:
    """Lines after the current position (a last line without a newline counts), within ``budget``."""
    count = 0
    last = b""
    while not budget.spent and (block := f.read(min(1 << 20, max(budget.left, 1)))):
        count += block.count(b"\n")
        last = block[-1:]
        budget.take(block)
    if budget.spent:
        return count
    return count + (1 if last and last != b"\n" else 0)


def _lines(f: BinaryIO, budget: _Budget) -> Iterator[tuple[bytes, int]]:
    """Each line's first ``LINE_READ_BYTES`` bytes, and how many more bytes the line had (read and dropped), within ``budget``."""
    while head := f.readline(LINE_READ_BYTES):
        skipped = 0
        if not budget.take(head):
            return
        if len(head) == LINE_READ_BYTES and not head.endswith(b"\n"):
            while block := f.readline(_SKIP_BLOCK_BYTES):
                if not budget.take(block):
                    return
                if block.endswith(b"\n"):
                    skipped += len(block.rstrip(b"\r\n"))
                    break
                skipped += len(block)
        yield head, skipped


def _line_text(raw: bytes, skipped: int = 0) -> str:
    """The line as shown: cut at ``LINE_LIMIT_CHARS`` characters, saying how much more there was."""
    text = raw.decode("utf-8", errors="replace").rstrip("\n").rstrip("\r")
    if skipped:
        kept = text[:LINE_LIMIT_CHARS]
        more = len(raw.rstrip(b"\r\n")) - len(kept.encode("utf-8")) + skipped
        return kept + f"… [line cut: {max(more, 1):,} more bytes]"
    if len(text) > LINE_LIMIT_CHARS:
        text = text[:LINE_LIMIT_CHARS] + f"… [line cut: {len(text) - LINE_LIMIT_CHARS:,} more characters]"
    return text


def _near_miss(path: Path) -> str:
    parent = path.parent
    if not parent.is_dir():
        return ""
    stem = path.stem.lower()
    try:
        similar = sorted(p.name for p in parent.iterdir() if p.stem.lower() == stem and p.name != path.name)
    except OSError:
        return ""
    return f"; did you mean {', '.join(quote_name(name) for name in similar[:3])}?" if similar else ""
