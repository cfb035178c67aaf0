"""The session exporter, on session files the real writer wrote (and the committed examples)."""

from __future__ import annotations

import json
from pathlib import Path

from pseudoclaude.llm.messages import Message, ToolCall
from pseudoclaude.session import create_session, default_export_name, export_session, load_replay, write_export

EXAMPLES = Path(__file__).resolve().parents[2] / "sessions" / "examples" / "v1"
LONG_RESULT = "".join(f"line {n}\n" for n in range(1, 101))


def write_session(sessions_dir: Path, workspace: Path) -> Path:
    """A session with a question, a read whose long result was offloaded, a compaction, a failed command and an answer."""
    with create_session(sessions_dir, workspace, model="claude-sonnet-4-5", provider="anthropic") as session:
        session.set_title("Fix the flaky test")
        session.append_message(Message.user("Why is test_dates flaky?"))
        session.append_message(Message.assistant("Let me read it.", [ToolCall("c1", "read_file", '{"path": "tests/test_dates.py"}')]))
        session.append_message(Message.tool("c1", LONG_RESULT))
        spilled = session.write_spill("c1", LONG_RESULT)
        session.append_replacement("c1", "[content offloaded]", layer="offload", original_bytes=len(LONG_RESULT), path=str(spilled))
        summary = Message.user("Summary of the earlier conversation: the test reads the local timezone.")
        session.append_compaction(summary="the test reads the local timezone", messages=[summary], trigger="manual", before_tokens=900, after_tokens=80)
        session.append_message(Message.user("Run it with ```fences``` in the output"))
        session.append_message(Message.assistant("", [ToolCall("c2", "run_command", '{"command": "pytest -q"}')]))
        session.append_message(Message.tool("c2", "```\nFAILED tests/test_dates.py\n```\n[exit code 1]", is_error=True))
        session.append_message(Message.assistant("It fails on **UTC** machines: pin the timezone."))
        return session.folder


def test_markdown_has_every_message_each_call_with_its_arguments_and_the_compaction_mark(sessions_dir: Path, workspace: Path) -> None:
    text = export_session(load_replay(write_session(sessions_dir, workspace)), "md")
    lines = text.splitlines()
    assert lines[0] == "# Fix the flaky test"
    assert lines.count("## User") == 2 and lines.count("## Assistant") == 3
    assert "Why is test_dates flaky?" in lines and "It fails on **UTC** machines: pin the timezone." in lines
    assert "**Tool call:** `read_file`" in lines and '  "path": "tests/test_dates.py"' in lines
    assert '  "command": "pytest -q"' in lines
    mark = lines.index("*Context compacted here: the model continued from a summary of the conversation above.*")
    assert lines.index("Why is test_dates flaky?") < mark < lines.index("Run it with ```fences``` in the output")
    assert "Summary of the earlier conversation" not in text, "the transcript is what was said, not the model's summary"


def test_a_long_result_is_shortened_counted_and_names_its_saved_file(sessions_dir: Path, workspace: Path) -> None:
    folder = write_session(sessions_dir, workspace)
    lines = export_session(load_replay(folder), "md").splitlines()
    assert f"**Result of** `read_file` ({len(LONG_RESULT):,} bytes, first 20 of 100 lines)" in lines
    assert "line 20" in lines and "line 21" not in lines
    assert "… 80 more lines" in lines
    [saved] = [line for line in lines if line.startswith("Full output: ")]
    assert Path(saved.removeprefix("Full output: `").rstrip("`")).read_text() == LONG_RESULT


def test_a_result_with_fences_cannot_close_its_block_early_and_an_error_says_so(sessions_dir: Path, workspace: Path) -> None:
    lines = export_session(load_replay(write_session(sessions_dir, workspace)), "md").splitlines()
    head = lines.index(next(line for line in lines if line.startswith("**Error from** `run_command`")))
    assert lines[head + 2] == "````" and lines[head + 3] == "```" and lines[head + 7] == "````"


def test_json_keeps_results_whole_and_marks_the_compaction_in_order(sessions_dir: Path, workspace: Path) -> None:
    replay = load_replay(write_session(sessions_dir, workspace))
    document = json.loads(export_session(replay, "json"))
    assert (document["session_id"], document["title"], document["model"]) == (replay.meta.id, "Fix the flaky test", "claude-sonnet-4-5")
    kinds = [e["type"] if e["type"] == "compaction" else e["role"] for e in document["entries"]]
    assert kinds == ["user", "assistant", "tool", "compaction", "user", "assistant", "tool", "assistant"]
    read = document["entries"][2]["tool_result"]
    assert read["content"] == LONG_RESULT and Path(read["offloaded_to"]).read_text() == LONG_RESULT
    assert document["entries"][1]["tool_calls"] == [{"id": "c1", "name": "read_file", "arguments": {"path": "tests/test_dates.py"}}]
    assert document["entries"][6]["tool_result"]["is_error"] is True


def test_the_committed_examples_export_in_both_formats() -> None:
    for example in sorted(EXAMPLES.iterdir()):
        replay = load_replay(example)
        markdown = export_session(replay, "md")
        assert markdown.startswith("# ") and markdown.endswith("\n"), example.name
        assert len(json.loads(export_session(replay, "json"))["entries"]) == len(replay.transcript) + len(replay.boundaries)
    images = export_session(load_replay(EXAMPLES / "images"), "md")
    assert "- attached image: button.png (8x6 PNG" in images


def test_the_default_name_is_the_session_id_and_write_makes_the_folder(tmp_path: Path) -> None:
    assert default_export_name("20261129-232048-b9ebd2", "json") == "20261129-232048-b9ebd2.json"
    written = write_export("# hi\n", tmp_path / "out" / "chat.md")
    assert written == (tmp_path / "out" / "chat.md").absolute() and written.read_text() == "# hi\n"
