"""What long sessions cost, and whether the model sees the end of long outputs.

``python bench/bench_session_cost.py [--quick] [--sessions debug,explore,small] [--windows 200000,60000,32000]
[--engines pipeline,native] [--providers anthropic,openai]``

Plays scripted sessions through the real CLI (headless, ``--context-window``)
against the wire-level fake Anthropic server, or the fake OpenAI Responses
endpoint (``--providers openai``: the table's default OpenAI model, priced from
its row: ``server_views.table_prices``), which enforces the window (a prompt
over it is a 400), and prints one markdown table per run:

* **debug**: the model runs a test suite (a real script in a temp workspace)
  whose output is ~270 KB of PASSED lines with the failures and a traceback in
  its last 2 KB, then reads two files and edits one, and again, 5 times.
* **explore**: the model reads 40 generated files of 10-60 KB, paging each one
  as far as the result's offset hint takes it (at most 20 pages).
* **small**: 200 small tool results (reads, a command, a glob).
* **multi**: three user requests in one session (stream-json lines on stdin, each
  its own run): a pasted 4 KB ticket with its two rules in the middle, a
  follow-up stating a third rule, a last request; each reads 8 modules of
  20 KB, greps, runs the tests and edits (the last writes NOTES.md).

The model is a script (``bench/session_scripts.py``): it issues its calls in
order whatever it sees (only the paging in *explore* follows the hint a read
returns). A summary request (Layer 2: its last message carries the summary preamble) is answered
with a plausible summary made of the script's own log, so it never carries a
marker. Each step's text is a fixed sentence of prose, as a model's would be.

Reported per run: requests the server accepted, summaries, 400s, input tokens
billed with the cached share, the peak prompt, output tokens and an estimated
cost at Sonnet prices (cached read $0.30/M, uncached input $3.75/M: cache
writes count as uncached, output $15/M), and the cached share of the summary
requests' input. For every long output (a test run,
a file): whether its tail reached the model, i.e. the unique marker on its
last line appears in the messages of a later request that is not a summary
(what the working model reads), whether it was
already in the first result the model got for it (a file read whole in one
call), how many calls it took, and its inline cost: the tokens of its tool
result(s) as first sent.

On OpenAI the requests are read as the fake rendered them (from the latest
compaction item on, that item as the summary it carries) in the Messages shape
(``compaction_checks.as_messages``), and cached by OpenAI's automatic prefix
caching (``tests/fakes/prompt_cache.py::OpenAIPromptCache``: no markers, the
longest prefix shared with an earlier prompt, in 128-token steps past 1,024).

Token counts are estimates: UTF-8 bytes / 3.5 of each prompt block's JSON
(the project's own estimate ratio). The cache is simulated from the requests
as Anthropic's prompt cache serves them (``tests/fakes/prompt_cache.py``, the
rule the fake server also reports usage by): prefixes written at the cache
markers, read back at most 20 blocks before a marker, and the message blocks
cached under the request's ``tool_choice``, so a request that changes it reads
only tools and system from the cache. In an append-only conversation this is
the common prefix with the previous request; a change in the middle (an
offload, a summary) loses the cache from that point on.

A second table reports every compaction (``bench/compaction_checks.py``):
whether the task statement, every touched path and the last error are in the
next request outside the summary text, the summary request's cached share,
and the size of the request after it; for a session of several requests, whether each
rule and each request sent so far is there too (``compaction_checks.words_reports``: a
request verbatim, or by the opening words the pinned block quotes for ``recall``).

Prefix reuse: for every request between compactions (not the first request, a
summary request or the first request after one), the share of the previous
request's prompt that it read from the cache: 1.0 for an append-only
conversation; a shrink batch or a clearing shows as a drop (counted as a break
under half).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.compaction_checks import (  # noqa: E402
    as_messages,
    WordsReport,
    compaction_reports,
    compaction_table,
    compaction_totals,
    run_table,
    words_reports,
)
from bench.server_views import CACHE_MIN_TOKENS, OPENAI_MODEL, SONNET, Prices, ServerView, openai_view, server_view, table_prices  # noqa: E402
from bench.session_report import (
    BREAK_SHARE,
    OutputReport,
    RequestRow,
    RunReport,
    debug_table,
    requests_table,
    summary_table,
    window_label,
    words_table,
    run_label,
)  # noqa: E402
from bench.session_scripts import FULL, QUICK, SESSIONS, ScriptedModel, Size, as_json, content_text, tokens  # noqa: E402
from pseudoclaude.compact.tokenizer import load_offline_encoding  # noqa: E402
from tests.fakes.anthropic_server import FakeAnthropicServer  # noqa: E402
from tests.fakes.openai_server import FakeOpenAIServer  # noqa: E402
from tests.fakes.prompt_cache import PromptCache as SharedPromptCache  # noqa: E402
from tests.fakes.script import is_summary_request  # noqa: E402

WINDOWS = (200_000, 60_000, 32_000)


# ---------------------------------------------------------------- prompt cache


def PromptCache() -> SharedPromptCache:  # noqa: N802 - the benchmark's cache: its own token estimate
    """Anthropic's prompt cache (``tests/fakes/prompt_cache.py``) counting tokens as the benchmark does."""
    return SharedPromptCache(tokens=tokens, min_tokens=CACHE_MIN_TOKENS)


def real_tokens(text: str) -> int:
    """``text`` counted by o200k (a real tokenizer, loaded offline), 0 when it cannot be loaded."""
    encoding = load_offline_encoding("gpt-4o")
    return len(encoding.encode_ordinary(text)) if encoding is not None and text else 0


# ---------------------------------------------------------------- the user's words


def user_words_kept(accepted: Sequence[Mapping[str, Any]], requests: Sequence[str], rules: Sequence[str]) -> tuple[WordsReport, ...]:
    """After every compaction, each rule and each request sent so far present outside the summary text (``words_reports``)."""
    return words_reports(accepted, [(request, tuple(rule for rule in rules if rule in request)) for request in requests])


def prefix_reuse(accepted: Sequence[Mapping[str, Any]], served: Sequence[tuple[float, float]]) -> tuple[float, ...]:
    """For every request between compactions, the share of the previous request's prompt it read from the cache."""
    return tuple(
        min(1.0, hit / served[i - 1][0])
        for i, (body, (_, hit)) in enumerate(zip(accepted, served))
        if i > 0 and served[i - 1][0] and not is_summary_request(body) and not is_summary_request(accepted[i - 1])
    )


# ---------------------------------------------------------------- one run


def analyse(
    session: str,
    window: int,
    model: ScriptedModel,
    accepted: Sequence[Mapping[str, Any]],
    rejections: int,
    exit_code: int = 0,
    seconds: float = 0.0,
    server: ServerView | None = None,
    engine: str = "pipeline",
    provider: str = "anthropic",
    prices: Prices = SONNET,
) -> RunReport:
    """The report of one run from the requests the server accepted (in order) and the model's own record.

    ``server``: what the model saw under the native engine (the server's edits applied, each compaction a request
    of its own); None: the requests as sent."""
    if server is not None:
        accepted = server.bodies
    cache = PromptCache()
    replay = iter(server.served) if server is not None and server.served is not None else None
    billed = cached = peak = summary_input = summary_cached = 0.0
    first_sent: dict[str, str] = {}
    first_text: dict[str, str] = {}
    seen_texts: list[str] = []
    served: list[tuple[float, float]] = []
    for body in accepted:
        prompt, hit = next(replay) if replay is not None else cache.serve(body)
        served.append((prompt, hit))
        billed, cached, peak = billed + prompt, cached + hit, max(peak, prompt)
        if is_summary_request(body):
            summary_input, summary_cached = summary_input + prompt, summary_cached + hit
            continue
        seen_texts.append(json.dumps(body.get("messages", []), ensure_ascii=False))
        for message in body.get("messages", []):
            for block in message.get("content") if isinstance(message.get("content"), list) else []:
                if block.get("type") == "tool_result" and block.get("tool_use_id") not in first_sent:
                    first_sent[block["tool_use_id"]] = as_json(block.get("content", ""))
                    first_text[block["tool_use_id"]] = content_text(block.get("content", ""))
    outputs = tuple(
        OutputReport(
            out.label,
            any(out.marker in text for text in seen_texts),
            bool(out.call_ids) and out.marker in first_sent.get(out.call_ids[0], ""),
            sum(tokens(first_sent.get(i, "")) for i in out.call_ids),
            len(out.call_ids),
            sum(real_tokens(first_text.get(i, "")) for i in out.call_ids),
        )
        for out in model.outputs
    )
    words = user_words_kept(accepted, model.requests, model.RULES) if model.requests else ()
    summaries = model.summaries + (server.compactions if server is not None else 0)
    output = model.output_tokens + (server.summary_output if server is not None else 0.0)
    log = server.output_log if server is not None else model.output_log
    return RunReport(
        session,
        window,
        len(accepted),
        summaries,
        rejections,
        billed,
        cached,
        peak,
        output,
        outputs,
        exit_code,
        seconds,
        compaction_reports(accepted, served, model.task),
        summary_input,
        summary_cached,
        prefix_reuse(accepted, served),
        words,
        request_rows(accepted, served, log, prices),
        engine,
        provider,
        prices,
        model.summaries,
    )


def request_rows(
    accepted: Sequence[Mapping[str, Any]], served: Sequence[tuple[float, float]], outputs: Sequence[float], prices: Prices = SONNET
) -> tuple[RequestRow, ...]:
    """Each request's kind (``summary``, ``after`` a summary, ``break`` under ``BREAK_SHARE`` reuse, ``grow``), size, cache hit."""
    rows: list[RequestRow] = []
    for i, (body, (prompt, hit)) in enumerate(zip(accepted, served)):
        if is_summary_request(body):
            kind = "summary"
        elif i and is_summary_request(accepted[i - 1]):
            kind = "after"
        elif i and served[i - 1][0] and hit / served[i - 1][0] < BREAK_SHARE:
            kind = "break"
        else:
            kind = "grow"
        rows.append(RequestRow(kind, prompt, hit, outputs[i] if i < len(outputs) else 0.0, prices))
    return tuple(rows)


def run_session(
    session: str, window: int, size: Size, engine: str = "pipeline", model_name: str = "claude-sonnet-4-5", provider: str = "anthropic"
) -> RunReport:
    """Play ``session`` through the CLI at ``window`` against the fake server of ``provider`` (Anthropic's, or
    OpenAI's Responses endpoint) enforcing that window, ``--context-engine engine`` on ``model_name``."""
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        model = SESSIONS[session](ws, size)
        env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
        env.update(
            PSEUDOCLAUDE_MODEL=model_name,
            PSEUDOCLAUDE_HOME=str(Path(tmp) / "home"),
            PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p),
        )
        if provider == "openai":
            with FakeOpenAIServer(lambda body: model(as_messages(body)), context_window=window, summarize=lambda seen: model.summary()) as openai:
                env.update(OPENAI_API_KEY="bench", OPENAI_BASE_URL=openai.url, PSEUDOCLAUDE_OPENAI_API="responses")  # the fake plays OpenAI itself
                proc, seconds = _play(model, ws, env, window, engine)
                accepted, rejections = [as_messages(body) for body in openai.accepted], len(openai.rejections)
                native = any("context_management" in body for body in accepted)
                view: ServerView | None = openai_view(openai.applied, model.output_log)
        else:
            with FakeAnthropicServer(model, context_window=window) as server:
                env.update(ANTHROPIC_API_KEY="bench", ANTHROPIC_BASE_URL=server.url)
                proc, seconds = _play(model, ws, env, window, engine)
                accepted, rejections = list(server.cursor.requests), len(server.rejections)
                native = any("context_management" in body for body in accepted)
                view = server_view(server.applied, model.output_log) if native else None
    if proc.returncode != 0:
        print(f"warning: {session} at {window}: exit {proc.returncode}: {proc.stderr[-500:]}", file=sys.stderr)
    ran = engine if engine == "pipeline" or native else f"{engine}: pipeline"
    prices = table_prices(model_name) if provider == "openai" else SONNET
    return analyse(session, window, model, accepted, rejections, proc.returncode, seconds, view, ran, provider, prices)


def _play(model: ScriptedModel, ws: Path, env: Mapping[str, str], window: int, engine: str) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run the CLI headless on the session's task (or its requests as stream-json lines); the process and its seconds."""
    started = time.monotonic()
    if model.requests:
        prompt = ["--input-format", "stream-json"]
        stdin = "".join(json.dumps({"type": "user", "message": {"role": "user", "content": r}}) + "\n" for r in model.requests)
    else:
        prompt, stdin = ["-p", model.task], None
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pseudoclaude",
            *prompt,
            "--output-format",
            "stream-json",
            "--permission-mode",
            "bypass",
            "--context-window",
            str(window),
            "--max-turns",
            "2000",
            "--context-engine",
            engine,
        ],
        cwd=ws,
        env=dict(env),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    return proc, time.monotonic() - started


# ---------------------------------------------------------------- tables


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer turns (2 test runs, 8 files, 30 small results)")
    parser.add_argument("--sessions", default="debug,explore,small,multi")
    parser.add_argument("--windows", default=",".join(str(w) for w in WINDOWS))
    parser.add_argument("--requests", action="store_true", help="also print every request of every run and the cost by kind")
    parser.add_argument("--engines", default="pipeline", help="context engines to run each scenario under: pipeline,native")
    parser.add_argument("--providers", default="anthropic", help="fake servers to run against: anthropic,openai")
    parser.add_argument("--model", default="claude-sonnet-4-5", help="the Anthropic model id the CLI is given (native needs one with server-side compaction)")
    parser.add_argument("--openai-model", default=OPENAI_MODEL, help="the OpenAI model id (a Responses model; priced from the model table)")
    args = parser.parse_args(argv)
    size = QUICK if args.quick else FULL
    reports: list[RunReport] = []
    for provider in args.providers.split(","):
        model_name = args.openai_model if provider == "openai" else args.model
        for session in args.sessions.split(","):
            for window in (int(w) for w in args.windows.split(",")):
                for engine in args.engines.split(","):
                    reports.append(run_session(session, window, size, engine, model_name, provider))
                    print(f"  {provider} {session} at {window_label(window)} ({engine}): {reports[-1].seconds:.0f}s", file=sys.stderr)
    for provider in dict.fromkeys(r.provider for r in reports):
        chosen = [r for r in reports if r.provider == provider]
        if len(reports) > len(chosen):
            p = chosen[0].prices
            print(f"\n{provider} (cached ${p.cached:.2f}/M, uncached ${p.uncached:.2f}/M, output ${p.output:.2f}/M):\n")
        print(summary_table(chosen))
    if args.requests:
        for report in reports:
            print()
            print(requests_table(report))
    details = debug_table(reports)
    if details:
        print("\nDebug session, each test run (tail seen by the model, inline tokens as first sent: bytes / 3.5, and o200k's count):\n")
        print(details)
    words = words_table(reports)
    if words:
        print("\nThe user's words after each compaction (rules and earlier requests present outside the summary text):\n")
        print(words)
    runs = [(run_label(r), r.window, r.compactions) for r in reports]
    print("\nEvery compaction (kept: present in the next request outside the summary text):\n")
    print(compaction_totals(runs))
    if any(r.compactions for r in reports):
        print()
        print(run_table(runs))
        print("\nEach compaction:\n")
        print(compaction_table(runs))


if __name__ == "__main__":
    main()
