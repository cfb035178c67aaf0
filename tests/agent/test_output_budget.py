"""The output budget end to end at the runner: what the model receives of a long test run, at small windows."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from pseudoclaude.agent import CompactionEngine, RunConfig, Runner
from pseudoclaude.compact import Budget, ContextState
from pseudoclaude.llm import RetryPolicy
from pseudoclaude.tools import RunCommandTool, ToolContext
from tests.compact.support import RecordingSession
from tests.fakes.script import Reply
from tests.fakes.scripted import ScriptedProvider, call

TEST_SUITE = """
import sys
for i in range(6000):
    print(f"tests/test_mod.py::test_case_{i} PASSED")
print("Traceback (most recent call last):")
print('  File "src/parser.py", line 42, in parse')
print("ValueError: unexpected token ')' at column 7")
print("FAILED tests/test_parser.py::test_nested - ValueError")
print("=== 1 failed, 6000 passed in 3.21s ===")
sys.exit(1)
"""


@pytest.mark.parametrize("window", [200_000, 60_000, 32_000, 16_000])
def test_the_end_of_a_long_failing_test_run_reaches_the_model_at_every_window(window: int, tmp_path: Path) -> None:
    (tmp_path / "suite.py").write_text(TEST_SUITE)
    provider = ScriptedProvider([Reply(calls=(call("run_command", command=f"{sys.executable} suite.py"),)), Reply(text="I see the failure.")])
    state = ContextState(model="scripted-model", context_window=window, session=RecordingSession(tmp_path / "spill"))
    runner = Runner(
        provider=provider,
        tools=[RunCommandTool()],
        tool_context=ToolContext(workspace=tmp_path, spill_dir=tmp_path / "spill"),
        config=RunConfig(model="scripted-model", system="s", retry=RetryPolicy(max_attempts=1)),
        context=CompactionEngine(state, provider),
    )

    async def go() -> None:
        _ = [event async for event in runner.run("run the tests")]

    asyncio.run(go())
    sent = provider.requests[1].messages[-1].tool_result
    assert sent is not None
    assert "ValueError: unexpected token ')' at column 7" in sent.content and "1 failed, 6000 passed" in sent.content
    assert len(sent.content.encode()) <= Budget.for_window(window).inline_output_bytes + 1_000
    assert sent.full_output is not None and Path(sent.full_output).read_text().count("PASSED") == 6000
