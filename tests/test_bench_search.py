"""The search benchmark keeps working: a small tree through both engines in their own processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench.bench_search import CALLS, build_tree

ROOT = Path(__file__).resolve().parent.parent


def test_the_generated_tree_is_reproducible_and_mixed(tmp_path: Path) -> None:
    build_tree(tmp_path / "a", 300, 2)
    build_tree(tmp_path / "b", 300, 2)
    a = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert a == sorted(p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*") if p.is_file())
    assert any(p.suffix == ".bin" for p in a) and any(p.name == ".gitignore" for p in a[1:])
    assert (tmp_path / "a/pkg00/mod00/build").is_dir() and (tmp_path / "a/.pseudoclaudeignore").is_file()


def test_both_engines_report_every_call(tmp_path: Path) -> None:
    argv = [sys.executable, "bench/bench_search.py", "--files", "400", "--mb", "2", "--runs", "1", "--tree", str(tmp_path / "t")]
    out = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=True, timeout=120).stdout
    rows = {line.split(" | ")[0].lstrip("| "): line for line in out.splitlines() if line.startswith("| ")}
    for label, _, _ in CALLS:
        assert rows[label].count(" ms") == 2
    assert "peak RSS (this process)" in rows and "/context instruction scan" in rows
