"""What long sessions cost, and whether the model sees the end of long outputs.

``python bench/bench_session_cost.py [--quick] [--sessions debug,explore,small] [--windows 200000,60000,32000]``

Plays scripted sessions through the real CLI (headless, ``--context-window``)
against the wire-level fake Anthropic server, which enforces the window (a
prompt over it is a 400), and prints one markdown table per run:

* **debug**: the model runs a test suite (a real script in a temp workspace)
  whose output is ~270 KB of PASSED lines with the failures and a traceback in
  its last 2 KB, then reads two files and edits one, and again, 5 times.
* **explore**: the model reads 40 generated files of 10-60 KB, paging each one
  as far as the result's ``offset=`` hint takes it (at most 20 pages).
* **small**: 200 small tool results (reads, a command, a glob).

The model is a script: it issues its calls in order whatever it sees (only
the paging in *explore* follows the hint a read returns). A summary request
(Layer 2: a request without tools) is answered with a plausible summary made
of the script's own log, so it never carries a marker.

Reported per run: requests the server accepted, summaries, 400s, input tokens
billed with the cached share, the peak prompt, output tokens and an estimated
cost at Sonnet prices (cached read $0.30/M, uncached input $3.75/M: cache
writes count as uncached, output $15/M). For every long output (a test run,
a file): whether its tail reached the model, i.e. the unique marker on its
last line appears in the messages of a later request *with tools* (what the
working model reads; a summary request does not count), and its inline cost:
the tokens of its tool result(s) as first sent.

Token counts are estimates: UTF-8 bytes / 3.5 of each prompt block's JSON
(the project's own estimate ratio). The fake server bills nothing cached, so
the cache is simulated from the requests, as Anthropic's prompt cache serves
them. The rule:

1. A prompt is a sequence of blocks in the order the service reads it: each
   tool, each system block, each content block of each message (with its role).
   A block carrying ``cache_control`` is a breakpoint.
2. A request *writes* the prefix ending at each of its breakpoints (when that
   prefix is at least 1,024 tokens, Sonnet's minimum).
3. A request *reads* the longest prefix ending at a block that some earlier
   request wrote, found by looking back at most 20 blocks from each of its own
   breakpoints. Those tokens are cached; the rest of the prompt is uncached.
   (No expiry: a scripted session runs well within the 5-minute TTL.)

In an append-only conversation this is the common prefix with the previous
request; a change in the middle (an offload, a summary) loses the cache from
that point on.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.fakes.anthropic_server import FakeAnthropicServer  # noqa: E402
from tests.fakes.script import Call, Reply, Step  # noqa: E402

CACHED_PER_M = 0.30
UNCACHED_PER_M = 3.75
OUTPUT_PER_M = 15.0
BYTES_PER_TOKEN = 3.5
CACHE_LOOKBACK_BLOCKS = 20
CACHE_MIN_TOKENS = 1024
WINDOWS = (200_000, 60_000, 32_000)
MAX_PAGES = 20
Action = tuple[str, dict[str, Any]]
REASONING = (
    "Looking at what the last result showed, the next useful thing is this call; "
    "I will keep the findings in mind and adjust the plan once I have seen its output."
)


def tokens(text: str) -> float:
    return len(text.encode("utf-8")) / BYTES_PER_TOKEN


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


# ---------------------------------------------------------------- prompt cache


def prompt_blocks(body: Mapping[str, Any]) -> list[tuple[str, bool]]:
    """(block text without its marker, carries a cache marker) in the order the service reads a prompt."""
    def block(role: str, value: Any) -> tuple[str, bool]:
        if isinstance(value, dict):
            marked = "cache_control" in value
            return role + _json({k: v for k, v in value.items() if k != "cache_control"}), marked
        return role + _json(value), False

    blocks = [block("tool:", tool) for tool in body.get("tools") or []]
    system = body.get("system")
    blocks += [block("system:", b) for b in (system if isinstance(system, list) else [system] if system else [])]
    for message in body.get("messages", []):
        content = message.get("content")
        for b in content if isinstance(content, list) else [content]:
            blocks.append(block(str(message.get("role")) + ":", b))
    return blocks


@dataclass
class PromptCache:
    """Anthropic's prompt cache as the module docstring states it: prefixes written at breakpoints, read back."""

    written: set[bytes] = field(default_factory=set)

    def serve(self, body: Mapping[str, Any]) -> tuple[float, float]:
        """(prompt tokens, cached tokens) of one request; records the prefixes it writes."""
        running = hashlib.sha256(str(body.get("model")).encode())
        digests: list[bytes] = []
        ends: list[float] = []
        total = 0.0
        marks: list[int] = []
        for index, (text, marked) in enumerate(prompt_blocks(body)):
            running.update(b"\x00" + text.encode("utf-8"))
            digests.append(running.copy().digest())
            total += tokens(text)
            ends.append(total)
            if marked:
                marks.append(index)
        cached = 0.0
        for mark in marks:
            for index in range(mark, max(-1, mark - CACHE_LOOKBACK_BLOCKS), -1):
                if digests[index] in self.written:
                    cached = max(cached, ends[index])
                    break
        self.written.update(digests[mark] for mark in marks if ends[mark] >= CACHE_MIN_TOKENS)
        return total, cached


# ---------------------------------------------------------------- the scripted model


@dataclass
class LongOutput:
    """One long output the model asked for: its last line carries ``marker``; ``call_ids`` are the calls that returned it."""

    label: str
    marker: str
    call_ids: list[str] = field(default_factory=list)


class ScriptedModel:
    """Plays ``next_action`` for each request with tools; answers a summary request with a plausible summary."""

    task = "Work through the task."

    def __init__(self) -> None:
        self.calls = 0
        self.summaries = 0
        self.output_tokens = 0.0
        self.log: list[str] = []
        self.outputs: list[LongOutput] = []
        self.last_call_id = ""

    def next_action(self, body: Mapping[str, Any]) -> tuple[Action, LongOutput | None] | None:
        raise NotImplementedError

    def __call__(self, body: Mapping[str, Any]) -> Step:
        if not body.get("tools"):
            self.summaries += 1
            return self._reply(self.summary())
        planned = self.next_action(body)
        if planned is None:
            return self._reply(f"Done after {self.calls} tool calls.")
        (name, args), output = planned
        self.calls += 1
        self.last_call_id = f"bench_{self.calls}"
        if output is not None:
            output.call_ids.append(self.last_call_id)
        self.log.append(f"{name} {_json(args)[:100]}")
        return self._reply(f"Step {self.calls}: {name}. {REASONING}", Call(name, json.dumps(args), id=self.last_call_id))

    def _reply(self, text: str, *calls: Call) -> Reply:
        spent = tokens(text) + sum(tokens(call.arguments) for call in calls)
        self.output_tokens += spent
        return Reply(text=text, calls=calls, output_tokens=max(1, round(spent)))

    def summary(self) -> str:
        recent = "\n".join(f"- {line}" for line in self.log[-40:])
        return (
            "<analysis>Chronological notes on the session so far.</analysis>\n<summary>\n"
            f"1. Primary request: {self.task}\n2. Progress: {self.calls} tool calls so far; the most recent:\n{recent}\n"
            "3. Pending: continue with the next step of the plan; nothing was left half-done.\n</summary>"
        )

    def result_text(self, body: Mapping[str, Any]) -> str:
        """The text of the result of the last call, as this request carries it."""
        for message in reversed(body.get("messages", [])):
            for block in message.get("content") if isinstance(message.get("content"), list) else []:
                if block.get("type") == "tool_result" and block.get("tool_use_id") == self.last_call_id:
                    return _content_text(block.get("content", ""))
        return ""


def _content_text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return str(content)


def tail_marker(kind: str, n: int) -> str:
    return f"BENCH-{kind}-TAIL-{n:03d}-END"


TEST_SCRIPT = r'''
import pathlib, sys
counter = pathlib.Path(".bench_runs")
n = int(counter.read_text()) + 1 if counter.exists() else 1
counter.write_text(str(n))
out, size, i = [], 0, 0
while size < 268_000:
    line = f"tests/unit/test_module_{i // 150:02d}.py::TestParser::test_case_{i:05d} PASSED   [{i % 100:3d}%]"
    out.append(line)
    size += len(line) + 1
    i += 1
for k in range(3):
    out.append(f"__________________ TestParser.test_nested_case_{k} __________________")
    out.append("Traceback (most recent call last):")
    for depth in range(4):
        out.append(f'  File "src/mod{k}.py", line {40 + depth * 7}, in parse_level_{depth}')
        out.append(f"    return parse_level_{depth + 1}(tokens, offset + {depth})")
    out.append(f"AssertionError: expected ']' at offset {17 + k} in nested case {k}, got ')'")
out.append("=========================== short test summary info ============================")
out += [f"FAILED tests/unit/test_module_0{k}.py::TestParser::test_nested_case_{k} - AssertionError" for k in range(3)]
out.append(f"==== 3 failed, {i} passed in 12.3s ==== BENCH-run-TAIL-{n:03d}-END")
sys.stdout.write("\n".join(out) + "\n")
sys.exit(1)
'''


def _module(k: int, kind: str) -> str:
    body = "".join(f"def parse_level_{d}(tokens, offset):\n    # level {d} of the {kind} parser\n    return offset + {d}\n\n" for d in range(90))
    return f'"""{kind} module {k}."""\n\nFIX_LEVEL_{k} = 0\n\n' + body


class DebugSession(ScriptedModel):
    """Run the suite, read the failing module and its test, grep, edit both; ``runs`` times."""

    task = "Make the failing parser tests pass."

    def __init__(self, ws: Path, runs: int) -> None:
        super().__init__()
        (ws / "src").mkdir(parents=True)
        (ws / "tests").mkdir()
        (ws / "run_tests.py").write_text(TEST_SCRIPT)
        for k in range(3):
            (ws / "src" / f"mod{k}.py").write_text(_module(k, "source"))
            (ws / "tests" / f"test_mod{k}.py").write_text(_module(k, "test"))
        self.plan: list[tuple[Action, LongOutput | None]] = []
        edits = [0, 0, 0]
        for run in range(1, runs + 1):
            k = (run - 1) % 3
            output = LongOutput(f"test run {run}", tail_marker("run", run))
            self.outputs.append(output)
            self.plan += [
                (("run_command", {"command": f"{sys.executable} run_tests.py"}), output),
                (("read_file", {"path": f"src/mod{k}.py"}), None),
                (("read_file", {"path": f"tests/test_mod{k}.py"}), None),
                (("grep", {"pattern": f"parse_level_{run}\\b", "path": "src", "output_mode": "content"}), None),
            ] + [
                (("edit_file", {"path": f"{folder}/{prefix}mod{k}.py", "old_string": f"FIX_LEVEL_{k} = {edits[k]}",
                                "new_string": f"FIX_LEVEL_{k} = {edits[k] + 1}"}), None)
                for folder, prefix in (("src", ""), ("tests", "test_"))
            ]
            edits[k] += 1

    def next_action(self, body: Mapping[str, Any]) -> tuple[Action, LongOutput | None] | None:
        return self.plan.pop(0) if self.plan else None


class ExploreSession(ScriptedModel):
    """Read ``files`` files of 10-60 KB whole, following each read's ``offset=`` hint."""

    task = "Read the code base to understand it."
    HINT = re.compile(r"offset\s*[=:]\s*(\d+)")

    def __init__(self, ws: Path, files: int) -> None:
        super().__init__()
        (ws / "pkg").mkdir(parents=True)
        self.queue: list[tuple[str, LongOutput]] = []
        for n in range(files):
            size = 10_000 + (50_000 * n) // max(1, files - 1)
            lines, written, i = [], 0, 0
            while written < size - 40:
                line = f"    value_{n}_{i} = compute(value_{n}_{i - 1}, {i}) + offset_table[{i % 97}]"
                lines.append(line)
                written += len(line) + 1
                i += 1
            path = f"pkg/file{n:02d}.py"
            (ws / path).write_text("\n".join(lines) + f"\n# {tail_marker('file', n)}\n")
            output = LongOutput(f"{path} ({size // 1000} KB)", tail_marker("file", n))
            self.outputs.append(output)
            self.queue.append((path, output))
        self.current: tuple[str, LongOutput] | None = None
        self.pages = 0
        self.offset = 1

    def next_action(self, body: Mapping[str, Any]) -> tuple[Action, LongOutput | None] | None:
        if self.current is not None and self.pages < MAX_PAGES:
            hints = self.HINT.findall(self.result_text(body)[-400:])
            if hints and int(hints[-1]) > self.offset:
                self.offset = int(hints[-1])
                self.pages += 1
                path, output = self.current
                return ("read_file", {"path": path, "offset": self.offset}), output
        if not self.queue:
            return None
        self.current = self.queue.pop(0)
        self.pages, self.offset = 1, 1
        return ("read_file", {"path": self.current[0]}), self.current[1]


class SmallSession(ScriptedModel):
    """``results`` small tool results: reads of 1 KB files, a short command, a glob."""

    task = "Survey the small files."

    def __init__(self, ws: Path, results: int) -> None:
        super().__init__()
        (ws / "small").mkdir(parents=True)
        for n in range(10):
            (ws / "small" / f"f{n}.txt").write_text("".join(f"small file {n}, line {i}: some ordinary content\n" for i in range(25)))
        self.plan: list[Action] = []
        for k in range(results):
            if k % 3 == 0:
                self.plan.append(("read_file", {"path": f"small/f{k % 10}.txt"}))
            elif k % 3 == 1:
                self.plan.append(("run_command", {"command": f"echo step {k} && wc -l small/f{k % 10}.txt"}))
            else:
                self.plan.append(("glob", {"pattern": "small/*.txt"}))

    def next_action(self, body: Mapping[str, Any]) -> tuple[Action, LongOutput | None] | None:
        return (self.plan.pop(0), None) if self.plan else None


@dataclass(frozen=True)
class Size:
    debug_runs: int
    explore_files: int
    small_results: int


FULL = Size(debug_runs=5, explore_files=40, small_results=200)
QUICK = Size(debug_runs=2, explore_files=8, small_results=30)
SESSIONS: dict[str, Callable[[Path, Size], ScriptedModel]] = {
    "debug": lambda ws, size: DebugSession(ws, size.debug_runs),
    "explore": lambda ws, size: ExploreSession(ws, size.explore_files),
    "small": lambda ws, size: SmallSession(ws, size.small_results),
}


# ---------------------------------------------------------------- one run


@dataclass(frozen=True)
class OutputReport:
    label: str
    tail_seen: bool
    tail_in_first_result: bool
    inline_tokens: float
    calls: int


@dataclass(frozen=True)
class RunReport:
    session: str
    window: int
    requests: int
    summaries: int
    rejections: int
    input_tokens: float
    cached_tokens: float
    peak_prompt: float
    output_tokens: float
    outputs: tuple[OutputReport, ...]
    exit_code: int
    seconds: float

    @property
    def cost(self) -> float:
        uncached = self.input_tokens - self.cached_tokens
        return (self.cached_tokens * CACHED_PER_M + uncached * UNCACHED_PER_M + self.output_tokens * OUTPUT_PER_M) / 1e6


def analyse(session: str, window: int, model: ScriptedModel, accepted: Sequence[Mapping[str, Any]], rejections: int,
            exit_code: int = 0, seconds: float = 0.0) -> RunReport:
    """The report of one run from the requests the server accepted (in order) and the model's own record."""
    cache = PromptCache()
    billed = cached = peak = 0.0
    first_sent: dict[str, str] = {}
    seen_texts: list[str] = []
    for body in accepted:
        prompt, hit = cache.serve(body)
        billed, cached, peak = billed + prompt, cached + hit, max(peak, prompt)
        if not body.get("tools"):
            continue
        seen_texts.append(json.dumps(body.get("messages", []), ensure_ascii=False))
        for message in body.get("messages", []):
            for block in message.get("content") if isinstance(message.get("content"), list) else []:
                if block.get("type") == "tool_result" and block.get("tool_use_id") not in first_sent:
                    first_sent[block["tool_use_id"]] = _json(block.get("content", ""))
    outputs = tuple(
        OutputReport(out.label, any(out.marker in text for text in seen_texts),
                     bool(out.call_ids) and out.marker in first_sent.get(out.call_ids[0], ""),
                     sum(tokens(first_sent.get(i, "")) for i in out.call_ids), len(out.call_ids))
        for out in model.outputs
    )
    return RunReport(session, window, len(accepted), model.summaries, rejections, billed, cached, peak,
                     model.output_tokens, outputs, exit_code, seconds)


def run_session(session: str, window: int, size: Size) -> RunReport:
    """Play ``session`` through the CLI at ``window`` against the fake Anthropic server enforcing that window."""
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        model = SESSIONS[session](ws, size)
        with FakeAnthropicServer(model, context_window=window) as server:
            env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
            env.update(ANTHROPIC_API_KEY="bench", ANTHROPIC_BASE_URL=server.url, PSEUDOCLAUDE_MODEL="claude-sonnet-4-5",
                       PSEUDOCLAUDE_HOME=str(Path(tmp) / "home"),
                       PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p))
            started = time.monotonic()
            proc = subprocess.run(
                [sys.executable, "-m", "pseudoclaude", "-p", model.task, "--output-format", "stream-json",
                 "--permission-mode", "bypass", "--context-window", str(window), "--max-turns", "2000"],
                cwd=ws, env=env, capture_output=True, text=True, timeout=1800,
            )
            seconds = time.monotonic() - started
            accepted, rejections = list(server.cursor.requests), len(server.rejections)
    if proc.returncode != 0:
        print(f"warning: {session} at {window}: exit {proc.returncode}: {proc.stderr[-500:]}", file=sys.stderr)
    return analyse(session, window, model, accepted, rejections, proc.returncode, seconds)


# ---------------------------------------------------------------- tables


def _k(value: float) -> str:
    return f"{value / 1000:.1f}k" if value < 1e6 else f"{value / 1e6:.2f}M"


def _window(window: int) -> str:
    return f"{window // 1000}k"


def summary_table(reports: Sequence[RunReport]) -> str:
    rows = [
        "| session | window | requests | summaries | 400s | input tokens (cached) | peak prompt | output | cost "
        "| tails seen (in first result) | inline tokens per long output, median / max | calls for long outputs |",
        "|---|---|---:|---:|---:|---|---:|---:|---:|---|---|---:|",
    ]
    for r in reports:
        inline = [o.inline_tokens for o in r.outputs]
        shape = f"{_k(statistics.median(inline))} / {_k(max(inline))}" if inline else "-"
        calls = f"{sum(o.calls for o in r.outputs)}" if r.outputs else "-"
        first = sum(o.tail_in_first_result for o in r.outputs)
        tails = f"{sum(o.tail_seen for o in r.outputs)}/{len(r.outputs)} ({first})" if r.outputs else "-"
        share = r.cached_tokens / r.input_tokens if r.input_tokens else 0.0
        status = "" if r.exit_code == 0 else f" (exit {r.exit_code})"
        rows.append(
            f"| {r.session}{status} | {_window(r.window)} | {r.requests} | {r.summaries} | {r.rejections} | "
            f"{_k(r.input_tokens)} ({share:.0%}) | {_k(r.peak_prompt)} | {_k(r.output_tokens)} | ${r.cost:.2f} | "
            f"{tails} | {shape} | {calls} |"
        )
    return "\n".join(rows)


def debug_table(reports: Sequence[RunReport]) -> str:
    """Each test run of the debug session: tail seen (yes/no) and its inline tokens."""
    runs = [r for r in reports if r.session == "debug"]
    if not runs:
        return ""
    labels = [o.label for o in runs[0].outputs]
    rows = ["| window | " + " | ".join(labels) + " |", "|---|" + "---|" * len(labels)]
    for r in runs:
        cells = [f"{'tail seen' if o.tail_seen else 'tail lost'}, {_k(o.inline_tokens)}" for o in r.outputs]
        rows.append(f"| {_window(r.window)} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer turns (2 test runs, 8 files, 30 small results)")
    parser.add_argument("--sessions", default="debug,explore,small")
    parser.add_argument("--windows", default=",".join(str(w) for w in WINDOWS))
    args = parser.parse_args(argv)
    size = QUICK if args.quick else FULL
    reports: list[RunReport] = []
    for session in args.sessions.split(","):
        for window in (int(w) for w in args.windows.split(",")):
            reports.append(run_session(session, window, size))
            print(f"  {session} at {_window(window)}: {reports[-1].seconds:.0f}s", file=sys.stderr)
    print(summary_table(reports))
    details = debug_table(reports)
    if details:
        print("\nDebug session, each test run (tail seen by the model, inline tokens as first sent):\n")
        print(details)


if __name__ == "__main__":
    main()
