"""The pinned block through a built agent: it survives a resume byte for byte, /context shows it, overflow says so."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from io import StringIO
from pathlib import Path
from typing import Any, Mapping

from rich.console import Console

from pseudoclaude.agent import events as ev
from pseudoclaude.agent.build import build_agent, pinned_tools
from pseudoclaude.agent.context import CompactionEngine
from pseudoclaude.agent.facade import Agent
from pseudoclaude.compact import ContextState, PinnedTool
from pseudoclaude.config import Flags, load_settings
from pseudoclaude.llm.messages import Message
from pseudoclaude.tools import ToolRegistry
from tests.tools.builtins import builtin_only
from pseudoclaude.tui.context_view import render_context
from tests.agent.test_facade import drain
from tests.agent.test_hooks import collect, entry, hooks_for, make_runner, payloads, recorder
from tests.compact.support import RecordingSession
from tests.e2e.support import KEYS, fake_server
from tests.fakes.script import Call, HttpError, Reply, Step, is_summary_request
from tests.fakes.scripted import ScriptedProvider

MODEL = "claude-fake-1"
TASK = "fix the off-by-one in a.py"


def _agent(root: Path, home: Path, url: str, *, resume: bool) -> Agent:
    env = {"ANTHROPIC_API_KEY": KEYS["anthropic"], "ANTHROPIC_BASE_URL": url, "PSEUDOCLAUDE_HOME": str(home)}
    flags = Flags(model=MODEL, permission_mode="bypass", context_window=16_000)
    return build_agent(load_settings(root / "ws", flags, environ=env), continue_latest=resume)


def _files(root: Path) -> None:
    (root / "ws").mkdir()
    for name in ("a.py", "b.py", "c.py", "d.py"):
        (root / "ws" / name).write_text("".join(f"v{n} = '{'z' * 100}'\n" for n in range(40)))


class Responder:
    """Summaries for summary requests; the main requests read two files and run a failing command, then answer."""

    def __init__(self, main: int = 0) -> None:
        self.main = main
        self.steps: list[Step] = [
            Reply(text="Reading.", calls=(Call("read_file", json.dumps({"path": "a.py"})),)),
            Reply(text="Reading.", calls=(Call("read_file", json.dumps({"path": "b.py", "limit": 20})),)),
            Reply(text="Testing.", calls=(Call("run_command", json.dumps({"command": "echo boom; exit 3"})),)),
            Reply(text="Stopping here."),
            Reply(text="Reading.", calls=(Call("read_file", json.dumps({"path": "c.py"})),)),
            Reply(text="Reading.", calls=(Call("read_file", json.dumps({"path": "d.py"})),)),
        ]

    def __call__(self, body: Mapping[str, Any]) -> Step:
        if is_summary_request(body):
            return Reply(text="<summary>Worked on a.py.</summary>")
        self.main += 1
        return self.steps[self.main - 1] if self.main <= len(self.steps) else Reply(text=f"answer {self.main}")


def test_a_resume_after_a_compaction_sends_the_same_bytes_and_rebuilds_the_same_pinned_block(tmp_path: Path) -> None:
    _files(tmp_path)
    home, copy = tmp_path / "home", tmp_path / "home-copy"

    async def original(server: Any) -> tuple[str, str]:
        agent = _agent(tmp_path, home, server.url, resume=False)
        try:
            await drain(agent.run(TASK))
            await drain(agent.compact(None))
            shutil.copytree(home, copy)
            start = len(server.requests)
            await drain(agent.run("what next?"))
            sent = json.dumps(server.requests[start])  # the first request after the resume (later ones carry the server's own call ids)
            await drain(agent.compact(None))
            return sent, agent.conversation()[2].text
        finally:
            await agent.aclose()

    async def resumed(server: Any) -> tuple[str, str]:
        agent = _agent(tmp_path, copy, server.url, resume=True)
        try:
            start = len(server.requests)
            await drain(agent.run("what next?"))
            sent = json.dumps(server.requests[start])  # the first request after the resume (later ones carry the server's own call ids)
            await drain(agent.compact(None))
            return sent, agent.conversation()[2].text
        finally:
            await agent.aclose()

    with fake_server("anthropic", Responder()) as server:
        first_sent, first_pinned = asyncio.run(original(server))
        assert server.rejections == []
    with fake_server("anthropic", Responder(main=4)) as server:
        again_sent, again_pinned = asyncio.run(resumed(server))
        assert server.rejections == []
    assert again_sent == first_sent
    assert again_pinned == first_pinned
    # The block after a second compaction leaves out what the kept tail already carries; a resume rebuilds
    # the same tail (the calibration is restored too), hence the same block.
    for kept in (f"[1] {TASK}", "a.py (read 1-", "d.py (read 1-", "$ echo boom; exit 3"):
        assert kept in again_pinned
    assert first_pinned.startswith("<pinned-context") and f"[1] {TASK}" in first_pinned and "d.py (read 1-" in first_pinned
    assert "\n- ./: a.py (read 1-39 of 40), b.py (read 1-20 of 40), c.py (read 1-" in first_pinned
    assert "$ echo boom; exit 3\n[exit code 3]\nboom" in first_pinned


def test_context_shows_the_pinned_block_on_its_own_line(tmp_path: Path) -> None:
    _files(tmp_path)
    with fake_server("anthropic", Responder()) as server:

        async def go() -> tuple[int, int]:
            agent = _agent(tmp_path, tmp_path / "home", server.url, resume=False)
            try:
                before = agent.context_breakdown().pinned_tokens
                await drain(agent.run(TASK))
                await drain(agent.compact(None))
                view = agent.context_breakdown()
                console = Console(file=StringIO(), width=100)
                render_context(console, view)
                assert re.search(rf"\n  pinned block +{view.pinned_tokens:,}  tokens of them \(user messages", console.file.getvalue())  # type: ignore[attr-defined]
                return before, view.pinned_tokens
            finally:
                await agent.aclose()

        before, after = asyncio.run(go())
    assert before == 0 and 10 < after < 500


def test_the_tools_that_feed_the_block_are_derived_from_their_traits() -> None:
    assert builtin_only(dict(pinned_tools(ToolRegistry()))) == {
        "read_file": PinnedTool("read", "path"),
        "write_file": PinnedTool("edit", "path"),
        "edit_file": PinnedTool("edit", "path"),
        "run_command": PinnedTool("execute", "command"),
        "todo_write": PinnedTool("todo", "items"),
        "exit_plan_mode": PinnedTool("plan", "plan"),
        "grep": PinnedTool("search", "path", pattern="pattern", default="."),
        "glob": PinnedTool("search", "path", pattern="pattern", default="."),
        "list_dir": PinnedTool("list", "path", default="."),
    }


def test_a_compaction_forced_by_an_overflow_is_recorded_and_announced_as_overflow(tmp_path: Path) -> None:
    hooks = hooks_for(tmp_path, [{"hooks": {name: [entry(recorder(tmp_path, name))] for name in ("PreCompact", "PostCompact")}}])
    session = RecordingSession(tmp_path / "spill")
    state = ContextState(model="scripted-model", context_window=60_000, session=session)
    too_long = HttpError(400, "context_length", "prompt is too long")
    provider = ScriptedProvider([too_long, Reply(text="<summary>s</summary>"), Reply(text="done")])
    long_talk = [Message.user(f"q{i} " * 3000) if i % 2 == 0 else Message.assistant(f"a{i} " * 3000) for i in range(8)]
    runner = make_runner(provider, hooks, tmp_path, context=CompactionEngine(state, provider), conversation=long_talk)
    events = collect(runner, "go")
    assert isinstance(events[-1], ev.Stop) and events[-1].reason != "context_overflow"
    [compaction] = [data for kind, data in session.events if kind == "compaction"]
    assert compaction["trigger"] == "overflow"
    [pre], [post] = payloads(tmp_path, "PreCompact"), payloads(tmp_path, "PostCompact")
    assert pre["trigger"] == post["trigger"] == "overflow"
    [compacted] = [e for e in events if isinstance(e, ev.Progress) and e.kind == "compact"]
    assert compacted.data["trigger"] == "overflow"


LONG_TASK = (
    "TICKET-7: the importer drops rows\n\n"
    + "Background: the importer reads the nightly export and has been patched many times. " * 200
    + "\nDo not modify anything under tests/. Keep every public function name in a.py.\n"
    + "More background: the export format changed twice this year. " * 200
)


class SearchingResponder(Responder):
    """Reads, greps the workspace and lists it, then a failing command, then answers."""

    def __init__(self, main: int = 0) -> None:
        super().__init__(main)
        self.steps = [
            Reply(text="Reading.", calls=(Call("read_file", json.dumps({"path": "a.py"})),)),
            Reply(text="Searching.", calls=(Call("grep", json.dumps({"pattern": "v1 =", "path": "."})),)),
            Reply(text="Listing.", calls=(Call("list_dir", json.dumps({})),)),
            Reply(text="Testing.", calls=(Call("run_command", json.dumps({"command": "echo boom; exit 3"})),)),
            Reply(text="Stopping here."),
        ]


def test_a_resume_after_compacting_a_long_ticket_sends_the_same_bytes_and_context_shows_the_rules(tmp_path: Path) -> None:
    _files(tmp_path)
    home, copy = tmp_path / "home", tmp_path / "home-copy"

    async def original(server: Any) -> tuple[str, str, str]:
        agent = _agent(tmp_path, home, server.url, resume=False)
        try:
            await drain(agent.run(LONG_TASK))
            await drain(agent.compact(None))
            shutil.copytree(home, copy)
            console = Console(file=StringIO(), width=120)
            render_context(console, agent.context_breakdown())
            start = len(server.requests)
            await drain(agent.run("what next?"))
            return json.dumps(server.requests[start]), agent.conversation()[2].text, console.file.getvalue()  # type: ignore[attr-defined]
        finally:
            await agent.aclose()

    async def resumed(server: Any) -> tuple[str, str]:
        agent = _agent(tmp_path, copy, server.url, resume=True)
        try:
            console = Console(file=StringIO(), width=120)
            render_context(console, agent.context_breakdown())
            start = len(server.requests)
            await drain(agent.run("what next?"))
            return json.dumps(server.requests[start]), console.file.getvalue()  # type: ignore[attr-defined]
        finally:
            await agent.aclose()

    with fake_server("anthropic", SearchingResponder()) as server:
        first_sent, pinned, first_view = asyncio.run(original(server))
        assert server.rejections == []
    with fake_server("anthropic", SearchingResponder(main=5)) as server:
        again_sent, again_view = asyncio.run(resumed(server))
        assert server.rejections == []
    assert again_sent == first_sent

    def pinned_rows(view: str) -> list[str]:
        return [line for line in view.splitlines() if line.startswith(("  pinned block", "    "))]

    assert pinned_rows(again_view) == pinned_rows(first_view) and len(pinned_rows(first_view)) >= 4
    assert "  - Do not modify anything under tests/." in pinned and "  - Keep every public function name in a.py." in pinned
    assert '[1] "TICKET-7: the importer drops rows…"' in pinned and "characters cut" not in pinned
    assert "- ./: a.py (read 1-39 of 40), . (searched 'v1 ='; listed)\n" in pinned
    assert re.search(r"rules extracted +2  instructions pinned verbatim from 1 message not carried whole", first_view)
    assert re.search(r"reduced to fit +user messages: 1 by their instructions; whole in the session, recall finds them", first_view)
    assert re.search(r"files touched +\d+  tokens: 2 paths, grouped by directory", first_view)
