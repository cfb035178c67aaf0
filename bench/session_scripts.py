"""The scripted model of the session-cost benchmark, and the workspaces its sessions work in.

Each session is a ``ScriptedModel``: the fake server calls it once per
accepted request. A summary request (Layer 2: its last message carries the
summary preamble, in place or in the transcript form)
gets a plausible summary built from the script's own log; any other request
gets the next tool call of the plan (the exploration pages a file as far as
the read's offset hint goes). Every long output carries a unique marker
on its last line, so the benchmark can tell whether its tail reached the model.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from tests.fakes.script import Call, Reply, Step, is_summary_request

BYTES_PER_TOKEN = 3.5
MAX_PAGES = 20
Action = tuple[str, dict[str, Any]]

REASONING = (
    "Looking at what the last result showed, the next useful thing is this call; "
    "I will keep the findings in mind and adjust the plan once I have seen its output."
)


SUMMARY_LAST_LINE = "3. Pending: continue with the next step of the plan; nothing was left half-done."
"""The last line of every scripted summary: where the summary text ends inside a compacted request."""


def tokens(text: str) -> float:
    return len(text.encode("utf-8")) / BYTES_PER_TOKEN


def as_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


@dataclass
class LongOutput:
    """One long output the model asked for: its last line carries ``marker``; ``call_ids`` are the calls that returned it."""

    label: str
    marker: str
    call_ids: list[str] = field(default_factory=list)


class ScriptedModel:
    """Plays ``next_action`` for each request with tools; answers a summary request with a plausible summary."""

    task = "Work through the task."
    requests: tuple[str, ...] = ()
    """Every user request in order when the session has more than one (sent as stream-json lines); else just ``task``."""
    RULES: tuple[str, ...] = ()
    """The rules the user stated, each as written in its request."""

    def __init__(self) -> None:
        self.calls = 0
        self.summaries = 0
        self.output_tokens = 0.0
        self.output_log: list[float] = []
        """Each request's output tokens, in order."""
        self.log: list[str] = []
        self.outputs: list[LongOutput] = []
        self.last_call_id = ""

    def next_action(self, body: Mapping[str, Any]) -> tuple[Action, LongOutput | None] | None:
        raise NotImplementedError

    def __call__(self, body: Mapping[str, Any]) -> Step:
        if is_summary_request(body):
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
        self.log.append(f"{name} {as_json(args)[:100]}")
        return self._reply(f"Step {self.calls}: {name}. {REASONING}", Call(name, json.dumps(args), id=self.last_call_id))

    def _reply(self, text: str, *calls: Call) -> Reply:
        spent = tokens(text) + sum(tokens(call.arguments) for call in calls)
        self.output_tokens += spent
        self.output_log.append(spent)
        return Reply(text=text, calls=calls, output_tokens=max(1, round(spent)))

    def summary(self) -> str:
        recent = "\n".join(f"- {line}" for line in self.log[-40:])
        return (
            "<analysis>Chronological notes on the session so far.</analysis>\n<summary>\n"
            f"1. Primary request: {self.task}\n2. Progress: {self.calls} tool calls so far; the most recent:\n{recent}\n"
            f"{SUMMARY_LAST_LINE}\n</summary>"
        )

    def result_text(self, body: Mapping[str, Any]) -> str:
        """The text of the result of the last call, as this request carries it."""
        for message in reversed(body.get("messages", [])):
            for block in message.get("content") if isinstance(message.get("content"), list) else []:
                if block.get("type") == "tool_result" and block.get("tool_use_id") == self.last_call_id:
                    return content_text(block.get("content", ""))
        return ""


def content_text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return str(content)


def tail_marker(kind: str, n: int) -> str:
    return f"BENCH-{kind}-TAIL-{n:03d}-END"


TEST_SCRIPT = r"""
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
"""


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
                (
                    (
                        "edit_file",
                        {"path": f"{folder}/{prefix}mod{k}.py", "old_string": f"FIX_LEVEL_{k} = {edits[k]}", "new_string": f"FIX_LEVEL_{k} = {edits[k] + 1}"},
                    ),
                    None,
                )
                for folder, prefix in (("src", ""), ("tests", "test_"))
            ]
            edits[k] += 1

    def next_action(self, body: Mapping[str, Any]) -> tuple[Action, LongOutput | None] | None:
        return self.plan.pop(0) if self.plan else None


class ExploreSession(ScriptedModel):
    """Read ``files`` files of 10-60 KB whole, following the offset hint each read returns."""

    task = "Read the code base to understand it."
    HINT = re.compile(r"\boffset\b\D{0,4}(\d+)")

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
            text = self.result_text(body)
            hints = self.HINT.findall(text[:400] + "\n" + text[-400:])
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


TICKET_BACKGROUND = (
    "Background. The ledger service reads settlement files that partners upload every night, parses each record with the "
    "parser in pkg/, and writes the balances to the reporting tables. Since the partner in Rotterdam switched to the new "
    "export format last month, roughly one night in five ends with a partial import: the parser stops at the first nested "
    "bracket it does not expect, the import job logs a generic error, and the operations team re-runs it by hand in the "
    "morning after editing the file. Nobody has looked at the parser itself for two years; the people who wrote it have "
    "moved to other teams, and the tests were last touched when the old format was still the only one. "
)
TICKET_CONSTRAINTS = (
    "Constraints. Do not modify anything under tests/; the test files are owned by the QA team and are the acceptance "
    "criteria. Keep every public function name in pkg/ unchanged, because the import job and two notebooks call them by name. "
)
TICKET_ACCEPTANCE = (
    "Acceptance notes. The nightly import of the sample files in the fixtures folder has to complete without manual edits. "
    "The error message for a malformed record should name the file, the line and the offset, so the operations team can "
    "answer the partner without opening a debugger. Performance is not a concern for this change: the files are small "
    "and the job runs at night. If the fix needs a helper, keep it private to its module. Please describe in the final "
    "message what the root cause was and which modules you changed, so the ticket can be closed with that text. "
)


def pasted_ticket(target: int = 4_000) -> str:
    """A ticket pasted as the first request: background, the constraints in the middle, acceptance notes (~``target`` bytes)."""
    head = "Ticket LEDGER-4312: the nightly settlement import fails on nested records.\n\n"
    background, acceptance = TICKET_BACKGROUND, TICKET_ACCEPTANCE
    filler = len(head) + len(TICKET_CONSTRAINTS) + len(background) + len(acceptance)
    while filler < target:
        background += "The old format had no nesting at all, so the parser's recursion was never exercised by real data. "
        acceptance += "The partner has confirmed that the new format will not change again this year. "
        filler = len(head) + len(TICKET_CONSTRAINTS) + len(background) + len(acceptance)
    return f"{head}{background.strip()}\n\n{TICKET_CONSTRAINTS.strip()}\n\n{acceptance.strip()}"


SECOND_REQUEST = (
    "Thanks. Next, add a small cache to the record loader so a file read twice in one import is parsed once. "
    "Never print to stdout in pkg/; report through the logger instead."
)
THIRD_REQUEST = "Finally, review the whole package for other places that would break on nested records and write what you find to NOTES.md."


def _code_module(n: int, size: int) -> str:
    lines = [f'"""Settlement parser module {n}."""', "", f"FIX_LEVEL_{n} = 0", ""]
    written, i = 40, 0
    while written < size:
        block = (
            f"def parse_record_{n}_{i}(tokens, offset):\n"
            f'    """Parse level {i} of a record of module {n}."""\n'
            f"    if tokens[offset] != '[':\n"
            f"        raise ValueError(f\"expected '[' at offset {{offset}}\")\n"
            f"    return parse_record_{n}_{i + 1}(tokens, offset + 1)\n"
        )
        lines.append(block)
        written += len(block) + 1
        i += 1
    return "\n".join(lines) + "\n"


class MultiRequestSession(ScriptedModel):
    """Three user requests in one session: a pasted 4 KB ticket (its constraints in the middle), a follow-up with a
    rule, a last request; each request reads ``files`` modules of about 20 KB, greps, runs the tests and edits."""

    task = pasted_ticket()
    RULES = (
        "Do not modify anything under tests/",
        "Keep every public function name in pkg/ unchanged",
        "Never print to stdout in pkg/",
    )
    """Each rule as the user wrote it (the first two in the first request, the third in the second)."""

    def __init__(self, ws: Path, files: int) -> None:
        super().__init__()
        (ws / "pkg").mkdir(parents=True)
        (ws / "tests").mkdir()
        (ws / "run_tests.py").write_text(TEST_SCRIPT)
        count = 3 * files
        for n in range(count):
            (ws / "pkg" / f"part{n:02d}.py").write_text(_code_module(n, 20_000))
        for n in range(3):
            (ws / "tests" / f"test_part{n:02d}.py").write_text(_module(n, "test"))
        self.requests = (self.task, SECOND_REQUEST, THIRD_REQUEST)
        self.plans: list[list[tuple[Action, LongOutput | None]]] = []
        for r in range(3):
            parts = [f"pkg/part{n:02d}.py" for n in range(r * files, (r + 1) * files)]
            output = LongOutput(f"test run {r + 1}", tail_marker("run", r + 1))
            self.outputs.append(output)
            plan: list[tuple[Action, LongOutput | None]] = [(("read_file", {"path": p}), None) for p in parts]
            plan.append((("grep", {"pattern": "parse_record_\\d+_3\\b", "path": "pkg", "output_mode": "files_with_matches"}), None))
            plan.append((("run_command", {"command": f"{sys.executable} run_tests.py"}), output))
            if r < 2:
                first = r * files
                plan += [
                    (("edit_file", {"path": parts[k], "old_string": f"FIX_LEVEL_{first + k} = 0", "new_string": f"FIX_LEVEL_{first + k} = 1"}), None)
                    for k in range(min(2, files))
                ]
            else:
                plan.append((("write_file", {"path": "NOTES.md", "content": "# Nested records\n\nparse_record_* recursion reviewed.\n"}), None))
            self.plans.append(plan)

    def next_action(self, body: Mapping[str, Any]) -> tuple[Action, LongOutput | None] | None:
        if self.plans and not self.plans[0]:
            self.plans.pop(0)
            return None  # this request is done: the answer ends its run, the next prompt starts the next plan
        return self.plans[0].pop(0) if self.plans else None

    def summary(self) -> str:
        asked = "; ".join(request.splitlines()[0][:80] for request in self.requests[: 3 - len(self.plans) + 1])
        recent = "\n".join(f"- {line}" for line in self.log[-40:])
        return (
            "<analysis>Chronological notes on the session so far.</analysis>\n<summary>\n"
            f"1. Requests: {asked}\n2. Progress: {self.calls} tool calls so far; the most recent:\n{recent}\n"
            f"{SUMMARY_LAST_LINE}\n</summary>"
        )


@dataclass(frozen=True)
class Size:
    debug_runs: int
    explore_files: int
    small_results: int
    multi_files: int = 8


FULL = Size(debug_runs=5, explore_files=40, small_results=200)
QUICK = Size(debug_runs=2, explore_files=8, small_results=30, multi_files=3)
SESSIONS: dict[str, Callable[[Path, Size], ScriptedModel]] = {
    "debug": lambda ws, size: DebugSession(ws, size.debug_runs),
    "explore": lambda ws, size: ExploreSession(ws, size.explore_files),
    "small": lambda ws, size: SmallSession(ws, size.small_results),
    "multi": lambda ws, size: MultiRequestSession(ws, size.multi_files),
}
