"""Plan mode that ends in a plan, through a built agent on the wire-level fake server."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path

from pseudoclaude.agent.build import build_agent
from pseudoclaude.compact import PinnedTool, WorkingSet
from pseudoclaude.config import Flags, load_settings
from pseudoclaude.llm.messages import Message, ToolCall
from pseudoclaude.tools.permissions import ApprovalAnswer, ApprovalRequest, PermissionMode
from tests.agent.test_facade import drain
from tests.e2e.support import KEYS, fake_server
from tests.fakes.script import Call, Reply

PLAN = "1. Change x to 2 in app.py\n2. Done"


@dataclass
class Approver:
    answers: list[ApprovalAnswer]
    requests: list[ApprovalRequest] = field(default_factory=list)

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.requests.append(request)
        return self.answers.pop(0)


def run_plan(tmp_path: Path, approver: Approver | None, script: list[Reply]) -> tuple[list[dict[str, object]], PermissionMode]:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "app.py").write_text("x = 1\n")
    with fake_server("anthropic", script) as server:
        env = {"ANTHROPIC_API_KEY": KEYS["anthropic"], "ANTHROPIC_BASE_URL": server.url, "PSEUDOCLAUDE_HOME": str(tmp_path / "home")}
        agent = build_agent(load_settings(tmp_path / "ws", Flags(model="claude-fake-1", permission_mode="plan"), environ=env), approver=approver)

        async def go() -> PermissionMode:
            await drain(agent.run("make x two"))
            mode = agent.current.mode
            await agent.aclose()
            return mode

        mode = asyncio.run(go())
    return server.requests, mode


def test_an_approved_plan_switches_to_accept_edits_and_the_edit_runs_without_asking(tmp_path: Path) -> None:
    script = [
        Reply(text="Reading.", calls=(Call("read_file", json.dumps({"path": "app.py"})),)),
        Reply(text="Here is my plan.", calls=(Call("exit_plan_mode", json.dumps({"plan": PLAN})),)),
        Reply(text="Editing.", calls=(Call("edit_file", json.dumps({"path": "app.py", "old_string": "x = 1", "new_string": "x = 2"})),)),
        Reply(text="Done."),
    ]
    approver = Approver([ApprovalAnswer("always")])
    requests, mode = run_plan(tmp_path, approver, script)
    assert mode is PermissionMode.ACCEPT_EDITS and (tmp_path / "ws" / "app.py").read_text() == "x = 2\n"
    assert [r.kind for r in approver.requests] == ["plan"] and approver.requests[0].summary == PLAN
    assert "calling exit_plan_mode" in json.dumps(requests[0]["system"])
    assert "Permission mode: accept-edits" in json.dumps(requests[2]["system"])
    assert "The user approved your plan" in json.dumps(requests[2]["messages"])


def test_comments_go_back_as_the_tool_result_and_plan_mode_stays(tmp_path: Path) -> None:
    script = [
        Reply(text="Plan.", calls=(Call("exit_plan_mode", json.dumps({"plan": PLAN})),)),
        Reply(text="Revised plan follows."),
    ]
    requests, mode = run_plan(tmp_path, Approver([ApprovalAnswer("deny", "add a test first")]), script)
    assert mode is PermissionMode.PLAN
    assert "The user wants changes to the plan: add a test first" in json.dumps(requests[1]["messages"])


def test_headless_plan_mode_denies_the_switch_and_says_the_plan_is_the_result(tmp_path: Path) -> None:
    script = [Reply(text="Plan.", calls=(Call("exit_plan_mode", json.dumps({"plan": PLAN})),)), Reply(text=PLAN)]
    requests, mode = run_plan(tmp_path, None, script)
    assert mode is PermissionMode.PLAN and (tmp_path / "ws" / "app.py").read_text() == "x = 1\n"
    assert "The plan is this run's result" in json.dumps(requests[1]["messages"])


def test_the_pinned_block_prefers_the_presented_plan_over_a_later_answer() -> None:
    class Planning:
        def planning(self) -> bool:
            return True

    working = WorkingSet({"exit_plan_mode": PinnedTool("plan", "plan")}, source=Planning())  # type: ignore[arg-type]
    working.observe([Message.user("plan it")])
    call = ToolCall("c1", "exit_plan_mode", json.dumps({"plan": PLAN}))
    working.ingest([Message.assistant("Here.", (call,)), Message.tool("c1", "comments"), Message.assistant("Anything else?")])
    assert working.plan == PLAN
