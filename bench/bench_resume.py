"""Resume cost: replay time and memory for a large session, and the price of fsync per turn.

Plain script, no pytest: ``python bench/bench_resume.py [--mb 50]``.

1. Generates a ~50 MB session of ~10,000 entries with the real writer (turns of
   user prompt, tool call, tool result of mixed size, answer, usage; a few
   Layer 1 replacements and two compaction boundaries).
2. Times ``load_replay`` against a bare ``json.loads`` of the same lines
   (best of 3; target: replay <= 1 s and <= 1.5x the bare parse).
3. Measures peak memory of a replay in a fresh subprocess (peak RSS, VmHWM,
   minus the interpreter with the modules imported; Linux).
4. Appends the same turns with and without ``sync()`` at the end of each turn.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pseudoclaude.llm.messages import Message, ToolCall, Usage  # noqa: E402
from pseudoclaude.session import create_session, load_replay  # noqa: E402

_WORDS = "def return import class self value error test file path line result data None True".split()


def _blob(rng: random.Random, size: int) -> str:
    chunk = " ".join(rng.choice(_WORDS) for _ in range(200)) + "\n"
    return (chunk * (size // len(chunk) + 1))[:size]


def _write_turn(session, rng: random.Random, turn: int, result_size: int, sent: int) -> int:  # type: ignore[no-untyped-def]
    session.append_message(Message.user(f"turn {turn}: look at module {turn % 37} and fix the failing test"))
    call = ToolCall(f"call_{turn}", "read_file", json.dumps({"path": f"src/module_{turn % 37}.py"}))
    session.append_message(Message.assistant("Reading the module.", [call]))
    session.append_usage(Usage(200, 30, 1000 + sent * 50, 0), context_messages=sent + 2)
    content = _blob(rng, result_size) + "你好，世界\n"
    session.append_message(Message.tool(call.id, content))
    session.append_message(Message.assistant(f"Turn {turn}: the bug is on line {turn % 300}; fixed."))
    return sent + 4


def generate(folder: Path, target_mb: int) -> tuple[Path, int]:
    rng = random.Random(7)
    session = create_session(folder, folder / "workspace", model="claude-sonnet-4-5", provider="anthropic")
    turns = 2000
    average = target_mb * 1024 * 1024 // turns - 700
    sent = 0
    for turn in range(turns):
        size = rng.choice((average // 4, average // 2, average, average * 9 // 4))
        if turn % 250 == 0:
            size = 60_000
            sent = _write_turn(session, rng, turn, size, sent)
            session.append_replacement(f"call_{turn}", "[preview]", layer="offload", original_bytes=size, path=str(session.spill_dir / f"call_{turn}.txt"))
        else:
            sent = _write_turn(session, rng, turn, size, sent)
        if turn in (700, 1400):
            prefix = [Message.user("summary of earlier work"), Message.assistant("ok"), Message.user("re-read files")]
            session.append_compaction(summary="summary", messages=prefix, trigger="auto", before_tokens=160_000, after_tokens=9_000)
            sent = len(prefix)
        session.sync() if turn % 50 == 0 else None
    session.close()
    entries = sum(1 for _ in open(session.jsonl_path, "rb"))
    return session.jsonl_path, entries


def best_of(runs: int, action) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def bare_parse(path: Path) -> None:
    with open(path, "rb") as handle:
        for line in handle:
            json.loads(line)


_MEMORY_CHILD = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from pseudoclaude.session import load_replay

def high_water_kb():
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent across exec.
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0

base = high_water_kb()
replay = load_replay(Path(sys.argv[2]))
print(base, high_water_kb())
"""


def peak_memory_mb(path: Path) -> float:
    output = subprocess.run(
        [sys.executable, "-c", _MEMORY_CHILD, str(ROOT), str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    base, peak = int(output[0]), int(output[1])
    return (peak - base) / 1024


def fsync_cost(folder: Path, turns: int) -> tuple[float, float]:
    rng = random.Random(3)
    results = []
    for sync_each_turn in (False, True):
        session = create_session(folder, folder / f"ws-{sync_each_turn}", model="m", provider="p")
        start = time.perf_counter()
        sent = 0
        for turn in range(turns):
            sent = _write_turn(session, rng, turn, 2_000, sent)
            if sync_each_turn:
                session.sync()
        session.close()
        results.append((time.perf_counter() - start) / turns * 1000)
    return results[0], results[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=50, help="approximate session size in MB")
    parser.add_argument("--turns", type=int, default=200, help="turns for the fsync measurement")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path, entries = generate(folder, args.mb)
        size_mb = path.stat().st_size / 1024 / 1024
        replay = load_replay(path)
        replay_s = best_of(3, lambda: load_replay(path))
        bare_s = best_of(3, lambda: bare_parse(path))
        memory = peak_memory_mb(path)
        plain_ms, synced_ms = fsync_cost(folder, args.turns)
    ratio = replay_s / bare_s
    rows = [
        ("session", f"{size_mb:.1f} MB, {entries} entries, {len(replay.transcript)} messages", ""),
        ("replay (load_replay)", f"{replay_s * 1000:.0f} ms", "PASS" if replay_s <= 1.0 else "MISS (target <= 1 s)"),
        ("bare json.loads of the lines", f"{bare_s * 1000:.0f} ms", ""),
        ("replay / bare ratio", f"{ratio:.2f}x", "PASS" if ratio <= 1.5 else "MISS (target <= 1.5x)"),
        ("replay peak memory (peak RSS delta)", f"{memory:.0f} MB", f"{memory / size_mb:.1f}x file size"),
        (f"append, no sync ({args.turns} turns x 5)", f"{plain_ms:.3f} ms/turn", ""),
        ("append + sync() each turn", f"{synced_ms:.3f} ms/turn", f"fsync adds {synced_ms - plain_ms:.3f} ms/turn"),
    ]
    width = max(len(r[0]) for r in rows)
    value_width = max(len(r[1]) for r in rows)
    for name, value, verdict in rows:
        print(f"{name:<{width}}  {value:<{value_width}}  {verdict}")


if __name__ == "__main__":
    main()
