"""Layer 1 previews: head and tail, the path of the complete output, shaped results left alone."""

from __future__ import annotations

from pathlib import Path

from pseudoclaude.compact import PREVIEW_HEAD_BYTES, ContextState, offload_tool_results
from pseudoclaude.compact.budget import PREVIEW_TAIL_BYTES, PREVIEW_TAIL_LINES
from pseudoclaude.compact.preview import build_preview, preview_tail
from pseudoclaude.llm.messages import Message, ToolCall
from tests.compact.support import RecordingSession

LONG = "".join(f"line {i} of the output\n" for i in range(4_000))  # 95,890 bytes


def _state(spill_dir: Path, session: RecordingSession | None = None) -> ContextState:
    return ContextState(model="claude-test", context_window=200_000, session=session or RecordingSession(spill_dir))


def _round(*results: Message) -> list[Message]:
    calls = [ToolCall(id=m.tool_result.call_id, name="run_command", arguments="{}") for m in results if m.tool_result]
    return [Message.user("go"), Message.assistant("", calls), *results]


def _content(conversation: list[Message], index: int) -> str:
    result = conversation[index].tool_result
    assert result is not None
    return result.content


def test_a_shaped_result_is_not_spilled_by_the_single_limit(tmp_path: Path) -> None:
    shaped = "x" * 60_000  # a whole-file page at 200k: over the 50,000-byte single limit
    result = offload_tool_results(_round(Message.tool("c1", shaped, shaped=True)), _state(tmp_path / "spill"))
    assert result.offloaded_count == 0
    assert _content(result.conversation, 2) == shaped
    assert not (tmp_path / "spill").exists()


def test_an_unshaped_result_over_the_single_limit_is_still_spilled(tmp_path: Path) -> None:
    result = offload_tool_results(_round(Message.tool("c1", LONG)), _state(tmp_path / "spill"))
    assert result.offloaded_count == 1


def test_an_aggregate_replaced_shaped_result_names_the_complete_output_and_writes_nothing(tmp_path: Path) -> None:
    full = tmp_path / "complete.txt"
    full.write_text("complete output\n" * 20_000)  # 320,000 bytes
    session = RecordingSession(tmp_path / "spill")
    results = [Message.tool(f"c{n}", f"{n}" * (45_000 + n), shaped=True, full_output=str(full)) for n in range(5)]
    result = offload_tool_results(_round(*results), _state(tmp_path, session))
    assert result.offloaded_count == 1
    preview = _content(result.conversation, 6)
    assert preview.startswith("[content offloaded] original size: 320000 bytes\n")
    assert f"[saved to] {full}\n" in preview and "[replaced result] 45004 bytes" in preview
    assert not (tmp_path / "spill").exists(), "no new spill file when the tool saved the complete output"
    ((kind, entry),) = session.events
    assert entry["path"] == str(full) and entry["original_bytes"] == 320_000 and entry["layer"] == "offload"


def test_an_aggregate_replaced_shaped_result_without_a_saved_output_is_spilled(tmp_path: Path) -> None:
    results = [Message.tool(f"c{n}", f"{n}" * 45_000, shaped=True) for n in range(5)]
    result = offload_tool_results(_round(*results), _state(tmp_path / "spill"))
    preview = _content(result.conversation, 2)
    path = Path(next(line for line in preview.splitlines() if line.startswith("[saved to] ")).removeprefix("[saved to] "))
    assert path.read_text() == "0" * 45_000


def test_a_missing_complete_output_is_never_named(tmp_path: Path) -> None:
    gone = tmp_path / "deleted.txt"
    results = [Message.tool(f"c{n}", f"{n}" * 45_000, shaped=True, full_output=str(gone)) for n in range(5)]
    result = offload_tool_results(_round(*results), _state(tmp_path / "spill"))
    preview = _content(result.conversation, 2)
    assert str(gone) not in preview and "[saved to] " + str(tmp_path / "spill") in preview


def test_the_preview_holds_the_head_and_the_tail(tmp_path: Path) -> None:
    result = offload_tool_results(_round(Message.tool("c1", LONG)), _state(tmp_path / "spill"))
    preview = _content(result.conversation, 2)
    assert preview.startswith(f"[content offloaded] original size: {len(LONG)} bytes\n")
    assert "line 0 of the output\n" in preview and "line 19 of the output\n" in preview
    assert "line 3999 of the output\n" in preview, "the last line of a long output reaches the model"
    assert "line 2000 of the output" not in preview
    assert "bytes, " in preview and "line breaks omitted" in preview


def test_the_head_keeps_the_seed_cap_of_2048_bytes() -> None:
    content = "a" * 10_000 + "\n" + "the end\n"
    preview = build_preview(content, "/spill/c1.txt")
    head = preview.split("[head preview]\n", 1)[1].split("\n", 1)[0]
    assert len(head.encode()) == PREVIEW_HEAD_BYTES
    assert preview.split("[tail preview]\n", 1)[1].startswith("a" * 100) and "the end\n" in preview


def test_the_tail_is_capped_in_lines_and_bytes_on_a_character_boundary() -> None:
    lines = preview_tail("".join(f"{i}\n" for i in range(1_000)))
    assert lines.count("\n") == PREVIEW_TAIL_LINES and lines.endswith("999\n")
    tail = preview_tail("汉" * 5_000)
    assert len(tail.encode()) == PREVIEW_TAIL_BYTES - PREVIEW_TAIL_BYTES % 3 and set(tail) == {"汉"}


def test_a_short_content_is_previewed_whole_without_an_omission_marker() -> None:
    content = "".join(f"{i}\n" for i in range(50))
    preview = build_preview(content, "/spill/c1.txt")
    assert "omitted" not in preview
    assert all(f"\n{i}\n" in preview for i in range(50))


def test_previews_are_byte_stable() -> None:
    assert build_preview(LONG, "/spill/c1.txt") == build_preview(LONG, "/spill/c1.txt")


def test_a_reused_call_id_is_told_apart_from_a_shaped_preview(tmp_path: Path) -> None:
    full = tmp_path / "complete.txt"
    full.write_text("y" * 300_000)
    state = _state(tmp_path / "spill")
    results = [Message.tool(f"c{n}", f"{n}" * (45_000 + n), shaped=True, full_output=str(full)) for n in range(5)]
    first = offload_tool_results(_round(*results), state)
    grown = [*first.conversation, Message.user("again"), Message.assistant("", [ToolCall("c4", "run_command", "{}")]), Message.tool("c4", "small")]
    second = offload_tool_results(grown, state)
    assert _content(second.conversation, -1) == "small"
    assert _content(second.conversation, 6) == _content(first.conversation, 6)
