"""What ``/compact`` and ``/context`` report, through the REPL (no terminal) against the wire-level fake server."""

from __future__ import annotations

import asyncio
import io
import re
from pathlib import Path

from rich.console import Console

from pseudoclaude.config import Flags, load_settings
from pseudoclaude.llm.messages import Message
from pseudoclaude.session import create_session
from pseudoclaude.tui.repl import Repl
from pseudoclaude.tui.slash import dispatch
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.script import Reply


def make_repl(tmp_path: Path, url: str = "http://127.0.0.1:9") -> Repl:
    env = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": url, "PSEUDOCLAUDE_HOME": str(tmp_path / "home")}
    return Repl(load_settings(tmp_path, Flags(), environ=env), Console(file=io.StringIO(), width=200, color_system=None))


def record(repl: Repl) -> None:
    settings = repl.settings
    with create_session(settings.sessions_dir, settings.workspace, model=settings.model, provider=settings.provider) as session:
        for n in range(12):
            session.append_message(Message.user(f"question {n}: " + "words " * 400))
            session.append_message(Message.assistant(f"answer {n}: " + "more words " * 400))


def run(repl: Repl, line: str) -> list[str]:
    async def go() -> None:
        assert await repl.open_agent(continue_latest=True)
        try:
            await dispatch(repl, line)
        finally:
            await repl.close_agent()

    asyncio.run(go())
    return [line.rstrip() for line in repl.console.file.getvalue().splitlines() if line.strip()]  # type: ignore[attr-defined]


def test_compact_reports_once_on_one_line_with_one_number_format(tmp_path: Path) -> None:
    with FakeAnthropicServer([Reply(text="<summary>1. Primary request: answer questions.\n9. Next step: none.</summary>")]) as server:
        repl = make_repl(tmp_path, server.url)
        record(repl)
        lines = run(repl, "/compact")
    assert server.rejections == [] and len(server.requests) == 1
    reports = [line for line in lines if line.startswith("⟳")]
    assert len(reports) == 1, lines
    assert re.fullmatch(r"⟳ Context: [\d,]+ → [\d,]+ tokens \(\d+% → \d+% of [\d,]+\)", reports[0]), reports
    assert not re.search(r"\d{4}", reports[0].replace(",", ",_")), "every number of 1,000 or more has its thousands separator"


def offloaded_line(offloaded_bytes: int, offloaded_results: int) -> str:
    from pseudoclaude.agent import ContextBreakdown
    from pseudoclaude.tui.context_view import render_context

    console = Console(file=io.StringIO(), width=200, color_system=None)
    breakdown = ContextBreakdown(
        system_tokens=3_000,
        tools_tokens=2_000,
        message_tokens=10_000,
        messages=12,
        estimated_tokens=15_000,
        context_window=200_000,
        auto_threshold=150_000,
        offloaded_results=offloaded_results,
        offloaded_bytes=offloaded_bytes,
        estimator="tiktoken",
    )
    render_context(console, breakdown)
    [line] = [line for line in console.file.getvalue().splitlines() if line.startswith("offloaded")]  # type: ignore[attr-defined]
    return " ".join(line.split())


def test_context_says_what_was_offloaded_without_a_zero_count() -> None:
    assert offloaded_line(127_251, 0) == "offloaded 127,251 bytes of full tool output saved on disk"
    assert offloaded_line(127_251, 2) == (
        "offloaded 127,251 bytes of full tool output saved on disk; 2 tool results in the context replaced by previews naming their files"
    )
    assert offloaded_line(900, 1).endswith("; 1 tool result in the context replaced by a preview naming its file")
    assert offloaded_line(0, 0) == "offloaded 0 bytes: nothing offloaded yet"


def test_an_overload_that_outlasts_the_retries_ends_with_one_line_of_advice(tmp_path: Path) -> None:
    from tests.fakes.script import HttpError

    with FakeAnthropicServer([HttpError(529, "overloaded", "Overloaded", retry_after=0)] * 5) as server:
        repl = make_repl(tmp_path, server.url)

        async def go() -> None:
            assert await repl.open_agent()
            try:
                await repl.send("hello")
            finally:
                await repl.close_agent()

        asyncio.run(go())
    assert len(server.requests) == 5
    lines = [line.rstrip() for line in repl.console.file.getvalue().splitlines()]  # type: ignore[attr-defined]
    error = next(n for n, line in enumerate(lines) if line.startswith("✗ Overloaded"))
    assert lines[error + 1] == "  The provider stayed overloaded through every retry: send your message again in a minute, or switch model with /model."
