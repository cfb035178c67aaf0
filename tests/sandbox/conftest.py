"""Each sandbox test gets a workspace and a temp folder of its own (``TMPDIR``): everything else is outside."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Iterator

import pytest

from tests.sandbox.support import Origin, OriginHandler


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    path = tmp_path / "ws"
    path.mkdir()
    return path.resolve()


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder that is neither the workspace nor the temp folder."""
    path = tmp_path / "outside"
    path.mkdir()
    return path.resolve()


@pytest.fixture
def origin() -> Iterator[Origin]:
    server = Origin(("127.0.0.1", 0), OriginHandler)
    server.seen = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
