"""What survives each compaction of a scripted session, read from the requests the server accepted.

For every summary request (its last message carries the summary preamble,
``tests.fakes.script.is_summary_request``) the next working request is the first one after the compaction. In it,
*outside the summary text* (which starts at "Summary of the earlier
conversation:" and ends at the scripted summary's last line, so a pinned block
or a kept message counts, the model's own words do not), the checks are:

* the task statement (the first user message, the CLI prompt) is present;
* every touched path (the ``path`` of every ``read_file``/``edit_file``/
  ``write_file`` call made so far) is present;
* the last error (the latest tool result that is an error or reports a
  non-zero exit code, identified by its tail marker, else its last line) is present.

A path counts as present when it appears whole or on its directory's line of
the pinned block's grouped list (``- src/shop/: cart.py (edited), tax.py (read)``).

``words_reports`` checks the user's own words the same way, for a scenario
that names them: after each compaction, every rule string given for a
request sent before it, and the request itself (verbatim, or by the opening
words the pinned block points ``recall`` to when the request was too long to
carry whole), present outside the summary text.

"So far" is everything the session had when it compacted: the working
requests before, the summary request, and the calls and results of the
request after (it is sent before any new tool runs; when the summary covers
the prefix the previous request sent, the newest round is only there).

A request in the OpenAI Responses shape (``input`` items instead of ``messages``) is read through
``as_messages``, its items grouped into the same messages and blocks: a message's text, a
``function_call`` as a ``tool_use``, a ``function_call_output`` as a ``tool_result``, a compaction item
as a ``compaction`` block (the fake renders it as the summary it stands for), reasoning items left out.

Also reported: the summary request's size and the share the prompt cache
serves, and the size of the request after the compaction. A summary request
whose next request carries no summary was not committed (a rejected summary).
"""

from __future__ import annotations

import json
import re
import statistics
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from bench.session_scripts import SUMMARY_LAST_LINE, as_json, content_text
from tests.compact.listing import names_path
from tests.fakes.script import is_summary_request

SUMMARY_OPENING = "Summary of the earlier conversation:"
PATH_TOOLS = frozenset({"read_file", "edit_file", "write_file"})
_FAILED = re.compile(r"\[(?:exit code [1-9]\d*|exit code -\d+|timed out|killed by signal)")
_MARKER = re.compile(r"BENCH-[\w-]+?-END")


@dataclass(frozen=True)
class CompactionReport:
    number: int
    summary_prompt: float
    summary_cached: float
    committed: bool
    task_kept: bool
    paths_kept: int
    paths_touched: int
    error_kept: bool | None
    """None: no error before this compaction."""
    after_prompt: float
    by_server: bool = False
    """A provider's compaction (the request after it is the reply sampled inside it), not a summary request of ours."""

    @property
    def cached_share(self) -> float:
        return self.summary_cached / self.summary_prompt if self.summary_prompt else 0.0


def as_messages(body: Mapping[str, Any]) -> Mapping[str, Any]:
    """A Responses request (``input`` items) in the Messages shape the checks read (module docstring); else ``body``."""
    items = body.get("input")
    if "messages" in body or items is None:
        return body
    messages: list[dict[str, Any]] = []

    def add(role: str, block: dict[str, Any]) -> None:
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"].append(block)
        else:
            messages.append({"role": role, "content": [block]})

    for item in [{"role": "user", "content": items}] if isinstance(items, str) else items:
        kind = item.get("type") or "message"
        if kind == "message":
            content = item.get("content")
            parts = [content] if isinstance(content, str) else [str(p.get("text", "")) for p in content or () if p.get("type") != "input_image"]
            role = "user" if item.get("role") == "user" else "assistant"
            for text in parts:
                add(role, {"type": "text", "text": text})
        elif kind == "function_call":
            try:
                arguments = json.loads(item.get("arguments") or "{}")
            except json.JSONDecodeError:
                arguments = item.get("arguments")
            add("assistant", {"type": "tool_use", "id": item.get("call_id"), "name": item.get("name"), "input": arguments})
        elif kind == "function_call_output":
            output = item.get("output")
            content = output if isinstance(output, str) else [{"type": "text", "text": str(p.get("text", ""))} for p in output or ()]
            add("user", {"type": "tool_result", "tool_use_id": item.get("call_id"), "content": content})
        elif kind == "compaction":
            add("assistant", {"type": "compaction", "content": item.get("content")})
    shaped = {k: v for k, v in body.items() if k not in ("input", "instructions")}
    return {**shaped, "system": body.get("instructions") or "", "messages": messages}


def request_strings(body: Mapping[str, Any]) -> list[str]:
    """Every text of a request's messages: text blocks, tool results, tool calls (name and input)."""
    body = as_messages(body)
    out: list[str] = []
    for message in body.get("messages", []):
        content = message.get("content")
        for block in content if isinstance(content, list) else [content]:
            if isinstance(block, str):
                out.append(block)
            elif isinstance(block, dict) and block.get("type") == "tool_result":
                out.append(content_text(block.get("content", "")))
            elif isinstance(block, dict) and block.get("type") == "tool_use":
                out.append(f"{block.get('name')} {as_json(block.get('input'))}")
            elif isinstance(block, dict):
                out.append(str(block.get("text", "")))
    return out


def outside_summary(body: Mapping[str, Any]) -> tuple[str, bool]:
    """The request's message texts with the summary text cut out, and whether a summary was there."""
    body = as_messages(body)
    kept: list[str] = []
    found = False
    for text in request_strings(body):
        start = text.find(SUMMARY_OPENING)
        if start < 0:
            kept.append(text)
            continue
        found = True
        end = text.find(SUMMARY_LAST_LINE, start)
        kept.append(text[:start] + (text[end + len(SUMMARY_LAST_LINE) :] if end >= 0 else ""))
    blocks = (b for m in body.get("messages", []) for b in (m.get("content") if isinstance(m.get("content"), list) else []))
    found = found or any(isinstance(b, dict) and b.get("type") == "compaction" for b in blocks)  # a provider's compaction
    return "\n".join(kept), found


def _working(body: Mapping[str, Any]) -> bool:
    """A request the client sent and the model answered: not a summary, not the reply sampled inside a server's
    compaction (``SERVER_ITERATION``: it sees only the server's summary; the client's next request is what every later
    turn sees)."""
    return not is_summary_request(body) and not body.get(SERVER_ITERATION)


SERVER_ITERATION = "_server_iteration"


def _error_mark(text: str) -> str:
    markers = _MARKER.findall(text)
    if markers:
        return str(markers[-1])
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else text


def compaction_reports(accepted: Sequence[Mapping[str, Any]], served: Sequence[tuple[float, float]], task: str) -> tuple[CompactionReport, ...]:
    """One report per summary request; ``served`` is each request's (prompt, cached) tokens."""
    accepted = [as_messages(body) for body in accepted]
    touched: dict[str, None] = {}
    errors: dict[str, str] = {}
    reports: list[CompactionReport] = []
    for index, body in enumerate(accepted):
        _note_history(body, touched, errors)  # a summary asked in place carries results no earlier request did
        if not is_summary_request(body):
            continue
        following = next((i for i in range(index + 1, len(accepted)) if _working(accepted[i])), None)
        prompt, cached = served[index]
        if following is None:
            reports.append(CompactionReport(len(reports) + 1, prompt, cached, False, False, 0, len(touched), None, 0.0))
            continue
        _note_history(body, touched, errors)
        _note_history(accepted[following], touched, errors)
        outside, committed = outside_summary(accepted[following])
        last_error = _error_mark(next(reversed(errors.values()))) if errors else None
        reports.append(
            CompactionReport(
                len(reports) + 1,
                prompt,
                cached,
                committed,
                task in outside,
                sum(path_kept(outside, path) for path in touched),
                len(touched),
                None if last_error is None else last_error in outside,
                served[following][0],
                bool(index + 1 < len(accepted) and accepted[index + 1].get(SERVER_ITERATION)),
            )
        )
    return tuple(reports)


def path_kept(outside: str, path: str) -> bool:
    """Whether ``path`` is present whole or on its directory's line of the grouped file list."""
    return path in outside or names_path(outside, path.removeprefix("./"))


@dataclass(frozen=True)
class WordsReport:
    """The user's words after one compaction: rules and earlier requests present outside the summary text."""

    number: int
    rules_kept: int
    rules: int
    requests_kept: int
    requests_verbatim: int
    requests: int
    missing: tuple[str, ...]
    """The rules and requests (their first 60 characters) not found."""

    @property
    def complete(self) -> bool:
        return self.rules_kept == self.rules and self.requests_kept == self.requests


def words_kept(body: Mapping[str, Any], requests: Sequence[tuple[str, Sequence[str]]], number: int = 0) -> WordsReport:
    """Whether each request in ``requests`` ((text, the rules it states)) and each of its rules is outside the summary of ``body``.

    A request is kept verbatim, or by its opening words (up to the first
    quote, their first 24 characters, as the pinned block quotes them for
    ``recall``) when it was too long to carry whole; a rule only verbatim.
    """
    outside, _ = outside_summary(body)
    missing: list[str] = []
    rules = [rule for _, stated in requests for rule in stated]
    rules_kept = 0
    for rule in rules:
        if rule in outside:
            rules_kept += 1
        else:
            missing.append(f"rule: {rule[:60]}")
    verbatim = kept = 0
    for text, _ in requests:
        opening = text.strip().splitlines()[0].split('"')[0].strip()[:24] if text.strip() else ""
        if text in outside:
            verbatim += 1
            kept += 1
        elif opening and f'"{opening}' in outside:
            kept += 1
        else:
            missing.append(f"request: {text[:60]}")
    return WordsReport(number, rules_kept, len(rules), kept, verbatim, len(requests), tuple(missing))


def words_reports(accepted: Sequence[Mapping[str, Any]], requests: Sequence[tuple[str, Sequence[str]]]) -> tuple[WordsReport, ...]:
    """``words_kept`` after every committed compaction, for the requests sent before it (found in the requests so far)."""
    accepted = [as_messages(body) for body in accepted]
    reports: list[WordsReport] = []
    seen: set[int] = set()
    for index, body in enumerate(accepted):
        texts = "\n".join(request_strings(body))
        seen.update(i for i, (text, _) in enumerate(requests) if text[:200] in texts)
        if not is_summary_request(body):
            continue
        following = next((i for i in range(index + 1, len(accepted)) if _working(accepted[i])), None)
        if following is None or not outside_summary(accepted[following])[1]:
            continue
        earlier = [requests[i] for i in sorted(seen)]
        reports.append(words_kept(accepted[following], earlier, len(reports) + 1))
    return tuple(reports)


def _note_history(body: Mapping[str, Any], touched: dict[str, None], errors: dict[str, str]) -> None:
    """Paths of file tool calls and failed results, in the order they first appear."""
    for message in body.get("messages", []):
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use" and block.get("name") in PATH_TOOLS:
                path = (block.get("input") or {}).get("path")
                if isinstance(path, str):
                    touched.setdefault(path, None)
            elif block.get("type") == "tool_result" and str(block.get("tool_use_id")) not in errors:
                text = content_text(block.get("content", ""))
                if block.get("is_error") or _FAILED.search(text[:400]) or _FAILED.search(text[-400:]):
                    errors[str(block.get("tool_use_id"))] = text


def _share(kept: int, total: int) -> str:
    return f"{kept}/{total}"


def compaction_table(runs: Sequence[tuple[str, int, Sequence[CompactionReport]]]) -> str:
    """One row per compaction of every run, then one line per run with the totals."""
    rows = [
        "| session | window | # | summary request (cached) | committed | task kept | paths kept | last error kept | request after |",
        "|---|---|---:|---|---|---|---|---|---:|",
    ]
    for session, window, reports in runs:
        for r in reports:
            error = "-" if r.error_kept is None else ("yes" if r.error_kept else "no")
            rows.append(
                f"| {session} | {window // 1000}k | {r.number} | {r.summary_prompt / 1000:.1f}k ({r.cached_share:.0%}) | "
                f"{'yes' if r.committed else 'no'}{' (server)' if r.by_server else ''} | {'yes' if r.task_kept else 'no'} | "
                f"{_share(r.paths_kept, r.paths_touched)} | {error} | {r.after_prompt / 1000:.1f}k |"
            )
    return "\n".join(rows)


def run_table(runs: Sequence[tuple[str, int, Sequence[CompactionReport]]]) -> str:
    """One line per run that compacted: how many of its compactions kept each thing, medians of the sizes."""
    rows = [
        "| session | window | compactions (committed) | task kept | every path kept | last error kept "
        "| summary requests cached, median (min) | request after, median |",
        "|---|---|---|---|---|---|---|---:|",
    ]
    for session, window, reports in runs:
        if not reports:
            continue
        committed = [r for r in reports if r.committed]
        errors = [r for r in committed if r.error_kept is not None]
        shares = [r.cached_share for r in reports]
        after = statistics.median(r.after_prompt for r in committed) / 1000 if committed else 0.0
        rows.append(
            f"| {session} | {window // 1000}k | {len(reports)} ({len(committed)}) | {_share(sum(r.task_kept for r in committed), len(committed))} | "
            f"{_share(sum(r.paths_kept == r.paths_touched for r in committed), len(committed))} | "
            f"{_share(sum(bool(r.error_kept) for r in errors), len(errors)) if errors else '-'} | "
            f"{statistics.median(shares):.0%} ({min(shares):.0%}) | {after:.1f}k |"
        )
    return "\n".join(rows)


def compaction_totals(runs: Sequence[tuple[str, int, Sequence[CompactionReport]]]) -> str:
    """All compactions at once: how many kept the task, every path, the last error; summary requests cached."""
    reports = [r for _, _, rs in runs for r in rs]
    if not reports:
        return "No compaction."
    committed = [r for r in reports if r.committed]
    errors = [r for r in committed if r.error_kept is not None]
    shares = [r.cached_share for r in reports]
    return (
        f"{len(reports)} summary requests, {len(committed)} committed; after them the task statement in "
        f"{sum(r.task_kept for r in committed)}/{len(committed)}, every touched path in "
        f"{sum(r.paths_kept == r.paths_touched for r in committed)}/{len(committed)}, the last error in "
        f"{sum(bool(r.error_kept) for r in errors)}/{len(errors)}; summary requests cached: median "
        f"{statistics.median(shares):.0%}, min {min(shares):.0%}."
    )
