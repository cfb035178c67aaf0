"""Memory bounds at sizes too large for the test suite: ``python bench/bench_bounded_memory.py [--gb 2] [--lines 2000000]``.

The tests check the same bounds at small sizes (issue 31: no test over 5 s):
``tests/tools/test_grep.py`` greps a file of short lines just over
``WHOLE_FILE_BYTES`` under ``tracemalloc``, ``tests/tools/test_run_command.py``
runs a command that prints 200 MB. Here the sizes the tests used to carry:

- grep (Python engine) of a file of ``--lines`` lines of 6 bytes (12 MB by
  default) and a late match: its ``tracemalloc`` peak. Split into lines the
  file would cost ~12x its size; streamed it stays near 2 MB whatever the size.
  Target: under 60 MB.
- ``run_command`` of a command printing ``--gb`` GB (2 by default): the growth
  of the tool process's peak RSS (``VmHWM``), the bytes the model gets and
  that the command's last line reaches it. Target: growth under 60 MB, the
  answer within the inline budget.

Each measurement runs in a fresh child process of this checkout's Python.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

GREP_CHILD = textwrap.dedent(
    """
    import asyncio, json, sys, time, tracemalloc
    from pathlib import Path
    from pseudoclaude.tools import ToolContext
    from pseudoclaude.tools.grep import GrepTool

    ws, lines = Path(sys.argv[1]), int(sys.argv[2])
    (ws / "many.txt").write_text("x = 1\\n" * lines + "needle\\n")
    started = time.monotonic()
    tracemalloc.start()
    out = asyncio.run(GrepTool(rg_path=None).run({"pattern": "needle", "output_mode": "count"}, ToolContext(workspace=ws)))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(json.dumps({"wall_s": time.monotonic() - started, "peak_mb": peak / 1e6, "file_mb": (ws / "many.txt").stat().st_size / 1e6,
                      "said": out.content.splitlines()[0]}))
    """
)

OUTPUT_CHILD = textwrap.dedent(
    """
    import asyncio, json, sys, time
    from pathlib import Path
    from pseudoclaude.tools import ToolContext
    from pseudoclaude.tools.base import OutputBudget
    from pseudoclaude.tools.run_command import RunCommandTool

    def hwm_kb():
        return int(next(l for l in open("/proc/self/status") if l.startswith("VmHWM:")).split()[1])

    ws, spill, size = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    before = hwm_kb()
    started = time.monotonic()
    command = f"yes 'a fairly ordinary line of output' | head -c {size}; echo; echo 'ERROR: the last line'"
    out = asyncio.run(RunCommandTool().run({"command": command, "timeout": 600}, ToolContext(workspace=ws, spill_dir=spill)))
    print(json.dumps({"wall_s": time.monotonic() - started, "growth_mb": (hwm_kb() - before) / 1024,
                      "total": out.display["total_bytes"], "answer_bytes": len(out.content.encode()),
                      "inline_budget": OutputBudget().inline_bytes,
                      "last_line_reached": out.content.endswith("\\nERROR: the last line\\n")}))
    """
)


def child(code: str, *args: str) -> dict[str, object]:
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT, timeout=1200)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    report: dict[str, object] = json.loads(proc.stdout)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gb", type=float, default=2.0, help="GB the command prints")
    parser.add_argument("--lines", type=int, default=2_000_000, help="6-byte lines of the grepped file")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        started = time.monotonic()
        grep = child(GREP_CHILD, str(ws), str(options.lines))
        print(
            f"grep python engine, {grep['file_mb']:.1f} MB of short lines: peak {grep['peak_mb']:.1f} MB (target < 60), {grep['wall_s']:.1f} s; {grep['said']}"
        )
        (ws / "many.txt").unlink()
        size = int(options.gb * 1e9)
        out = child(OUTPUT_CHILD, str(ws), str(Path(tmp) / "spill"), str(size))
        print(
            f"run_command printing {size:,} bytes: RSS growth {out['growth_mb']:.1f} MB (target < 60), total {out['total']:,}, "
            f"answer {out['answer_bytes']:,} bytes (budget {out['inline_budget']:,}), last line reached: {out['last_line_reached']}, "
            f"{out['wall_s']:.1f} s"
        )
        print(f"({time.monotonic() - started:.1f} s in all)")


if __name__ == "__main__":
    main()
