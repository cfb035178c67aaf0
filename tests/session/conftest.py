"""Fixtures for session tests: a sessions folder and a workspace under tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def sessions_dir(tmp_path: Path) -> Path:
    return tmp_path / "home" / "sessions"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "work" / "my project"
    folder.mkdir(parents=True)
    return folder
