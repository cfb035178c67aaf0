"""Which context engine runs, as ``/context`` and the status say it, through a built agent against the fake server."""

from __future__ import annotations

import asyncio
from io import StringIO
from pathlib import Path

from rich.console import Console

from pseudoclaude.agent.build import build_agent
from pseudoclaude.agent.native import AUTO_PICKS_NATIVE
from pseudoclaude.config import Flags, load_settings
from pseudoclaude.tui.context_view import render_context
from tests.agent.test_facade import drain
from tests.e2e.support import KEYS, fake_server
from tests.fakes.script import Reply


def _views(tmp_path: Path, model: str, engine: str, **server: object) -> tuple[str, str, str]:
    (tmp_path / "ws").mkdir(exist_ok=True)
    with fake_server("anthropic", [Reply(text="hi"), Reply(text="again")], **server) as fake:

        async def go() -> tuple[str, str, str]:
            env = {"ANTHROPIC_API_KEY": KEYS["anthropic"], "ANTHROPIC_BASE_URL": fake.url, "PSEUDOCLAUDE_HOME": str(tmp_path / "home")}
            agent = build_agent(load_settings(tmp_path / "ws", Flags(model=model, context_engine=engine), environ=env))
            try:
                before = agent.status().context_engine
                await drain(agent.run("hello"))
                console = Console(file=StringIO(), width=200)
                render_context(console, agent.context_breakdown())
                return before, agent.status().context_engine, console.file.getvalue()  # type: ignore[attr-defined]
            finally:
                await agent.aclose()

        return asyncio.run(go())


def test_the_views_say_the_native_engine_runs_on_a_model_that_compacts(tmp_path: Path) -> None:
    before, after, context = _views(tmp_path, "claude-sonnet-4-6", "native")
    assert before.startswith("native") and after.startswith("native") and "context engine" in context and "native" in context


def test_the_views_say_the_pipeline_runs_where_the_model_has_no_compaction(tmp_path: Path) -> None:
    _, after, _ = _views(tmp_path, "claude-3-5-sonnet-latest", "native")
    assert after.startswith("pipeline") and "no server-side compaction" in after


def test_after_a_refusal_the_views_say_the_pipeline_took_over(tmp_path: Path) -> None:
    before, after, _ = _views(tmp_path, "claude-sonnet-4-6", "native", refuse_context_management=True)
    assert before.startswith("native") and after.startswith("pipeline (the provider refused")


def test_auto_picks_by_its_measured_rule(tmp_path: Path) -> None:
    _, after, _ = _views(tmp_path, "claude-sonnet-4-6", "auto")
    assert after.startswith("native") if AUTO_PICKS_NATIVE else after == "pipeline (auto)"
