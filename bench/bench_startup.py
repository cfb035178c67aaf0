"""Start-up and memory benchmark: ``python bench/bench_startup.py [--runs N]``.

Prints whole-process wall time of ``pseudoclaude --version`` and ``--help``
as a ratio to ``python -c pass`` (median of N runs, interleaved so machine
noise hits every command alike), and the peak RSS of a headless 3-turn tool
run against the fake Anthropic server (the SDK, tools and session included).
Targets: ``--version`` < 0.11 s and ``--help`` < 0.27 s (Claude Code here),
headless peak RSS < 150 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fakes.anthropic_server import FakeAnthropicServer  # noqa: E402
from tests.fakes.script import Call, Reply  # noqa: E402

COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "pseudoclaude --version": [sys.executable, "-m", "pseudoclaude", "--version"],
    "pseudoclaude --help": [sys.executable, "-m", "pseudoclaude", "--help"],
}


def wall_time(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def headless_peak_rss_mb() -> tuple[float, float]:
    """Peak RSS (MB) and wall time of a 3-turn headless run; measured with wait4 on the child."""
    script = [
        Reply(text="Reading.", calls=(Call("read_file", json.dumps({"path": "notes.txt"})),)),
        Reply(text="Counting.", calls=(Call("run_command", json.dumps({"command": "wc -l < notes.txt"})),)),
        Reply(text="Three lines."),
    ]
    with tempfile.TemporaryDirectory() as tmp, FakeAnthropicServer(script) as server:
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        (workspace / "notes.txt").write_text("a\nb\nc\n")
        env = {
            **os.environ,
            "ANTHROPIC_API_KEY": "bench-key",
            "ANTHROPIC_BASE_URL": server.url,
            "PSEUDOCLAUDE_MODEL": "claude-sonnet-4-5",
            "PSEUDOCLAUDE_HOME": str(Path(tmp) / "home"),
        }
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "pseudoclaude", "-p", "count the lines", "--permission-mode", "bypass"],
            cwd=workspace,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise SystemExit(f"headless run failed with exit code {proc.returncode}")
    return usage.ru_maxrss / 1024, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    samples: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for name, argv in COMMANDS.items():
        wall_time(argv)  # warm the file cache
    for _ in range(args.runs):
        for name, argv in COMMANDS.items():
            samples[name].append(wall_time(argv))
    base = statistics.median(samples["python -c pass"])
    print(f"start-up, median of {args.runs} runs (interleaved)")
    print(f"{'command':28} {'median s':>9} {'ratio':>7}")
    for name, values in samples.items():
        median = statistics.median(values)
        print(f"{name:28} {median:9.3f} {median / base:7.2f}x")
    rss, elapsed = headless_peak_rss_mb()
    print(f"headless 3-turn run (fake Anthropic server): peak RSS {rss:.1f} MB, wall {elapsed:.2f} s (target < 150 MB)")


if __name__ == "__main__":
    main()
