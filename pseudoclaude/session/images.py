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
from pathlib import Path

from pseudoclaude.llm import Image, ImageLoader
from pseudoclaude.session.writer import write_private_file

IMAGE_DIR = "images"


def save_image(folder: Path, image: Image) -> None:
    """Keep ``image``'s bytes in ``<folder>/images/`` (once per content); ``OSError`` when that fails."""
    if not image.available:
        return
    directory = folder / IMAGE_DIR
    directory.mkdir(mode=0o700, exist_ok=True)
    path = directory / image.file_name
    if not _holds(path, image.sha256):
        write_private_file(path, image.data)


def _holds(path: Path, sha256: str) -> bool:
    """Whether ``path`` already holds the bytes hashing to ``sha256`` (a changed or truncated file is written again)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() == sha256
    except OSError:
        return False


class ImageStore:
    """One recorder's ``images/`` folder, where each image file is read and hashed once, not at every save.

    A session saves the images of every message it records and of every
    compaction's kept messages, and a note names an image's file each time
    one is offloaded. A file this process checked or wrote is only stat'ed
    again: while its size and mtime are unchanged its bytes are trusted, and a
    file changed on disk since (truncated, replaced) is checked and written
    again as ``save_image`` does.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._kept: dict[str, tuple[int, int]] = {}

    def save(self, image: Image) -> Path:
        """The absolute path of ``image``'s bytes, saved there if they are not; ``OSError``."""
        path = (self.folder / IMAGE_DIR / image.file_name).absolute()
        stamp = _stamp(path)
        if image.available and (stamp is None or self._kept.get(image.sha256) != stamp):
            save_image(self.folder, image)
            if (saved := _stamp(path)) is not None:
                self._kept[image.sha256] = saved
        return path


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns


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
