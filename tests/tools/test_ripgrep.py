"""Which rg the grep tool runs: the one next to the interpreter (the ripgrep wheel's) first, then the PATH's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pseudoclaude.tools import ripgrep

MODULE = Path(ripgrep.__file__)


def fake_rg(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    rg = folder / "rg"
    rg.write_text("#!/bin/sh\nexit 0\n")
    rg.chmod(0o755)
    return rg


def found_by(python: Path, path_env: str) -> str:
    """``find_rg()`` as a process started as ``python`` sees it (the module needs only the standard library)."""
    code = f"import runpy; print(runpy.run_path({str(MODULE)!r})['find_rg']())"
    env = {"PATH": path_env, "PYTHONNOUSERSITE": "1"}
    return subprocess.run([str(python), "-I", "-c", code], env=env, capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture
def interpreter(tmp_path: Path) -> Path:
    """A folder holding a ``python`` link: ``sys.executable`` is that link, as in a virtual environment."""
    bin_dir = tmp_path / "env" / "bin"
    bin_dir.mkdir(parents=True)
    python = bin_dir / "python"
    python.symlink_to(os.path.realpath(sys.executable))
    return python


def test_the_rg_next_to_the_interpreter_wins_over_the_path(interpreter: Path, tmp_path: Path) -> None:
    bundled = fake_rg(interpreter.parent)
    fake_rg(tmp_path / "system")
    assert found_by(interpreter, str(tmp_path / "system")) == str(bundled)


def test_without_a_bundled_rg_the_path_is_searched(interpreter: Path, tmp_path: Path) -> None:
    system = fake_rg(tmp_path / "system")
    assert found_by(interpreter, f"{tmp_path / 'empty'}{os.pathsep}{system.parent}") == str(system)


def test_none_when_there_is_no_rg_anywhere(interpreter: Path, tmp_path: Path) -> None:
    assert found_by(interpreter, str(tmp_path / "empty")) == "None"


def test_this_environment_runs_the_pinned_wheel() -> None:
    """The project depends on ripgrep==14.1.0: its rg sits next to the test interpreter."""
    found = ripgrep.find_rg()
    assert found is not None and Path(found).parent == Path(sys.executable).parent
    version = subprocess.run([found, "--version"], capture_output=True, text=True, check=True).stdout
    assert version.startswith("ripgrep 14.1.0")


def test_the_models_commands_find_the_bundled_rg_when_the_path_has_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio
    import shutil as sh

    from pseudoclaude.tools.output import StreamCapture
    from pseudoclaude.tools.ripgrep import find_rg
    from pseudoclaude.tools.shell import run_shell

    bundled = find_rg()
    if bundled is None or Path(bundled).parent == Path("/usr/bin"):
        pytest.skip("no bundled rg next to this interpreter")
    bare = tmp_path / "bin"
    bare.mkdir()
    (bare / "bash").symlink_to(sh.which("bash") or "/bin/bash")
    monkeypatch.setenv("PATH", str(bare))
    capture = StreamCapture(inline_bytes=4096)
    result = asyncio.run(run_shell("command -v rg", cwd=tmp_path, timeout_s=10, capture=capture))
    assert result.exit_code == 0
    assert bytes(capture.head + capture.tail).decode().strip() == bundled
