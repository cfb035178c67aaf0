"""The reports of a session-cost run and their Markdown tables (``bench_session_cost.py`` prints them)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Sequence

from bench.compaction_checks import CompactionReport, WordsReport
from bench.server_views import SONNET, Prices

BREAK_SHARE = 0.5
"""A request between compactions that reads less than this share of the previous prompt from the cache is a break."""


@dataclass(frozen=True)
class OutputReport:
    label: str
    tail_seen: bool
    tail_in_first_result: bool
    inline_tokens: float
    calls: int
    real_tokens: int = 0
    """Its inline cost counted by a real tokenizer (o200k, loaded offline; 0 when it cannot be loaded)."""


@dataclass(frozen=True)
class RequestRow:
    """One accepted request: its kind, prompt, the part read from the cache, output, and its cost."""

    kind: str
    prompt: float
    cached: float
    output: float
    prices: Prices = SONNET

    @property
    def cost(self) -> float:
        return self.prices.cost(self.prompt, self.cached, self.output)


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
    compactions: tuple[CompactionReport, ...] = ()
    summary_input: float = 0.0
    summary_cached: float = 0.0
    reuse: tuple[float, ...] = ()
    words: tuple[WordsReport, ...] = ()
    per_request: tuple[RequestRow, ...] = ()
    engine: str = "pipeline"
    provider: str = "anthropic"
    prices: Prices = SONNET
    own_summaries: int = 0
    """The summary requests the client sent (Layer 2's): none under a provider's compaction."""

    @property
    def cost(self) -> float:
        return self.prices.cost(self.input_tokens, self.cached_tokens, self.output_tokens)


def requests_table(report: RunReport) -> str:
    """The per-request breakdown of one run, then its cost by kind of request (where the money goes)."""
    rows = [
        f"{run_label(report)} at {window_label(report.window)}:",
        "| # | kind | prompt | cached | uncached | output | cost |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for n, row in enumerate(report.per_request, 1):
        rows.append(f"| {n} | {row.kind} | {_k(row.prompt)} | {_k(row.cached)} | {_k(row.prompt - row.cached)} | {_k(row.output)} | ${row.cost:.3f} |")
    for kind in ("grow", "break", "summary", "after"):
        chosen = [row for row in report.per_request if row.kind == kind]
        if chosen:
            uncached = sum(row.prompt - row.cached for row in chosen)
            rows.append(
                f"{kind}: {len(chosen)} requests, ${sum(row.cost for row in chosen):.2f} "
                f"(uncached {_k(uncached)}: ${uncached * report.prices.uncached / 1e6:.2f})"
            )
    first_sent = sum(o.inline_tokens for o in report.outputs)
    if first_sent:
        rows.append(
            f"the long outputs as first sent: {_k(first_sent)} tokens, ${first_sent * report.prices.uncached / 1e6:.2f} to write them once "
            "(no compaction removes this part)"
        )
    return "\n".join(rows)


def _k(value: float) -> str:
    return f"{value / 1000:.1f}k" if value < 1e6 else f"{value / 1e6:.2f}M"


def window_label(window: int) -> str:
    return f"{window // 1000}k"


def summary_table(reports: Sequence[RunReport]) -> str:
    rows = [
        "| session | engine | window | requests | summaries | summary input (cached) | 400s | input tokens (cached) | peak prompt | output | cost "
        "| tails seen (in first result) | inline tokens per long output, median / max | calls for long outputs "
        "| prefix reuse between compactions, mean / min (breaks) |",
        "|---|---|---|---:|---:|---|---:|---|---:|---:|---:|---|---|---:|---|",
    ]
    for r in reports:
        inline = [o.inline_tokens for o in r.outputs]
        shape = f"{_k(statistics.median(inline))} / {_k(max(inline))}" if inline else "-"
        calls = f"{sum(o.calls for o in r.outputs)}" if r.outputs else "-"
        first = sum(o.tail_in_first_result for o in r.outputs)
        tails = f"{sum(o.tail_seen for o in r.outputs)}/{len(r.outputs)} ({first})" if r.outputs else "-"
        share = r.cached_tokens / r.input_tokens if r.input_tokens else 0.0
        summaries = f"{_k(r.summary_input)} ({r.summary_cached / r.summary_input:.0%})" if r.summary_input else "-"
        status = "" if r.exit_code == 0 else f" (exit {r.exit_code})"
        breaks = sum(share < BREAK_SHARE for share in r.reuse)
        reuse = f"{statistics.mean(r.reuse):.3f} / {min(r.reuse):.2f} ({breaks})" if r.reuse else "-"
        rows.append(
            f"| {r.session}{status} | {r.engine} | {window_label(r.window)} | {r.requests} | {_summaries(r)} | {summaries} | {r.rejections} | "
            f"{_k(r.input_tokens)} ({share:.0%}) | {_k(r.peak_prompt)} | {_k(r.output_tokens)} | ${r.cost:.2f} | "
            f"{tails} | {shape} | {calls} | {reuse} |"
        )
    return "\n".join(rows)


def _summaries(report: RunReport) -> str:
    """How many summaries; under the native engine, the server's and ours (its fallback when the server had not compacted in time)."""
    if report.engine != "native":
        return str(report.summaries)
    return f"{report.summaries - report.own_summaries} server + {report.own_summaries} ours"


def debug_table(reports: Sequence[RunReport]) -> str:
    """Each test run of the debug session: tail seen (yes/no) and its inline tokens."""
    runs = [r for r in reports if r.session == "debug"]
    if not runs:
        return ""
    labels = [o.label for o in runs[0].outputs]
    rows = ["| window | " + " | ".join(labels) + " |", "|---|" + "---|" * len(labels)]
    for r in runs:
        cells = [f"{'tail seen' if o.tail_seen else 'tail lost'}, {_k(o.inline_tokens)} ({_k(o.real_tokens)} o200k)" for o in r.outputs]
        rows.append(f"| {window_label(r.window)}, {r.engine}{'' if r.provider == 'anthropic' else ', ' + r.provider} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def words_table(reports: Sequence[RunReport]) -> str:
    """Each compaction of a session of several requests: rules and earlier requests kept outside the summary text."""
    rows = [
        "| session | window | # | rules kept | requests kept (verbatim) | missing |",
        "|---|---|---:|---|---|---|",
    ]
    for r in reports:
        for w in r.words:
            missing = "; ".join(w.missing) or "-"
            rows.append(
                f"| {run_label(r)} | {window_label(r.window)} | {w.number} | {w.rules_kept}/{w.rules} | {w.requests_kept}/{w.requests} "
                f"({w.requests_verbatim}) | {missing} |"
            )
    return "\n".join(rows) if len(rows) > 2 else ""


def run_label(report: RunReport) -> str:
    """The session with its engine (and its provider when not Anthropic), for the tables of several runs."""
    return f"{report.session}, {report.engine}" + ("" if report.provider == "anthropic" else f", {report.provider}")
