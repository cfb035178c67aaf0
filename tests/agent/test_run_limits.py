"""Turn and cost limits: none by default; --max-turns / maxTurns and --max-budget-usd / maxBudgetUsd opt in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pseudoclaude.agent.events import Progress, Stop
from pseudoclaude.config import ConfigError, Flags, load_settings
from pseudoclaude.llm import cost_usd
from pseudoclaude.agent import RunConfig, Runner
from pseudoclaude.tools import ToolContext
from tests.agent.test_runner import FAST_RETRY, collect
from tests.agent.tools import EchoTool
from tests.e2e.support import cli_env, fake_server, json_lines, run_cli
from tests.fakes.script import Call, Reply
from tests.fakes.scripted import ScriptedProvider, call, validate_conversation

PRICED = "claude-sonnet-4-5"


def make_runner(provider: ScriptedProvider, model: str = "scripted-model", **limits: Any) -> Runner:
    config = RunConfig(model=model, system="You are a test.", retry=FAST_RETRY, **limits)
    return Runner(provider=provider, tools=[EchoTool()], tool_context=ToolContext(workspace=Path(".")), config=config)


def looping_then_done(turns: int, input_tokens: int = 1000) -> ScriptedProvider:
    steps = [Reply(calls=(call("echo", text=str(n)),), input_tokens=input_tokens) for n in range(turns)]
    return ScriptedProvider([*steps, Reply(text="finished", input_tokens=input_tokens)])


def test_there_is_no_turn_limit_by_default() -> None:
    provider = looping_then_done(75)
    events = collect(make_runner(provider), "a long task")
    assert events[-1] == Stop("end_turn", "finished", 76)


def test_the_cost_limit_stops_before_the_model_call_that_would_pass_it() -> None:
    provider = looping_then_done(20, input_tokens=100_000)
    events = collect(make_runner(provider, model=PRICED, max_budget_usd=1.0), "spend")
    stop = events[-1]
    assert isinstance(stop, Stop) and stop.reason == "max_budget" and stop.turns == 4
    assert "$1.20" in stop.message and "limit of $1.00" in stop.message
    assert len(provider.requests) == 4
    assert validate_conversation(provider.requests[-1].messages) is None


def test_the_cost_limit_counts_each_run_on_its_own() -> None:
    provider = ScriptedProvider([Reply(text="one", input_tokens=200_000), Reply(text="two", input_tokens=200_000)])
    runner = make_runner(provider, model=PRICED, max_budget_usd=1.0)
    assert collect(runner, "first")[-1].reason == "end_turn"
    assert runner.run_cost_usd() == pytest.approx(cost_usd(PRICED, 200_000, 20))
    assert collect(runner, "second")[-1] == Stop("end_turn", "two", 1)


def test_a_cost_limit_on_a_model_without_a_price_says_it_cannot_stop_anything() -> None:
    provider = looping_then_done(2)
    events = collect(make_runner(provider, max_budget_usd=0.01), "go")
    warnings = [e.message for e in events if isinstance(e, Progress) and e.kind == "warning"]
    assert warnings == ["no price is known for scripted-model: its estimated cost stays $0 and the cost limit cannot stop the run"]
    assert events[-1].reason == "end_turn"


def settings(tmp_path: Path, files: dict[str, object] | None = None, flags: Flags = Flags()):  # type: ignore[no-untyped-def]
    if files is not None:
        (tmp_path / ".pseudoclaude").mkdir(exist_ok=True)
        (tmp_path / ".pseudoclaude" / "settings.json").write_text(json.dumps(files))
    return load_settings(tmp_path, flags, environ={"PSEUDOCLAUDE_HOME": str(tmp_path / "home"), "ANTHROPIC_API_KEY": "k"})


def test_settings_default_to_no_limits(tmp_path: Path) -> None:
    s = settings(tmp_path)
    assert (s.max_turns, s.max_budget_usd) == (None, None)


def test_settings_files_set_limits_and_flags_win(tmp_path: Path) -> None:
    s = settings(tmp_path, {"maxTurns": 40, "maxBudgetUsd": 2.5})
    assert (s.max_turns, s.max_budget_usd) == (40, 2.5)
    s = settings(tmp_path, {"maxTurns": 40, "maxBudgetUsd": "2.5"}, Flags(max_turns=7, max_budget_usd=0.5))
    assert (s.max_turns, s.max_budget_usd) == (7, 0.5)


@pytest.mark.parametrize("value", [0, -1, "lots", True, [3], float("inf")])
def test_a_bad_budget_setting_is_a_clear_error(tmp_path: Path, value: object) -> None:
    with pytest.raises(ConfigError, match="maxBudgetUsd"):
        settings(tmp_path, {"maxBudgetUsd": value})


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_the_cli_budget_stop_is_a_failed_run_with_its_reason(kind: str, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    loop = [Reply(text=f"step {n}", calls=(Call("list_dir", "{}"),), input_tokens=300_000) for n in range(10)]
    with fake_server(kind, loop) as server:
        proc = run_cli(
            ["-p", "loop", "--output-format", "json", "--max-budget-usd", "1.5", "--permission-mode", "bypass"],
            ws,
            cli_env(kind, server.url, tmp_path / "home"),
        )
    assert proc.returncode == 1, proc.stderr
    result = json_lines(proc.stdout)[-1]
    assert result["stop_reason"] == "max_budget" and result["is_error"] is True
    assert "--max-budget-usd / maxBudgetUsd limit of $1.50" in result["error"]
    assert len(server.requests) < 10
