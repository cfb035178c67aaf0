"""Checkpoints before edits, /rewind and /diff, through a built agent on the wire-level fake server."""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path

from pseudoclaude.agent import rewind_session, session_changes, user_turns
from pseudoclaude.agent.build import build_agent
from pseudoclaude.config import Flags, Settings, load_settings
from pseudoclaude.session import load_replay, session_folder
from tests.agent.test_facade import drain
from tests.e2e.support import KEYS, fake_server
from tests.fakes.script import Call, Reply

MODEL = "claude-fake-1"


def settings_for(root: Path, url: str) -> Settings:
    env = {"ANTHROPIC_API_KEY": KEYS["anthropic"], "ANTHROPIC_BASE_URL": url, "PSEUDOCLAUDE_HOME": str(root / "home")}
    return load_settings(root / "ws", Flags(model=MODEL, permission_mode="bypass"), environ=env)


SCRIPT = [
    Reply(text="Reading.", calls=(Call("read_file", json.dumps({"path": "app.py"})),)),
    Reply(text="Editing.", calls=(Call("edit_file", json.dumps({"path": "app.py", "old_string": "x = 1", "new_string": "x = 2"})),)),
    Reply(text="Done one."),
    Reply(text="Writing.", calls=(Call("write_file", json.dumps({"path": "new.txt", "content": "fresh\n"})),)),
    Reply(text="Editing.", calls=(Call("edit_file", json.dumps({"path": "app.py", "old_string": "x = 2", "new_string": "x = 3"})),)),
    Reply(text="Done two."),
    Reply(text="After the rewind."),
]


def two_turns(root: Path) -> tuple[Settings, str]:
    (root / "ws").mkdir()
    (root / "ws" / "app.py").write_text("x = 1\n")
    with fake_server("anthropic", SCRIPT) as server:
        settings = settings_for(root, server.url)
        agent = build_agent(settings)

        async def go() -> None:
            await drain(agent.run("first change"))
            await drain(agent.run("second change"))
            await agent.aclose()

        asyncio.run(go())
    return settings, agent.facts.session_id


def test_every_edit_keeps_the_previous_content_privately_with_its_turn(tmp_path: Path) -> None:
    settings, session_id = two_turns(tmp_path)
    folder = session_folder(settings.sessions_dir, settings.workspace, session_id)
    entries = [json.loads(line) for line in (folder / "session.jsonl").read_text().splitlines()]
    checkpoints = [e for e in entries if e["type"] == "checkpoint"]
    assert [(Path(c["path"]).name, c["existed"]) for c in checkpoints] == [("app.py", True), ("new.txt", False), ("app.py", True)]
    assert all(c["turn"] > 0 for c in checkpoints)
    assert (folder / checkpoints[0]["blob"]).read_text() == "x = 1\n"
    assert stat.S_IMODE((folder / checkpoints[0]["blob"]).stat().st_mode) == 0o600
    assert stat.S_IMODE((folder / "checkpoints").stat().st_mode) == 0o700


def test_diff_shows_what_the_session_changed_per_file(tmp_path: Path) -> None:
    settings, session_id = two_turns(tmp_path)
    changes = {change.path: change for change in session_changes(settings, session_id)}
    assert set(changes) == {"app.py", "new.txt"}
    assert "-x = 1\n+x = 3\n" in changes["app.py"].diff and (changes["app.py"].added, changes["app.py"].removed) == (1, 1)
    assert changes["new.txt"].diff.startswith("--- /dev/null\n+++ b/new.txt\n")


def test_rewind_restores_files_and_conversation_and_a_resume_honours_it(tmp_path: Path) -> None:
    settings, session_id = two_turns(tmp_path)
    turns = user_turns(settings, session_id)
    assert [t.text for t in turns] == ["first change", "second change"]
    folder = session_folder(settings.sessions_dir, settings.workspace, session_id)
    size_before = (folder / "session.jsonl").stat().st_size
    first_line = (folder / "session.jsonl").read_bytes()[:200]
    restored = rewind_session(settings, session_id, turns[1].index, files=True)
    assert {(r.path, r.action) for r in restored} == {("app.py", "restored"), ("new.txt", "removed")}
    assert (settings.workspace / "app.py").read_text() == "x = 2\n" and not (settings.workspace / "new.txt").exists()
    assert (folder / "session.jsonl").read_bytes()[:200] == first_line and (folder / "session.jsonl").stat().st_size > size_before
    replay = load_replay(folder)
    assert [m.text for m in replay.conversation if m.role == "user" and m.text] == ["first change"]
    assert replay.conversation[-1].text == "Done one."
    with fake_server("anthropic", [Reply(text="After the rewind.")]) as server:
        resumed = build_agent(settings_for(tmp_path, server.url), resume_id=session_id)

        async def go() -> None:
            await drain(resumed.run("third"))
            await resumed.aclose()

        asyncio.run(go())
        sent = json.dumps(server.requests[0])
    assert "first change" in sent and "second change" not in sent and "third" in sent
    assert [t.text for t in user_turns(settings, session_id)] == ["first change", "third"]


def test_a_conversation_only_rewind_keeps_files_and_an_earlier_rewind_still_undoes_them(tmp_path: Path) -> None:
    settings, session_id = two_turns(tmp_path)
    first, second = user_turns(settings, session_id)
    assert rewind_session(settings, session_id, second.index, files=False) == []
    assert (settings.workspace / "app.py").read_text() == "x = 3\n"
    rewind_session(settings, session_id, first.index, files=True)
    assert (settings.workspace / "app.py").read_text() == "x = 1\n" and not (settings.workspace / "new.txt").exists()
    assert session_changes(settings, session_id) == []


def test_the_runners_interrupt_notes_are_not_offered_as_messages_to_rewind_to(tmp_path: Path) -> None:
    from pseudoclaude.llm import Message
    from pseudoclaude.session import open_session

    settings, session_id = two_turns(tmp_path)
    session, _ = open_session(settings.sessions_dir, settings.workspace, session_id)
    try:
        session.append_message(Message.user("[Request interrupted by user]"))
        session.append_message(Message.user("[Request interrupted: timeout]"))
        session.append_message(Message.user("third, typed [Request interrupted by user]"))
    finally:
        session.close()
    assert [turn.text for turn in user_turns(settings, session_id)] == ["first change", "second change", "third, typed [Request interrupted by user]"]


def test_the_changes_since_a_message_are_what_a_rewind_to_it_puts_back(tmp_path: Path) -> None:
    settings, session_id = two_turns(tmp_path)
    first, second = user_turns(settings, session_id)
    since_second = {change.path: (change.added, change.removed) for change in session_changes(settings, session_id, since=second.index)}
    assert since_second == {"new.txt": (1, 0), "app.py": (1, 1)}
    assert {change.path for change in session_changes(settings, session_id, since=first.index)} == {"new.txt", "app.py"}
    (settings.workspace / "app.py").write_text("x = 2\n")
    assert [change.path for change in session_changes(settings, session_id, since=second.index)] == ["new.txt"]
