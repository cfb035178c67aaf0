"""The committed v1 examples must always resume: they are the compatibility test."""

from __future__ import annotations

from pathlib import Path

from pseudoclaude.llm.messages import Message, ToolCall
from pseudoclaude.session import load_replay

EXAMPLES = Path(__file__).resolve().parents[2] / "sessions" / "examples" / "v1"


def test_simple_chat_replays() -> None:
    replay = load_replay(EXAMPLES / "simple-chat")
    assert [m.role for m in replay.conversation] == ["user", "assistant", "user", "assistant"]
    assert replay.conversation[0] == Message.user("What does `git rebase --onto` do?")
    assert replay.meta.title == "What does `git rebase --onto` do?"
    assert (replay.meta.provider, replay.meta.model) == ("anthropic", "claude-sonnet-4-5")
    assert replay.anchor == (506, 3)
    assert (replay.skipped_lines, replay.warnings) == (0, ())


def test_tools_spill_compaction_replays_from_the_boundary() -> None:
    replay = load_replay(EXAMPLES / "tools-spill-compaction")
    conversation = replay.conversation
    assert conversation[0].text.startswith("Summary of the earlier conversation")
    assert [m.role for m in conversation] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    assert conversation[3].tool_calls == (ToolCall("call_grep_2", "grep", '{"pattern": "FAIL", "path": "ci.log"}'),)
    assert conversation[-1].text == "Done: the test now pins its timezone to UTC+2."
    assert len(replay.transcript) == 10 and replay.boundaries == (6,)
    assert replay.anchor == (890, 9)
    assert (replay.skipped_lines, replay.warnings) == (0, ())


def test_tools_spill_compaction_replacement_points_at_its_spill_file() -> None:
    replay = load_replay(EXAMPLES / "tools-spill-compaction")
    replacement = replay.replacements["call_read_1"]
    spilled = Path(replacement.path)
    assert spilled.is_file()
    assert spilled.stat().st_size == replacement.original_bytes
    original = replay.transcript[2].tool_result
    assert original is not None and original.call_id == "call_read_1"
    assert spilled.read_text() == original.content
    assert replacement.preview.startswith(f"[content offloaded] original size: {replacement.original_bytes} bytes")


def test_interrupted_tool_call_replays_with_its_orphan() -> None:
    replay = load_replay(EXAMPLES / "interrupted-tool-call")
    assert replay.conversation == (
        Message.user("Run the full test suite"),
        Message.assistant("Running the tests.", [ToolCall("toolu_run_1", "run_command", '{"command": "pytest -q"}')]),
    )
    assert (replay.skipped_lines, replay.warnings) == (0, ())


def test_images_replays_the_exact_bytes_and_the_dropped_images() -> None:
    replay = load_replay(EXAMPLES / "images")
    attached = replay.conversation[0].images[0]
    read = replay.conversation[2].all_images()[0]
    assert (attached.name, attached.width, attached.height, attached.media_type) == ("button.png", 8, 6, "image/png")
    assert (read.name, read.width, read.height) == ("docs/expected.png", 12, 9)
    folder = EXAMPLES / "images" / "images"
    assert attached.data == (folder / attached.file_name).read_bytes() and read.data == (folder / read.file_name).read_bytes()
    assert replay.images_dropped() == frozenset({"toolu_read_1"})
    assert replay.replacements["toolu_read_1"].preview.endswith(f"/images/{read.file_name} (read_file it to see it again)]")
    assert replay.anchor is None, "the replacement rewrote text the provider had counted"
    assert (replay.meta.format_version, replay.skipped_lines, replay.warnings) == ("1.5", 0, ())


def test_session_facts_replays_the_stamp_the_effort_and_the_mode() -> None:
    replay = load_replay(EXAMPLES / "session-facts")
    assert [m.role for m in replay.conversation] == ["user", "assistant", "tool", "assistant"]
    [stamp] = replay.read_stamps
    assert (stamp.path, stamp.size, stamp.position) == ("/home/user/shop/src/shop/cart.py", 41, 2)
    assert (replay.effort_recorded, replay.effort, replay.mode) == (True, "low", "plan")
    assert (replay.meta.format_version, replay.skipped_lines, replay.warnings) == ("1.6", 0, ())
