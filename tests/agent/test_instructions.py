"""Instruction files: hierarchy, imports, and their place in the stable system prompt."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pseudoclaude.agent.build import build_agent
from pseudoclaude.agent.context import CompactionEngine
from pseudoclaude.agent.instructions import (
    INIT_PROMPT,
    MAX_IMPORT_DEPTH,
    load_instructions,
    repository_root,
)
from pseudoclaude.agent.prompt import stable_system_prompt
from pseudoclaude.agent import RunConfig, Runner
from pseudoclaude.compact import ContextState
from pseudoclaude.config import Settings, load_settings
from pseudoclaude.llm.messages import Message
from pseudoclaude.tools.base import ToolContext
from tests.agent.tools import EchoTool
from tests.fakes.script import Reply
from tests.fakes.scripted import ScriptedProvider


def make_repo(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(home, repo root, workspace two folders below it)."""
    home, repo = tmp_path / "home", tmp_path / "repo"
    workspace = repo / "packages" / "app"
    (repo / ".git").mkdir(parents=True)
    workspace.mkdir(parents=True)
    home.mkdir()
    return home, repo, workspace


def test_files_load_from_user_level_then_root_down_to_the_workspace_then_local(tmp_path: Path) -> None:
    home, repo, workspace = make_repo(tmp_path)
    (home / "PSEUDOCLAUDE.md").write_text("USER RULE")
    (repo / "AGENTS.md").write_text("ROOT AGENTS RULE")
    (repo / "PSEUDOCLAUDE.md").write_text("ROOT RULE")
    (repo / "packages" / "CLAUDE.md").write_text("PACKAGES RULE")
    (workspace / "PSEUDOCLAUDE.md").write_text("APP RULE")
    (workspace / "PSEUDOCLAUDE.local.md").write_text("LOCAL RULE")
    loaded = load_instructions(workspace, home)
    order = ["USER RULE", "ROOT RULE", "ROOT AGENTS RULE", "PACKAGES RULE", "APP RULE", "LOCAL RULE"]
    positions = [loaded.text.index(rule) for rule in order]
    assert positions == sorted(positions)
    assert [(f.path.name, f.scope) for f in loaded.files] == [
        ("PSEUDOCLAUDE.md", "user"),
        ("PSEUDOCLAUDE.md", "project"),
        ("AGENTS.md", "project"),
        ("CLAUDE.md", "project"),
        ("PSEUDOCLAUDE.md", "project"),
        ("PSEUDOCLAUDE.local.md", "local"),
    ]
    assert loaded.files[0].size == len("USER RULE") and loaded.problems == ()


def test_without_git_the_workspace_is_the_root(tmp_path: Path) -> None:
    workspace = tmp_path / "plain" / "ws"
    workspace.mkdir(parents=True)
    (tmp_path / "plain" / "PSEUDOCLAUDE.md").write_text("ABOVE THE WORKSPACE")
    (workspace / "AGENTS.md").write_text("IN THE WORKSPACE")
    assert repository_root(workspace) == workspace.resolve()
    text = load_instructions(workspace, tmp_path / "nohome").text
    assert "IN THE WORKSPACE" in text and "ABOVE THE WORKSPACE" not in text


def test_no_files_means_no_text(tmp_path: Path) -> None:
    home, _repo, workspace = make_repo(tmp_path)
    assert load_instructions(workspace, home).text == ""


def test_import_lines_are_replaced_by_the_file_relative_to_the_importer(tmp_path: Path) -> None:
    home, repo, workspace = make_repo(tmp_path)
    (repo / "docs").mkdir()
    (repo / "docs" / "style.md").write_text("Use tabs.\n@nested/deep.md\n")
    (repo / "docs" / "nested").mkdir()
    (repo / "docs" / "nested" / "deep.md").write_text("Deep rule.")
    (repo / "PSEUDOCLAUDE.md").write_text("Before.\n@docs/style.md\nAfter.\n```\n@docs/not-an-import.md\n```\n")
    loaded = load_instructions(workspace, home)
    assert "Before.\nUse tabs.\nDeep rule.\nAfter." in loaded.text
    assert "@docs/not-an-import.md" in loaded.text
    imported = [(f.path.name, f.scope, f.imported_by.name if f.imported_by else None) for f in loaded.files]
    assert imported == [("PSEUDOCLAUDE.md", "project", None), ("style.md", "import", "PSEUDOCLAUDE.md"), ("deep.md", "import", "style.md")]
    assert loaded.problems == ()


def test_an_import_cycle_is_reported_and_each_file_included_once(tmp_path: Path) -> None:
    home, repo, workspace = make_repo(tmp_path)
    (repo / "a.md").write_text("A text\n@b.md\n")
    (repo / "b.md").write_text("B text\n@a.md\n")
    (repo / "PSEUDOCLAUDE.md").write_text("@a.md\n")
    loaded = load_instructions(workspace, home)
    assert loaded.text.count("A text") == 1 and loaded.text.count("B text") == 1
    assert len(loaded.problems) == 1 and "import cycle" in loaded.problems[0]
    assert "a.md -> " in loaded.problems[0] and loaded.problems[0].endswith("not imported again")


def test_a_self_import_is_a_cycle(tmp_path: Path) -> None:
    home, repo, workspace = make_repo(tmp_path)
    (repo / "PSEUDOCLAUDE.md").write_text("Me\n@PSEUDOCLAUDE.md\n")
    loaded = load_instructions(workspace, home)
    assert loaded.text.count("Me") == 1 and "import cycle" in loaded.problems[0]


def test_imports_stop_at_the_depth_limit(tmp_path: Path) -> None:
    home, repo, workspace = make_repo(tmp_path)
    for level in range(MAX_IMPORT_DEPTH + 2):
        (repo / f"level{level}.md").write_text(f"LEVEL {level}\n@level{level + 1}.md\n")
    (repo / "PSEUDOCLAUDE.md").write_text("@level1.md\n")
    loaded = load_instructions(workspace, home)
    assert f"LEVEL {MAX_IMPORT_DEPTH}" in loaded.text and f"LEVEL {MAX_IMPORT_DEPTH + 1}" not in loaded.text
    assert any("deeper than 5" in problem for problem in loaded.problems)


def test_missing_and_outside_imports_are_reported_and_left_as_written(tmp_path: Path) -> None:
    home, repo, workspace = make_repo(tmp_path)
    (tmp_path / "secret.md").write_text("SECRET OUTSIDE")
    (repo / "PSEUDOCLAUDE.md").write_text("@missing.md\n@../secret.md\n")
    loaded = load_instructions(workspace, home)
    assert "@missing.md" in loaded.text and "SECRET OUTSIDE" not in loaded.text
    assert "file not found" in loaded.problems[0] and "outside the repository" in loaded.problems[1]


def test_the_same_file_through_a_symlink_loads_once(tmp_path: Path) -> None:
    home, repo, workspace = make_repo(tmp_path)
    (repo / "AGENTS.md").write_text("SHARED RULES")
    (repo / "CLAUDE.md").symlink_to(repo / "AGENTS.md")
    loaded = load_instructions(workspace, home)
    assert loaded.text.count("SHARED RULES") == 1 and len(loaded.files) == 1


def _settings(workspace: Path, home: Path) -> Settings:
    env = {"ANTHROPIC_API_KEY": "k-test", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "PSEUDOCLAUDE_HOME": str(home)}
    return load_settings(workspace, environ=env)


def test_the_system_prompt_carries_the_instructions_and_is_identical_after_a_resume(tmp_path: Path) -> None:
    home, repo, workspace = make_repo(tmp_path)
    (repo / "PSEUDOCLAUDE.md").write_text("Always run the linter.\n")
    settings = _settings(workspace, home)
    first = build_agent(settings)
    system, session_id = first.facts.system_prompt, first.facts.session_id
    assert [f.path for f in first.memory.instruction_files()] == [repo / "PSEUDOCLAUDE.md"]
    asyncio.run(first.aclose())
    resumed = build_agent(settings, resume_id=session_id)
    try:
        assert "Always run the linter." in system
        assert resumed.facts.system_prompt == system
    finally:
        asyncio.run(resumed.aclose())


def test_instructions_stay_in_the_system_prompt_after_a_layer_2_compaction(tmp_path: Path) -> None:
    home, repo, workspace = make_repo(tmp_path)
    (repo / "PSEUDOCLAUDE.md").write_text("RULE: never delete tests.")
    system = stable_system_prompt(workspace, load_instructions(workspace, home).text)
    provider = ScriptedProvider([Reply(text="<summary>worked on the parser</summary>"), Reply(text="continuing")])
    history = [Message.user(f"fix the parser, part {i} " * 600) if i % 2 == 0 else Message.assistant(f"done {i} " * 1500) for i in range(8)]
    runner = Runner(
        provider=provider,
        tools=[EchoTool()],
        tool_context=ToolContext(workspace=workspace),
        config=RunConfig(model="scripted-model", system=system),
        context=CompactionEngine(ContextState(model="scripted-model", context_window=60_000), provider),
        conversation=history,
    )

    async def go() -> None:
        _ = [event async for event in runner.compact()]
        _ = [event async for event in runner.run("next step")]

    asyncio.run(go())
    after = provider.requests[-1]
    assert "worked on the parser" in after.messages[0].text
    assert "RULE: never delete tests." in after.system
    assert all("RULE: never delete tests." not in message.text for message in after.messages)


def test_init_prompt_asks_for_a_pseudoclaude_md() -> None:
    assert "PSEUDOCLAUDE.md" in INIT_PROMPT and "tests" in INIT_PROMPT


def test_the_instruction_scan_reads_only_the_folders_on_the_way_down(tmp_path: Path) -> None:
    """``/context`` and every compaction re-run it: on a 25,000-file tree it must not walk the tree."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "CLAUDE.md").write_text("root rules\n")
    work = repo / "src" / "app"
    work.mkdir(parents=True)
    (work / "CLAUDE.md").write_text("app rules\n")
    for i in range(50):
        side = repo / "vendor" / f"lib{i}"
        side.mkdir(parents=True)
        (side / "CLAUDE.md").write_text(f"vendor {i} rules\n")
    loaded = load_instructions(work, tmp_path / "home")
    assert [f.path for f in loaded.files] == [repo / "CLAUDE.md", work / "CLAUDE.md"]
    assert "vendor" not in loaded.text
