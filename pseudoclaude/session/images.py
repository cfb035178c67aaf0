"""The session folder's ``images/``: the bytes of every image the conversation showed a model.

``session.jsonl`` names an image by its SHA-256 (``llm.Image.to_dict``); the
bytes live once under ``images/<sha256>.<ext>`` (0600, folder 0700), written
before the entry that names them, so a resume finds them and sends the very
same bytes (the prompt cache still matches). A file whose content no longer
hashes to its name is treated as missing: the model is then told the image is
gone rather than shown something else, and the next save of that image (a
live session still holding its bytes) writes the file again.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from pseudoclaude.llm import Image, ImageLoader

IMAGE_DIR = "images"


def save_image(folder: Path, image: Image) -> None:
    """Keep ``image``'s bytes in ``<folder>/images/`` (once per content); ``OSError`` when that fails."""
    if not image.available:
        return
    directory = folder / IMAGE_DIR
    directory.mkdir(mode=0o700, exist_ok=True)
    path = directory / image.file_name
    if _holds(path, image.sha256):
        return
    temporary = directory / f".{image.file_name}.{os.getpid()}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(image.data)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, path)


def _holds(path: Path, sha256: str) -> bool:
    """Whether ``path`` already holds the bytes hashing to ``sha256`` (a changed or truncated file is written again)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() == sha256
    except OSError:
        return False


def image_loader(folder: Path) -> ImageLoader:
    """Finds a recorded image's bytes in ``<folder>/images/`` (None when the file is gone or unreadable)."""

    def load(image: Image) -> bytes | None:
        if not image.sha256 or any(c not in "0123456789abcdef" for c in image.sha256):
            return None
        try:
            return (folder / IMAGE_DIR / image.file_name).read_bytes()
        except OSError:
            return None

    return load
