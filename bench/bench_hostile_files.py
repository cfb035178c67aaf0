"""Hostile repository content: ``python bench/bench_hostile_files.py [--root CHECKOUT] [--timeout 90]``.

Each case runs in a fresh child process (``--root`` picks the checkout whose
``pseudoclaude`` it imports, so the same script measures a build before and
after a change) that calls the tool as the runner would and reports its wall
time, its own peak RSS (``VmHWM``, imports included: about 26 MB) and its
children's (ripgrep, ``ru_maxrss``), and the
first line of what the model got. A case that runs past ``--timeout`` is
reported as such (the issue measured 60 s and 8.4 GB for the first one).

Cases: grep with a 10 GB sparse file as its path (each engine); grep of a
workspace whose ``.gitignore`` is a FIFO, a link to ``/dev/zero``, a 2 GB
sparse file; read_file of a 10 GB sparse file behind a page of text;
edit_file of a 100 MB one-line file (read first, as the model must) and of a
10 MiB one at edit_file's limit.

Targets (issue 26, item 4): every call under 10 s, the tool process under
200 MB and ripgrep under its 512 MiB cap, whatever the file.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = textwrap.dedent(
    """
    import asyncio, json, resource, sys, time
    from pathlib import Path
    from pseudoclaude.tools import ToolContext
    from pseudoclaude.tools.edit_file import EditFileTool
    from pseudoclaude.tools.grep import GrepTool
    from pseudoclaude.tools.read_file import ReadFileTool

    workspace, steps = Path(sys.argv[1]), json.loads(sys.argv[2])
    tools = {"grep-rg": GrepTool(), "grep-python": GrepTool(rg_path=None), "read_file": ReadFileTool(), "edit_file": EditFileTool()}
    ctx = ToolContext(workspace=workspace)
    started = time.monotonic()
    text = ""
    for name, args in steps:
        try:
            text = asyncio.run(tools[name].run(args, ctx)).content
        except Exception as error:
            text = f"{type(error).__name__}: {error}"
    print(json.dumps({
        "wall_s": time.monotonic() - started,
        "rss_mb": int(next(l for l in open("/proc/self/status") if l.startswith("VmHWM")).split()[1]) / 1024,
        "children_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
        "said": text.strip().splitlines()[0][:110] if text.strip() else "",
    }))
    """
)

GIB = 1 << 30


def _sparse(path: Path, size: int, head: bytes = b"") -> None:
    path.write_bytes(head)
    os.truncate(path, size)


def _one_line(path: Path, size: int) -> None:
    """A file of one line, ``size`` bytes then ``needle``, written in blocks (a child inherits its parent's peak RSS)."""
    with open(path, "wb") as f:
        for _ in range(size // (1 << 20)):
            f.write(b"a" * (1 << 20))
        f.write(b"a" * (size % (1 << 20)) + b"needle")


def cases(base: Path) -> list[tuple[str, Path, list[tuple[str, dict[str, object]]]]]:
    """(label, workspace, tool steps) for each hostile case, its files made under ``base``."""
    out: list[tuple[str, Path, list[tuple[str, dict[str, object]]]]] = []

    def space(name: str) -> Path:
        path = base / name
        path.mkdir()
        (path / "found.txt").write_text("needle\n")
        return path

    sparse_ws = space("sparse")
    _sparse(sparse_ws / "big.bin", 10 * GIB, b"needle\n")
    for engine in ("grep-rg", "grep-python"):
        out.append((f"{engine}, a 10 GB sparse file as path", sparse_ws, [(engine, {"pattern": "absent", "path": "big.bin"})]))
    fifo_ws = space("fifo")
    os.mkfifo(fifo_ws / ".gitignore")
    zero_ws = space("zero")
    (zero_ws / ".gitignore").symlink_to("/dev/zero")
    huge_ws = space("huge-ignore")
    _sparse(huge_ws / ".gitignore", 2 * GIB, b"*.log\n")
    for label, ws in (("a FIFO .gitignore", fifo_ws), (".gitignore -> /dev/zero", zero_ws), ("a 2 GB .gitignore", huge_ws)):
        out.append((f"grep-rg, {label}", ws, [("grep-rg", {"pattern": "needle"})]))
    read_ws = space("read")
    _sparse(read_ws / "big.log", 10 * GIB, "".join(f"line {i}\n" for i in range(3000)).encode())
    out.append(("read_file, 10 GB behind a page of text", read_ws, [("read_file", {"path": "big.log"})]))
    edit_ws = space("edit")
    _one_line(edit_ws / "one-line.js", 100_000_000)
    _one_line(edit_ws / "at-limit.js", (10 << 20) - 16)
    for name, label in (("one-line.js", "a 100 MB one-line file"), ("at-limit.js", "a 10 MiB one-line file")):
        steps = [("read_file", {"path": name}), ("edit_file", {"path": name, "old_string": "needle", "new_string": "pin"})]
        out.append((f"edit_file, {label}", edit_ws, steps))
    return out


def measure(root: Path, workspace: Path, steps: list[tuple[str, dict[str, object]]], timeout: float) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(workspace), json.dumps(steps)],
            env=env,
            cwd=str(root),
            capture_output=True,
            text=True,
            timeout=timeout,
            start_new_session=True,
        )
    except subprocess.TimeoutExpired:
        return {"wall_s": timeout, "rss_mb": float("nan"), "children_mb": float("nan"), "said": f"(still running after {timeout:g} s: killed)"}
    if done.returncode != 0:
        return {"wall_s": float("nan"), "rss_mb": float("nan"), "children_mb": float("nan"), "said": done.stderr.strip().splitlines()[-1][:150]}
    result: dict[str, object] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="checkout whose pseudoclaude to measure (default: this one)")
    parser.add_argument("--timeout", type=float, default=90.0)
    options = parser.parse_args()
    print(f"root: {options.root}")
    print(f"{'case':<46} {'wall':>8} {'tool RSS':>10} {'rg RSS':>9}  what the model got")
    with tempfile.TemporaryDirectory(prefix="hostile-") as scratch:
        for label, workspace, steps in cases(Path(scratch)):
            r = measure(options.root, workspace, steps, options.timeout)
            print(f"{label:<46} {r['wall_s']:>7.2f}s {r['rss_mb']:>8.0f}MB {r['children_mb']:>7.0f}MB  {r['said']}", flush=True)


if __name__ == "__main__":
    main()
