"""Cross-session memory: saving facts, the remember tool, the prompt and the summary."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pseudoclaude.agent.build import build_agent
from pseudoclaude.agent.context import CompactionEngine
from pseudoclaude.agent.memory import FactRejected, MemoryStore
from pseudoclaude.agent import RunConfig, Runner
from pseudoclaude.compact import ContextState
from pseudoclaude.config import Settings, load_settings
from pseudoclaude.llm.messages import Message
from pseudoclaude.session import workspace_key
from pseudoclaude.tools.base import ToolContext
from pseudoclaude.tools.remember import RememberTool
from tests.fakes.script import Reply
from tests.fakes.scripted import ScriptedProvider, call


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


def test_a_project_fact_goes_to_the_workspace_file_under_home(tmp_path: Path, workspace: Path) -> None:
    store = MemoryStore(tmp_path / "home", workspace)
    saved = store.save("  The tests need   a running redis. ", "project")
    assert saved.path == tmp_path / "home" / "projects" / workspace_key(workspace) / "MEMORY.md"
    assert saved.added and saved.line == "- The tests need a running redis."
    assert saved.path.read_text().splitlines()[-1] == "- The tests need a running redis."


def test_a_user_fact_goes_to_the_user_file_and_both_files_are_listed(tmp_path: Path, workspace: Path) -> None:
    store = MemoryStore(tmp_path / "home", workspace)
    store.save("I prefer short answers.", "user")
    files = store.files()
    assert [(f.scope, f.path) for f in files] == [("user", tmp_path / "home" / "MEMORY.md"), ("project", store.path("project"))]
    assert files[0].size > 0 and files[1].size == 0 and not files[1].exists
    assert "- I prefer short answers." in (tmp_path / "home" / "MEMORY.md").read_text()


def test_a_fact_already_saved_is_not_added_twice(tmp_path: Path, workspace: Path) -> None:
    store = MemoryStore(tmp_path / "home", workspace)
    store.save("Use pnpm, not npm.")
    again = store.save("Use  pnpm, not npm.")
    assert not again.added
    assert again.path.read_text().count("Use pnpm, not npm.") == 1


def test_a_fact_is_appended_on_its_own_line_after_a_hand_edit(tmp_path: Path, workspace: Path) -> None:
    store = MemoryStore(tmp_path / "home", workspace)
    path = store.save("first").path
    path.write_text(path.read_text() + "- edited by hand, no newline")
    store.save("second")
    assert path.read_text().splitlines()[-2:] == ["- edited by hand, no newline", "- second"]


def test_empty_facts_and_unknown_scopes_are_refused(tmp_path: Path, workspace: Path) -> None:
    store = MemoryStore(tmp_path / "home", workspace)
    with pytest.raises(FactRejected, match="empty"):
        store.save("   \n ")
    with pytest.raises(FactRejected, match="scope"):
        store.save("fact", "team")  # type: ignore[arg-type]


def test_the_snapshot_holds_both_files_and_is_empty_without_facts(tmp_path: Path, workspace: Path) -> None:
    store = MemoryStore(tmp_path / "home", workspace)
    assert store.snapshot() == ""
    store.save("user fact", "user")
    store.save("project fact", "project")
    snapshot = store.snapshot()
    assert snapshot.index("- user fact") < snapshot.index("- project fact")


def test_the_remember_tool_saves_what_the_model_asks(tmp_path: Path, workspace: Path) -> None:
    store = MemoryStore(tmp_path / "home", workspace)
    provider = ScriptedProvider([Reply(calls=(call("remember", fact="Deploys happen on Fridays.", scope="user"),)), Reply(text="Noted.")])
    runner = Runner(
        provider=provider,
        tools=[RememberTool()],
        tool_context=ToolContext(workspace=workspace, memory=store),
        config=RunConfig(model="scripted-model", system="test"),
    )

    async def go() -> None:
        _ = [event async for event in runner.run("Remember that deploys happen on Fridays.")]

    asyncio.run(go())
    assert "- Deploys happen on Fridays." in store.path("user").read_text()
    result = provider.requests[1].messages[-1].tool_result
    assert result is not None and not result.is_error and "Saved to user memory" in result.content


def test_the_remember_tool_without_a_store_is_an_error_result(workspace: Path) -> None:
    from pseudoclaude.tools.base import ToolError

    with pytest.raises(ToolError, match="not available"):
        asyncio.run(RememberTool().run({"fact": "x"}, ToolContext(workspace=workspace)))


def _settings(workspace: Path, home: Path) -> Settings:
    env = {"ANTHROPIC_API_KEY": "k-test", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "PSEUDOCLAUDE_HOME": str(home)}
    return load_settings(workspace, environ=env)


def test_a_saved_fact_reaches_the_next_sessions_system_prompt_not_the_current_one(tmp_path: Path, workspace: Path) -> None:
    settings = _settings(workspace, tmp_path / "home")
    first = build_agent(settings)
    try:
        saved = first.memory.save("The API lives in services/api.", "project")
        assert saved.path in [f.path for f in first.memory.files()]
        assert "services/api" not in first.facts.system_prompt
    finally:
        asyncio.run(first.aclose())
    second = build_agent(settings)
    try:
        assert "- The API lives in services/api." in second.facts.system_prompt
    finally:
        asyncio.run(second.aclose())


def test_memory_is_given_to_the_layer_2_summary_prompt(tmp_path: Path, workspace: Path) -> None:
    store = MemoryStore(tmp_path / "home", workspace)
    store.save("The user's name is Ada.", "user")
    provider = ScriptedProvider([Reply(text="<summary>short</summary>")])
    runner = Runner(
        provider=provider,
        tools=[RememberTool()],
        tool_context=ToolContext(workspace=workspace),
        config=RunConfig(model="scripted-model", system="test"),
        context=CompactionEngine(ContextState(model="scripted-model", context_window=60_000), provider, memory=store.snapshot()),
        conversation=[Message.user(f"question {i} " * 1500) if i % 2 == 0 else Message.assistant(f"answer {i} " * 1500) for i in range(8)],
    )

    async def go() -> None:
        _ = [event async for event in runner.compact()]

    asyncio.run(go())
    summary_request = provider.requests[0]
    assert summary_request.tool_choice == "auto" and summary_request.tools
    assert "<memory>" in summary_request.messages[-1].text and "The user's name is Ada." in summary_request.messages[-1].text
