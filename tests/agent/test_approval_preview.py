"""An edit is judged on its change: the question carries the diff, and a call the tool would refuse is never asked."""

from __future__ import annotations

import asyncio
from pathlib import Path

from rich.console import Console

from pseudoclaude.agent import RunConfig, Runner
from pseudoclaude.llm.retry import RetryPolicy
from pseudoclaude.tools import ToolContext, builtin_registry
from pseudoclaude.tools.permissions import ApprovalAnswer, ApprovalRequest, PermissionMode, PermissionPolicy, Rule
from pseudoclaude.tui.approval import question_lines
from tests.fakes.scripted import ScriptedProvider, call
from tests.fakes.script import Reply
from tests.permissions.fakes import ScriptedApprover


def run(tmp_path: Path, approver: ScriptedApprover, *calls: object) -> ScriptedProvider:
    provider = ScriptedProvider([Reply(calls=tuple(calls)), Reply(text="done")])  # type: ignore[arg-type]
    tools = list(builtin_registry().by_name().values())
    runner = Runner(
        provider=provider,
        tools=tools,
        tool_context=ToolContext(workspace=tmp_path),
        config=RunConfig(model="scripted-model", system="test", retry=RetryPolicy(max_attempts=1, base_delay=0, max_delay=0)),
        permissions=PermissionPolicy(mode=PermissionMode.DEFAULT, workspace=tmp_path, home=tmp_path / "home", approver=approver),
    )

    async def go() -> None:
        async for _ in runner.run("edit it"):
            pass

    asyncio.run(go())
    return provider


def test_an_edit_of_a_file_not_read_is_refused_without_asking(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("x = 1\n")
    approver = ScriptedApprover([])
    provider = run(tmp_path, approver, call("edit_file", path="app.py", old_string="x = 1", new_string="x = 2"))
    result = provider.requests[1].messages[-1].tool_result
    assert approver.requests == []
    assert result is not None and result.is_error and "has not been read" in result.content
    assert (tmp_path / "app.py").read_text() == "x = 1\n"


def test_the_edit_question_carries_the_diff_and_a_folder_rule(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x = 1\ny = 2\n")
    approver = ScriptedApprover([ApprovalAnswer("once")])
    provider = ScriptedProvider(
        [
            Reply(calls=(call("read_file", path="src/app.py"),)),
            Reply(calls=(call("edit_file", path="src/app.py", old_string="x = 1", new_string="x = 42"),)),
            Reply(text="done"),
        ]
    )
    runner = Runner(
        provider=provider,
        tools=list(builtin_registry().by_name().values()),
        tool_context=ToolContext(workspace=tmp_path),
        config=RunConfig(model="scripted-model", system="test", retry=RetryPolicy(max_attempts=1, base_delay=0, max_delay=0)),
        permissions=PermissionPolicy(mode=PermissionMode.DEFAULT, workspace=tmp_path, home=tmp_path / "home", approver=approver),
    )

    async def go() -> None:
        async for _ in runner.run("edit it"):
            pass

    asyncio.run(go())
    (request,) = approver.requests
    assert "-x = 1" in request.diff and "+x = 42" in request.diff
    assert request.suggested_rule == Rule("edit_file", "src/**")
    assert (tmp_path / "src" / "app.py").read_text() == "x = 42\ny = 2\n"


def test_a_new_file_question_shows_its_content(tmp_path: Path) -> None:
    approver = ScriptedApprover([ApprovalAnswer("deny", "not now")])
    provider = run(tmp_path, approver, call("write_file", path="notes/todo.md", content="- buy milk\n"))
    (request,) = approver.requests
    assert "+- buy milk" in request.diff
    result = provider.requests[1].messages[-1].tool_result
    assert result is not None and "not now" in result.content and not (tmp_path / "notes").exists()


def render(lines: list[object]) -> str:
    console = Console(width=80, record=True, color_system=None)
    for line in lines:
        console.print(line)
    return console.export_text()


def test_the_question_shows_the_diff_before_the_keys_and_names_the_rule() -> None:
    diff = "--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-x = 1\n+x = 42\n"
    request = ApprovalRequest("edit_file", {"path": "src/app.py"}, "edit_file src/app.py", Rule("edit_file", "src/**"), diff)
    text = render(question_lines(request, typing_reason=False, reason=""))  # type: ignore[arg-type]
    assert text.index("-x = 1") < text.index("+x = 42") < text.index("[y] yes")
    assert "saving the rule edit_file(src/**)" in text and "+++" not in text


def test_a_long_diff_is_cut_with_a_count() -> None:
    diff = "@@ -0,0 +1,100 @@\n" + "".join(f"+line {n}\n" for n in range(100))
    request = ApprovalRequest("write_file", {"path": "a"}, "write_file a", None, diff)
    text = render(question_lines(request, typing_reason=False, reason=""))  # type: ignore[arg-type]
    assert "+line 18" in text and "+line 19" not in text and "… +81 lines" in text


def test_a_denied_call_shows_the_reason_in_the_transcript() -> None:
    from pseudoclaude.tui.toolview import tool_block

    block = tool_block(
        "run_command",
        {"command": "gcc x.c"},
        is_error=True,
        summary="denied",
        display={"denied": "The user denied this call: use the Makefile target instead"},
    )
    text = render([block])
    assert "Denied: The user denied this call: use the Makefile target instead" in text
