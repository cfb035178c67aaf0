"""The cost of the boundary: ``python bench/bench_sandbox_overhead.py [--runs N] [--files N]``.

Median wall time of ``true``, ``ls`` and ``git status`` through ``run_shell``
(the run_command mechanics), unconfined and inside the bubblewrap sandbox
(workspace-write, network off, a ``**/.env`` mask expanded over the
workspace, the per-command cgroup), interleaved so machine noise hits both
alike. Prints the medians in ms, the overhead in ms and the ratio. The
workspace is a git repository of ``--files`` files (default 2,000) in 40
folders. Target: under 20 ms overhead per command.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pseudoclaude.sandbox import CommandSandbox, SandboxConfig, detect_sandbox  # noqa: E402
from pseudoclaude.tools.output import StreamCapture  # noqa: E402
from pseudoclaude.tools.shell import run_shell  # noqa: E402

COMMANDS = ("true", "ls", "git status")


def make_workspace(root: Path, files: int) -> Path:
    workspace = root / "ws"
    for index in range(files):
        path = workspace / f"pkg{index % 40:02d}" / f"mod{index}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"VALUE = {index}\n")
    (workspace / ".env").write_text("TOKEN=x\n")
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.email=b@example.com", "-c", "user.name=b", "commit", "-qm", "init"]):
        subprocess.run(["git", *args], cwd=workspace, check=True)
    return workspace


async def once(command: str, workspace: Path, sandbox: CommandSandbox | None) -> float:
    start = time.perf_counter()
    result = await run_shell(command, cwd=workspace, timeout_s=60, capture=StreamCapture(inline_bytes=1 << 16), sandbox=sandbox)
    elapsed = time.perf_counter() - start
    if result.exit_code != 0:
        raise SystemExit(f"{command!r} failed ({result.exit_code}): {bytes(result.capture.head).decode(errors='replace')}")
    return elapsed


async def measure(workspace: Path, sandbox: CommandSandbox, runs: int) -> None:
    print(f"{'command':<12} {'unconfined':>11} {'sandboxed':>10} {'overhead':>9} {'ratio':>6}")
    for command in COMMANDS:
        plain: list[float] = []
        boxed: list[float] = []
        for _ in range(runs):
            plain.append(await once(command, workspace, None))
            boxed.append(await once(command, workspace, sandbox))
        p, b = statistics.median(plain) * 1000, statistics.median(boxed) * 1000
        print(f"{command:<12} {p:>8.1f} ms {b:>7.1f} ms {b - p:>6.1f} ms {b / p:>5.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--files", type=int, default=2000)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workspace = make_workspace(Path(tmp), options.files)
        sandbox, status = detect_sandbox(SandboxConfig(masked_patterns=("**/.env",)), workspace)
        if sandbox is None:
            raise SystemExit(f"no sandbox here: {status.detail}")
        print(f"{status.kind}, {status.mode}: {status.detail}; {options.files} files, median of {options.runs}")
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (a loaded machine doubles these figures)")
        asyncio.run(measure(workspace, sandbox, options.runs))


if __name__ == "__main__":
    main()
