"""Slash commands and message preparation, through the REPL object without a terminal."""

from __future__ import annotations

import asyncio
import io
import re
from pathlib import Path

from rich.console import Console

from pseudoclaude.config import Flags, load_settings
from pseudoclaude.tui.slash import dispatch, suggest
from pseudoclaude.tui.prompt_text import build_prompt, mentioned_files, shell_context
from pseudoclaude.tui.repl import Repl


def make_repl(tmp_path: Path) -> Repl:
    settings = load_settings(tmp_path, Flags(), environ={"ANTHROPIC_API_KEY": "k", "PSEUDOCLAUDE_HOME": str(tmp_path / "home")})
    return Repl(settings, Console(file=io.StringIO(), width=100, color_system=None))


def output(repl: Repl) -> str:
    return repl.console.file.getvalue()  # type: ignore[attr-defined]


def test_an_unknown_command_gets_a_suggestion_not_a_traceback(tmp_path: Path) -> None:
    repl = make_repl(tmp_path)
    assert asyncio.run(dispatch(repl, "/compcat now")) is False
    assert output(repl).strip() == "Unknown command /compcat. Did you mean /compact?"
    assert suggest("/quit") == "/exit"


def test_exit_ends_the_loop_and_help_lists_every_command(tmp_path: Path) -> None:
    repl = make_repl(tmp_path)
    assert asyncio.run(dispatch(repl, "/exit")) is True
    asyncio.run(dispatch(repl, "/help"))
    for name in ("/compact", "/clear", "/resume", "/model", "/context", "/cost", "/permissions", "Shift+Tab"):
        assert name in output(repl)


def test_permissions_switches_the_mode_and_refuses_unknown_ones(tmp_path: Path) -> None:
    repl = make_repl(tmp_path)
    asyncio.run(dispatch(repl, "/permissions plan"))
    assert repl.status.mode == "plan" and repl.settings.permission_mode == "plan"
    asyncio.run(dispatch(repl, "/permissions sideways"))
    assert "unknown mode 'sideways'" in output(repl) and repl.status.mode == "plan"
    repl.cycle_mode()
    assert repl.status.mode == "default"


def test_model_refuses_a_model_of_a_provider_without_its_key(tmp_path: Path) -> None:
    repl = make_repl(tmp_path)
    before = repl.settings.model
    asyncio.run(dispatch(repl, "/model gpt-4o"))
    assert "served by openai" in output(repl) and "OPENAI_API_KEY" in output(repl) and repl.settings.model == before
    asyncio.run(dispatch(repl, "/model claude-opus-4-1"))
    assert repl.settings.model == "claude-opus-4-1" and repl.status.model == "claude-opus-4-1"


def test_mentions_of_workspace_files_become_references(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("print(1)\n")
    text = "Look at @src/app.py, not @missing.py or @../outside.txt"
    (tmp_path.parent / "outside.txt").write_text("x")
    assert mentioned_files(text, tmp_path) == ["src/app.py"]
    prompt = build_prompt(text, tmp_path, [shell_context("ls", "app.py\n[exit code 0]")], page_bytes=64_000)
    assert prompt.startswith("I ran this shell command myself:\n$ ls\n```\napp.py")
    assert prompt.endswith('Files the user attached (current content):\n<file path="src/app.py" bytes="9">\nprint(1)\n</file>')


def test_context_and_cost_describe_a_built_agent(tmp_path: Path) -> None:
    repl = make_repl(tmp_path)

    async def go() -> None:
        assert await repl.open_agent()
        try:
            await dispatch(repl, "/context")
            await dispatch(repl, "/cost")
        finally:
            await repl.close_agent()

    asyncio.run(go())
    text = output(repl)
    for label in ("system prompt", "tools", "messages", "offloaded", "estimated total", "auto-compaction at"):
        assert label in text
    assert re.search(r"estimated total +[\d,]+ +tokens = [\d.]+% of [\d,]+", text)
    assert f"Tokens this session: 0 in, 0 out · estimated cost $0.0000 ({repl.settings.model})" in text


def test_resume_with_an_unknown_id_keeps_the_current_state(tmp_path: Path) -> None:
    repl = make_repl(tmp_path)
    asyncio.run(dispatch(repl, "/resume 1999"))
    assert "no session '1999'" in output(repl) and repl.agent is None


def test_memory_saves_a_fact_and_lists_the_files(tmp_path: Path) -> None:
    repl = make_repl(tmp_path)

    async def go() -> None:
        await dispatch(repl, "/memory the tests run with pytest -q")
        await dispatch(repl, "/memory")
        await repl.close_agent()

    asyncio.run(go())
    text = output(repl)
    assert "Remembered in" in text
    project = [line for line in text.splitlines() if line.startswith("project")]
    assert project and "empty" not in project[0]
    memory_files = list((tmp_path / "home" / "projects").rglob("MEMORY.md"))
    assert len(memory_files) == 1 and "- the tests run with pytest -q" in memory_files[0].read_text()


def test_a_malformed_settings_file_is_one_line_and_the_repl_goes_on(tmp_path: Path) -> None:
    settings_file = tmp_path / ".pseudoclaude" / "settings.json"
    settings_file.parent.mkdir()
    settings_file.write_text('{"permissions": {"deny": ["run_command(rm -rf"]}}')
    repl = make_repl(tmp_path)
    repl.console.width = 400
    assert asyncio.run(repl.open_agent()) is False and repl.agent is None
    lines = output(repl).strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("✗ ") and str(settings_file) in lines[0], lines
    assert not list((tmp_path / "home").rglob("session.jsonl"))
