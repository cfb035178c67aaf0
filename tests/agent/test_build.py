from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pseudoclaude.agent.build import build_agent
from pseudoclaude.config import Flags, load_settings


def agent_for(tmp_path: Path, **flags: object):  # type: ignore[no-untyped-def]
    env = {"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k", "PSEUDOCLAUDE_HOME": str(tmp_path / "home")}
    return build_agent(load_settings(tmp_path, Flags(**flags), environ=env))  # type: ignore[arg-type]


@pytest.mark.parametrize("model, window", [("claude-sonnet-4-5", 200_000), ("gpt-4o", 128_000), ("some-local-model", 128_000)])
def test_the_budget_uses_the_model_tables_window(tmp_path: Path, model: str, window: int) -> None:
    agent = agent_for(tmp_path, model=model, provider="openai" if model == "some-local-model" else None)
    try:
        assert agent.status().context_window == window
    finally:
        asyncio.run(agent.aclose())


def test_an_explicit_window_overrides_the_table(tmp_path: Path) -> None:
    agent = agent_for(tmp_path, model="claude-sonnet-4-5", context_window=32_000)
    try:
        assert agent.status().context_window == 32_000
    finally:
        asyncio.run(agent.aclose())
