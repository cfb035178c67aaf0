"""``.ci/run`` fails on a skip it does not expect (``tests/skip_policy.py``), and only with the policy on."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.skip_policy import EXPECTED_SKIPS

ROOT = Path(__file__).resolve().parent.parent


def _run(tmp_path: Path, reason: str, *, strict: bool) -> subprocess.CompletedProcess[str]:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_probe.py").write_text(f"import pytest\n\ndef test_runs():\n    pass\n\ndef test_skips():\n    pytest.skip({reason!r})\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PSEUDOCLAUDE_STRICT_SKIPS": "1" if strict else "0"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "tests.skip_policy", "-p", "no:cacheprovider", "-n", "0", "test_probe.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_skip_for_a_missing_tool_fails_the_run_on_ci(tmp_path: Path) -> None:
    run = _run(tmp_path, "tmux is not installed", strict=True)
    assert run.returncode == 1, run.stdout
    assert "unexpected skips" in run.stdout and "test_probe.py::test_skips: " in run.stdout and "tmux is not installed" in run.stdout


def test_an_expected_skip_and_a_skip_off_ci_leave_the_run_green(tmp_path: Path) -> None:
    assert _run(tmp_path, EXPECTED_SKIPS[0], strict=True).returncode == 0
    off = _run(tmp_path, "tmux is not installed", strict=False)
    assert off.returncode == 0 and "unexpected skips" not in off.stdout
