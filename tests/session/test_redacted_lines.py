"""Every line of a session file is redacted as it is written: the key is ``***`` and the file still replays."""

from __future__ import annotations

from pathlib import Path

from pseudoclaude.llm import Message
from pseudoclaude.redaction import Redactor
from pseudoclaude.session import SubrunRecorder, create_session, load_replay, open_session

KEY = "sk-ant-test-secret-123"


def test_entries_are_written_with_the_key_masked_and_replay(sessions_dir: Path, workspace: Path) -> None:
    redactor = Redactor.of([KEY])
    session = create_session(sessions_dir, workspace, model="m", provider="anthropic", redactor=redactor)
    session.append_message(Message.user(f"my key is {KEY}"))
    session.append_error("provider", f"401 for key {KEY}")
    session.close()
    resumed, _ = open_session(sessions_dir, workspace, session.id, redactor=redactor)
    resumed.append_message(Message.user(f'quoted "{KEY}"\n'))
    resumed.close()
    assert KEY not in session.jsonl_path.read_text()
    replay = load_replay(session.jsonl_path.parent)
    assert [message.text for message in replay.transcript] == ["my key is ***", 'quoted "***"\n']


def test_a_sub_agents_file_is_redacted_too(tmp_path: Path) -> None:
    recorder = SubrunRecorder(
        tmp_path,
        "call-1",
        agent="explore",
        description=f"look for {KEY}",
        model="m",
        provider="anthropic",
        workspace=tmp_path,
        redactor=Redactor.of([KEY]),
    )
    recorder.append_message(Message.assistant(f"found {KEY}"))
    recorder.close()
    text = recorder.path.read_text()
    assert KEY not in text and "found ***" in text and "look for ***" in text
