"""A resume restores what the token estimator learned, so the resumed session counts as the original did."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from pseudoclaude.agent.facade import Agent
from pseudoclaude.compact import Calibration
from pseudoclaude.session import load_replay
from tests.agent.test_facade import drain
from tests.agent.test_pinned_resume import TASK, Responder, _agent, _files
from tests.e2e.support import fake_server


def _counts(agent: Agent) -> tuple[str, int, int]:
    view = agent.context_breakdown()
    return view.estimator, view.message_tokens, view.estimated_tokens


def test_a_resumed_session_counts_with_the_calibration_the_original_had_learned(tmp_path: Path) -> None:
    _files(tmp_path)
    home = tmp_path / "home"

    async def original(server: Any) -> tuple[str, int, int]:
        agent = _agent(tmp_path, home, server.url, resume=False)
        try:
            await drain(agent.run(TASK))
            return _counts(agent)
        finally:
            await agent.aclose()

    async def resumed(server: Any) -> tuple[str, int, int]:
        agent = _agent(tmp_path, home, server.url, resume=True)
        try:
            return _counts(agent)
        finally:
            await agent.aclose()

    with fake_server("anthropic", Responder()) as server:
        before = asyncio.run(original(server))
        after = asyncio.run(resumed(server))
    assert "calibrated from" in before[0], "the fake's usage (bytes / 4 of the body) calibrates the estimator"
    assert after == before
    (folder,) = [p.parent for p in (home).rglob("*.jsonl")]
    lines = [json.loads(line) for line in (folder / "session.jsonl").read_text().splitlines() if line.strip()]
    recorded = [line for line in lines if line.get("type") == "calibration"]
    assert recorded and load_replay(folder).calibration == (recorded[-1]["bytes_per_token"], recorded[-1]["samples"])


def test_an_implausible_recorded_calibration_is_ignored() -> None:
    assert Calibration.parse(0.1, 3) is None and Calibration.parse(3.0, 0) is None and Calibration.parse("3", 2) is None
    assert Calibration.parse(3.2, True) is None
    assert Calibration.parse(3.2, 4) == Calibration(3.2, 4)
