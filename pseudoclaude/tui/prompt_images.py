"""Images in what the user sends: ``@shot.png``, pasted or dragged paths, ``-i FILE`` (stream-json image blocks: ``headless.image_block``).

Terminals paste a dragged file as its path: bare (``/home/u/shot.png``),
quoted (``'/path/with space.png'``), with escaped spaces
(``/path/with\\ space.png``) or as a ``file://`` URI. Each reference that
names an image (by content, never by name alone) is loaded and fitted to the
providers' limits (``imaging``), and replaced in the text by
``[image N: name]`` so the model reads where the user pointed at it.

Which references must be images and which stay words:

* ``@name`` asks for that file: an image by content, or a name ending in an
  image extension, must load, or the prompt is refused with one line (the
  caller keeps the draft; nothing is sent half-attached). Any other ``@``
  mention is left to the text attachments (``attach.py``).
* a bare path is attached only when it is a regular file holding an image; a
  path that does not exist or holds text stays the user's words. One that
  holds an image but cannot be sent (too large to decode) refuses the prompt.

A file outside the workspace may be attached: typing its path is the user's
own act, unlike a mention the model could be steered into.

Ctrl+V of a copied image (``clipboard``) comes here too: the image is saved
under the home folder and mentioned as ``@"path"`` at the cursor.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence
from urllib.parse import unquote

from pseudoclaude.llm import Image, sniff_media_type
from pseudoclaude.tools import open_if_regular

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")
MAX_PROMPT_IMAGES = 20
"""Per message: Anthropic takes up to 100 images a request, and each screenshot costs ~1,500 tokens."""

_START = r"(?:file://|~/|\.{1,2}/|/)"
_REFS = re.compile(
    r"""(?<![\w`])@"(?P<mq>[^"\n]+)"(?!\w)"""
    r"""|(?<![\w`])@'(?P<ms>[^'\n]+)'(?!\w)"""
    r"""|(?<![\w`])@(?P<mention>[\w./~-](?:\\[^\n]|[^\s`'"\\])*)"""
    rf"""|(?<![\w`])(?P<quote>['"])(?P<quoted>{_START}[^'"\n]*)(?P=quote)"""
    rf"""|(?<![\w@/:.~\\`])(?P<bare>{_START}(?:\\[^\n]|[^\s`'"\\])+)"""
)
_TRAILING = ".,;:!?)]}"


@dataclass(frozen=True)
class PathRef:
    """A path the user wrote: where it stands in the text, and the path meant (unquoted, unescaped, URI-decoded)."""

    start: int
    end: int
    path: str
    mention: bool


@dataclass(frozen=True)
class PromptImages:
    """The text to send (references replaced), its images in order, or why it cannot be sent."""

    text: str
    images: tuple[Image, ...] = ()
    error: str = ""


def find_path_refs(text: str) -> list[PathRef]:
    """Every ``@mention`` and every path-looking word of ``text`` (quoted, escaped or bare), in order."""
    refs: list[PathRef] = []
    for match in _REFS.finditer(text):
        group = next(name for name in ("mq", "ms", "mention", "quoted", "bare") if match.group(name) is not None)
        raw, end = match.group(group), match.end()
        if group in ("mention", "bare"):
            kept = raw.rstrip(_TRAILING)
            end -= len(raw) - len(kept)
            raw = re.sub(r"\\(.)", r"\1", kept)
        if raw.startswith("file://"):
            raw = unquote(raw[len("file://") :].removeprefix("localhost"))
        if raw:
            refs.append(PathRef(match.start(), end, raw, group in ("mq", "ms", "mention")))
    return refs


def attach_prompt_images(text: str, workspace: Path) -> PromptImages:
    """``text`` with its image references loaded and replaced by ``[image N: name]``; ``error`` set when one cannot be sent."""
    from pseudoclaude.imaging import ImageError, load_image_file

    root = workspace.resolve()
    loaded: dict[Path, tuple[int, Image]] = {}
    pieces: list[str] = []
    cursor = 0
    for ref in find_path_refs(text):
        path = _resolve(ref.path, root)
        kind = _kind(path)
        if kind == "" and not (ref.mention and path.suffix.lower() in IMAGE_SUFFIXES):
            continue
        shown = "@" + ref.path if ref.mention else ref.path
        if kind == "" and not os.path.lexists(path):
            return PromptImages(text, error=f"{shown}: no such file")
        if kind == "":
            return PromptImages(text, error=f"{shown}: not a PNG, JPEG, GIF or WebP image (by its content)")
        if path not in loaded:
            if len(loaded) >= MAX_PROMPT_IMAGES:
                return PromptImages(text, error=f"more than {MAX_PROMPT_IMAGES} images in one message: send them in several")
            try:
                loaded[path] = (len(loaded) + 1, load_image_file(path, _name(path, root)))
            except ImageError as error:
                return PromptImages(text, error=str(error))
        number, image = loaded[path]
        pieces += [text[cursor : ref.start], f"[image {number}: {image.name}]"]
        cursor = ref.end
    pieces.append(text[cursor:])
    return PromptImages("".join(pieces), tuple(image for _, image in loaded.values()))


def mentions_images(text: str, workspace: Path) -> bool:
    """Whether ``text`` refers to an image ``attach_prompt_images`` would attach (or refuse): a quick look, nothing decoded."""
    root = workspace.resolve()
    for ref in find_path_refs(text):
        path = _resolve(ref.path, root)
        if _kind(path) or (ref.mention and path.suffix.lower() in IMAGE_SUFFIXES):
            return True
    return False


def _resolve(raw: str, root: Path) -> Path:
    path = Path(raw).expanduser()
    return Path(os.path.abspath(path if path.is_absolute() else root / path))


def _kind(path: Path) -> str:
    """The image type of a regular file at ``path`` by its first bytes ("" otherwise; a FIFO is never opened)."""
    try:
        handle = open_if_regular(path)
        if handle is None:
            return ""
        with handle:
            head = handle.read(16)
    except (OSError, ValueError):
        return ""
    return sniff_media_type(head) or ""


def _name(path: Path, root: Path) -> str:
    """Workspace files by their relative path (the model can open them); others by their file name only."""
    real = path.resolve()
    return real.relative_to(root).as_posix() if real.is_relative_to(root) else path.name


def image_lines(images: Sequence[Image]) -> list[str]:
    """One transcript line per attached image (name, size in pixels, type, bytes), never the bytes themselves."""
    return [f"  ▣ [image {number}] {image.describe()}" for number, image in enumerate(images, 1)]


def vision_notice(model: str) -> str:
    """What to tell the user attaching images to a model whose table row says it cannot see them ("" otherwise)."""
    from pseudoclaude.llm import supports_vision

    if supports_vision(model):
        return ""
    return f"{model} cannot see images: it gets a note naming each one instead (switch with /model to a vision model)"


def load_image_options(paths: Sequence[str]) -> tuple[Image, ...]:
    """``-i/--image`` files, each checked and fitted; ``ImageError`` names the first that cannot be sent."""
    from pseudoclaude.imaging import load_image_file

    return tuple(load_image_file(Path(path).expanduser(), path) for path in paths)
