"""Ctrl+V of a copied image: read it with the platform's clipboard tool, save it, and reference it in the prompt.

Terminals paste text, never images, so the image is fetched from the
clipboard itself with the tool the platform has on ``PATH``:

* Wayland (``WAYLAND_DISPLAY`` set): ``wl-paste --list-types``, then
  ``wl-paste --type <image type>`` (wl-clipboard); ``xclip`` when it is missing
  and XWayland's ``DISPLAY`` is set.
* X11 (``DISPLAY`` set): ``xclip -selection clipboard -t TARGETS -o``, then
  ``-t <image type> -o``.
* macOS: ``pngpaste -``, or ``osascript`` reading ``«class PNGf»`` (always there).

Each tool runs without a shell, with a short timeout (a clipboard owner that
never answers must not freeze the prompt) and its output cut at
``imaging.MAX_FILE_BYTES`` (a runaway producer must not fill memory). The
image is saved as a private file (0600 in a 0700 folder) under the home
folder's ``clipboard/``, named by its content, and the prompt gets an
``@"path"`` mention of it: the same path every ``@shot.png`` takes
(``prompt_images``), so it is fitted, shown as one line and recorded in the
session like any attached image. PNG, JPEG, GIF and WebP are kept as they are;
any other image type the clipboard offers (BMP, TIFF) is converted to PNG.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Protocol, Sequence

from pseudoclaude.imaging import MAX_FILE_BYTES
from pseudoclaude.llm import sniff_media_type
from pseudoclaude.textsafe import for_terminal
from pseudoclaude.tools import ChildEnvironment

TIMEOUT_S = 2.0
PREFERRED_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
SUFFIXES = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}
NO_IMAGE = "no image on the clipboard"
KEEP_DAYS = 7


class ClipboardError(Exception):
    """No image could be pasted; the message is the one-line hint shown to the user."""


@dataclass(frozen=True)
class ClipboardImage:
    """The image bytes read from the clipboard, their type (by content) and the tool that read them."""

    data: bytes
    media_type: str
    tool: str


def read_clipboard_image(
    env: Mapping[str, str] | None = None, *, timeout: float = TIMEOUT_S, limit: int = MAX_FILE_BYTES, platform: str = sys.platform
) -> ClipboardImage:
    """The image on the clipboard, as PNG, JPEG, GIF or WebP; ``ClipboardError`` says why there is none.

    The tool runs with ``env`` (the process's) less the variables that look secret, as the model's commands do."""
    env = ChildEnvironment.of(os.environ if env is None else env).environ()
    if platform == "darwin":
        return _read_macos(env, timeout, limit)
    if platform.startswith(("win", "cygwin")):
        raise ClipboardError("pasting images is not supported on this platform: save the image and attach its path")
    tools = [tool for tool, display in (("wl-paste", "WAYLAND_DISPLAY"), ("xclip", "DISPLAY")) if env.get(display)]
    if not tools:
        raise ClipboardError("no graphical session to read a clipboard from (neither WAYLAND_DISPLAY nor DISPLAY is set)")
    for tool in tools:
        program = shutil.which(tool, path=env.get("PATH", ""))
        if program is not None:
            return _read_wayland(program, env, timeout, limit) if tool == "wl-paste" else _read_x11(program, env, timeout, limit)
    raise ClipboardError("install wl-clipboard or xclip to paste images")


def _read_x11(program: str, env: dict[str, str], timeout: float, limit: int) -> ClipboardImage:
    targets = _run([program, "-selection", "clipboard", "-t", "TARGETS", "-o"], env, timeout, 64 * 1024, "xclip", failure=NO_IMAGE)
    chosen = _choose_type(targets.decode("utf-8", "replace").split())
    data = _run([program, "-selection", "clipboard", "-t", chosen, "-o"], env, timeout, limit, "xclip")
    return _image(data, "xclip")


def _read_wayland(program: str, env: dict[str, str], timeout: float, limit: int) -> ClipboardImage:
    types = _run([program, "--list-types"], env, timeout, 64 * 1024, "wl-paste", failure=NO_IMAGE)
    chosen = _choose_type(types.decode("utf-8", "replace").split())
    data = _run([program, "--no-newline", "--type", chosen], env, timeout, limit, "wl-paste")
    return _image(data, "wl-paste")


def _read_macos(env: dict[str, str], timeout: float, limit: int) -> ClipboardImage:
    path = env.get("PATH", "")
    if (program := shutil.which("pngpaste", path=path)) is not None:
        return _image(_run([program, "-"], env, timeout, limit, "pngpaste", failure=NO_IMAGE), "pngpaste")
    if (program := shutil.which("osascript", path=path)) is None:
        raise ClipboardError("install pngpaste (brew install pngpaste) to paste images")
    script = "the clipboard as «class PNGf»"
    out = _run([program, "-e", script], env, timeout, 2 * limit + 64, "osascript", failure=NO_IMAGE)
    found = re.fullmatch(rb"\s*\S*data PNGf((?:[0-9A-Fa-f]{2})+)\S*\s*", out)
    if found is None:
        raise ClipboardError(NO_IMAGE)
    data = bytes.fromhex(found.group(1).decode("ascii"))
    return _image(data, "osascript")


def _choose_type(offered: Sequence[str]) -> str:
    """The clipboard's image type we prefer (PNG first); any other ``image/*`` is converted later."""
    for media_type in PREFERRED_TYPES:
        if media_type in offered:
            return media_type
    for media_type in offered:
        if media_type.startswith("image/"):
            return media_type
    raise ClipboardError(NO_IMAGE)


def _image(data: bytes, tool: str) -> ClipboardImage:
    media_type = sniff_media_type(data[:64])
    if media_type is not None:
        return ClipboardImage(data, media_type, tool)
    return ClipboardImage(_to_png(data), "image/png", tool)


def _to_png(data: bytes) -> bytes:
    """A BMP or TIFF from the clipboard as PNG (Pillow), or ``ClipboardError`` when it is no image at all."""
    import warnings

    from PIL import Image as PILImage

    from pseudoclaude.imaging import MAX_DECODED_PIXELS

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", PILImage.DecompressionBombWarning)
            picture = PILImage.open(io.BytesIO(data))
            if picture.size[0] * picture.size[1] > MAX_DECODED_PIXELS:
                raise ClipboardError(f"the clipboard image is too large to decode ({picture.size[0]}x{picture.size[1]})")
            out = io.BytesIO()
            picture.save(out, format="PNG")
    except ClipboardError:
        raise
    except (OSError, ValueError, SyntaxError, PILImage.DecompressionBombWarning, PILImage.DecompressionBombError):
        raise ClipboardError("the clipboard holds no image that can be read") from None
    return out.getvalue()


def _run(argv: list[str], env: dict[str, str], timeout: float, limit: int, tool: str, *, failure: str = "") -> bytes:
    """``argv``'s standard output (no shell, stdin closed), at most ``limit`` bytes within ``timeout`` seconds.

    A non-zero exit is ``failure`` when given (the tool's way of saying "no
    such content"), else the first line the tool wrote on stderr.
    """
    with tempfile.TemporaryFile() as errors:
        try:
            process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors, env=env, start_new_session=True)
        except OSError as error:
            raise ClipboardError(f"{tool} cannot be run ({error.strerror or error})") from None
        try:
            data = _read_bounded(process, timeout, limit, tool)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        if process.returncode == 0:
            return data
        if failure:
            raise ClipboardError(failure)
        errors.seek(0)
        said = errors.read(400).decode("utf-8", "replace").strip().splitlines()[:1]
        raise ClipboardError(f"{tool} could not read the clipboard ({for_terminal(said[0]) if said else f'exit code {process.returncode}'})")


def _read_bounded(process: subprocess.Popen[bytes], timeout: float, limit: int, tool: str) -> bytes:
    assert process.stdout is not None
    chunks: list[bytes] = []
    size = 0
    deadline = time.monotonic() + timeout
    with process.stdout:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ClipboardError(f"{tool} did not answer within {timeout:g} s")
            ready, _, _ = select.select([process.stdout], [], [], left)
            if not ready:
                continue
            chunk = os.read(process.stdout.fileno(), 1 << 16)
            if not chunk:
                break
            size += len(chunk)
            if size > limit:
                raise ClipboardError(f"the clipboard image is over the {_size(limit)} an image may be")
            chunks.append(chunk)
    try:
        process.wait(max(0.05, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        raise ClipboardError(f"{tool} did not answer within {timeout:g} s") from None
    return b"".join(chunks)


def _size(limit: int) -> str:
    return f"{limit // (1024 * 1024)} MB" if limit >= 1 << 20 else f"{limit:,} bytes"


def save_clipboard_image(image: ClipboardImage, home: Path) -> Path:
    """``image`` saved privately under ``home/clipboard`` (named by its content, so pasting it twice attaches it once)."""
    folder = home / "clipboard"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    _prune(folder)
    digest = hashlib.sha256(image.data).hexdigest()[:12]
    path = folder / f"clipboard-{digest}{SUFFIXES[image.media_type]}"
    partial = path.with_name(path.name + f".{os.getpid()}.part")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(image.data)
    os.replace(partial, path)
    return path


def _prune(folder: Path) -> None:
    """Pastes older than ``KEEP_DAYS`` go: a sent image lives on in its session's ``images/``."""
    cutoff = time.time() - KEEP_DAYS * 86400
    for old in folder.glob("clipboard-*"):
        try:
            if old.lstat().st_mtime < cutoff:
                old.unlink()
        except OSError:
            continue


def mention(path: Path, before: str = "", after: str = "") -> str:
    """The text to insert between ``before`` and ``after``: an ``@"path"`` mention (``~`` for the user's home), spaced apart from words."""
    shown = str(path)
    user_home = os.path.expanduser("~")
    if user_home not in ("~", "/") and shown.startswith(user_home + os.sep):
        shown = "~" + shown[len(user_home) :]
    reference = f'@"{shown}"' if '"' not in shown else f"@'{shown}'"
    lead = " " if before and not before[-1].isspace() else ""
    trail = "" if after[:1].isspace() else " "
    return lead + reference + trail


def paste_image(home: Path, env: Mapping[str, str] | None = None, *, timeout: float = TIMEOUT_S) -> Path:
    """Read the clipboard's image and save it under ``home``; ``ClipboardError`` is the hint when there is none."""
    image = read_clipboard_image(env, timeout=timeout)
    try:
        return save_clipboard_image(image, home)
    except OSError as error:
        raise ClipboardError(f"cannot save the clipboard image under {home} ({error.strerror or error})") from None


class PasteTarget(Protocol):
    """The text being typed that a Ctrl+V mentions its image in: the prompt's buffer, or the line typed during a turn."""

    def text_and_cursor(self) -> tuple[str, int]: ...

    def set_text(self, text: str, cursor: int) -> None: ...

    def submit(self) -> None:
        """Send the text, as Enter would (Enter pressed while the clipboard was read)."""

    def redraw(self) -> None: ...


class ImagePaste:
    """Ctrl+V: reads the clipboard off the event loop and mentions the image where Ctrl+V was pressed.

    ``hint`` is the line shown above the status (why nothing was pasted) until
    the text changes. Enter pressed while a read runs waits for it, so a quick
    Ctrl+V, words, Enter sends the image too; a read that fails sends nothing.
    The prompt (``input``) and the keys typed during a turn (``keys``) share it.
    """

    def __init__(self, home: Path) -> None:
        self.home = home
        self.hint = ""
        self.pending = 0
        self.send_when_done = False
        self._tasks: set[asyncio.Task[None]] = set()

    def clear_hint(self, _buffer: object = None) -> None:
        self.hint = ""

    def fragments(self) -> list[tuple[str, str]]:
        return [("class:hint", f"{self.hint}\n")] if self.hint else []

    def start(self, target: PasteTarget) -> None:
        """Begin reading the clipboard; the mention goes where the cursor is now."""
        self.pending += 1  # now, not when the task runs: an Enter read in the same batch of keys must wait too
        self.hint = "Ctrl+V: reading…"
        target.redraw()
        task = asyncio.get_running_loop().create_task(self._paste(target, target.text_and_cursor()[1]))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def settle(self) -> None:
        """Wait for the reads still running (each is bounded by ``TIMEOUT_S``)."""
        while self._tasks:
            await asyncio.wait(set(self._tasks))

    def hold_enter(self) -> bool:
        """True (and Enter is remembered) while a paste is still reading the clipboard."""
        if self.pending:
            self.send_when_done = True
            self.hint = "Ctrl+V: reading… (the message goes when the image is in)"
        return bool(self.pending)

    async def _paste(self, target: PasteTarget, at: int) -> None:
        try:
            path = await asyncio.to_thread(paste_image, self.home)
        except ClipboardError as error:
            self.hint, self.send_when_done = f"Ctrl+V: {error}", False
        else:
            text, cursor = target.text_and_cursor()
            at = min(at, len(text))
            piece = mention(path, text[:at], text[at:])
            target.set_text(text[:at] + piece + text[at:], cursor + len(piece) if cursor >= at else cursor)
            self.clear_hint()
        finally:
            self.pending -= 1
        if not self.pending and self.send_when_done:
            self.send_when_done = False
            target.submit()
        target.redraw()
