from __future__ import annotations

from pathlib import Path

from pseudoclaude.compact import (
    PREVIEW_HEAD_BYTES,
    PREVIEW_HEAD_LINES,
    SINGLE_TOOL_RESULT_LIMIT_BYTES,
    ContextState,
    offload_tool_results,
)
from pseudoclaude.compact.preview import preview_head
from pseudoclaude.llm.messages import Message
from tests.compact.support import RecordingSession, tool_round

BIG = "line of output\n" * 4_000  # 60,000 bytes


def _runtime(spill_dir: Path | None, session: RecordingSession | None = None, **kwargs: object) -> ContextState:
    """A state whose session spills into ``spill_dir`` (None: no session, unless one is given)."""
    if session is None and spill_dir is not None:
        session = RecordingSession()
    if session is not None:
        session.spill_dir = spill_dir
    return ContextState(model="claude-test", context_window=200_000, session=session, **kwargs)  # type: ignore[arg-type]


def _conversation(*rounds: list[Message]) -> list[Message]:
    out = [Message.user("go")]
    for messages in rounds:
        out.extend(messages)
    return out


def _saved_path(preview: str) -> Path:
    line = next(line for line in preview.splitlines() if line.startswith("[saved to] "))
    return Path(line.removeprefix("[saved to] "))


def test_result_over_single_limit_is_replaced_by_a_preview(tmp_path: Path) -> None:
    conversation = _conversation(tool_round([("call_1", BIG)]))
    result = offload_tool_results(conversation, _runtime(tmp_path))
    preview = result.conversation[2].tool_result.content  # type: ignore[union-attr]
    assert result.offloaded_count == 1
    assert preview.startswith(f"[content offloaded] original size: {len(BIG)} bytes\n")
    assert "read_file" in preview and "offset/limit" in preview and "Do not guess" in preview


def test_spilled_file_holds_the_whole_original_content(tmp_path: Path) -> None:
    conversation = _conversation(tool_round([("call_1", BIG)]))
    result = offload_tool_results(conversation, _runtime(tmp_path))
    path = _saved_path(result.conversation[2].tool_result.content)  # type: ignore[union-attr]
    assert path.parent == tmp_path
    assert path.read_text(encoding="utf-8") == BIG


def test_result_at_the_limit_stays(tmp_path: Path) -> None:
    content = "x" * SINGLE_TOOL_RESULT_LIMIT_BYTES
    result = offload_tool_results(_conversation(tool_round([("c", content)])), _runtime(tmp_path))
    assert result.offloaded_count == 0
    assert result.conversation[2].tool_result.content == content  # type: ignore[union-attr]


def test_preview_head_is_at_most_twenty_lines() -> None:
    head = preview_head("".join(f"line {i}\n" for i in range(100)))
    assert head.count("\n") == PREVIEW_HEAD_LINES
    assert head.endswith("line 19\n")


def test_preview_head_cuts_on_a_utf8_boundary() -> None:
    head = preview_head("汉" * 5_000)  # 3 bytes each, no newline
    encoded = head.encode("utf-8")
    assert len(encoded) <= PREVIEW_HEAD_BYTES
    assert len(encoded) == PREVIEW_HEAD_BYTES - PREVIEW_HEAD_BYTES % 3
    assert set(head) == {"汉"}


def test_second_pass_reuses_the_preview_without_writing_again(tmp_path: Path) -> None:
    runtime = _runtime(tmp_path)
    first = offload_tool_results(_conversation(tool_round([("call_1", BIG)])), runtime)
    path = _saved_path(first.conversation[2].tool_result.content)  # type: ignore[union-attr]
    path.unlink()
    again = offload_tool_results(_conversation(tool_round([("call_1", BIG)])), runtime)
    assert again.offloaded_count == 0
    assert again.conversation[2] == first.conversation[2]
    assert not path.exists()


def test_failed_spill_keeps_the_original_warns_and_is_retried(tmp_path: Path) -> None:
    blocker = tmp_path / "spill"
    blocker.write_text("a file where the directory should be")
    runtime = _runtime(blocker)
    conversation = _conversation(tool_round([("call_1", BIG)]))
    failed = offload_tool_results(conversation, runtime)
    assert failed.offloaded_count == 0
    assert failed.conversation[2].tool_result.content == BIG  # type: ignore[union-attr]
    assert len(failed.warnings) == 1 and "call_1" in failed.warnings[0]
    blocker.unlink()
    retried = offload_tool_results(failed.conversation, runtime)
    assert retried.offloaded_count == 1
    assert _saved_path(retried.conversation[2].tool_result.content).read_text() == BIG  # type: ignore[union-attr]


def test_round_over_aggregate_limit_spills_largest_first(tmp_path: Path) -> None:
    sizes = {"a": 45_000, "b": 49_000, "c": 30_000, "d": 48_000, "e": 47_000}  # 219,000 bytes
    runtime = _runtime(tmp_path)
    result = offload_tool_results(_conversation(tool_round([(k, k * n) for k, n in sizes.items()])), runtime)
    replaced = [m.tool_result.call_id for m in result.conversation if m.tool_result and m.tool_result.content.startswith("[content offloaded]")]  # type: ignore[union-attr]
    assert replaced == ["b"]
    assert runtime.decision("d") == ("keep", "")


def test_aggregate_limit_applies_per_round(tmp_path: Path) -> None:
    first = tool_round([("a", "a" * 45_000), ("b", "b" * 45_000)])
    second = tool_round([("c", "c" * 45_000), ("d", "d" * 45_000)])
    result = offload_tool_results(_conversation(first, second), _runtime(tmp_path))
    assert result.offloaded_count == 0


def test_kept_decision_is_never_revisited(tmp_path: Path) -> None:
    runtime = _runtime(tmp_path)
    offload_tool_results(_conversation(tool_round([("a", "a" * 100)])), runtime)
    later = offload_tool_results(_conversation(tool_round([("a", "a" * 60_000)])), runtime)
    assert later.offloaded_count == 0
    assert runtime.decision("a") == ("keep", "")


def test_replacement_is_recorded_after_the_file_exists(tmp_path: Path) -> None:
    session = RecordingSession()
    result = offload_tool_results(_conversation(tool_round([("call_1", BIG)])), _runtime(tmp_path, session=session))
    ((kind, entry),) = session.events
    assert kind == "replacement"
    assert entry["call_id"] == "call_1" and entry["original_bytes"] == len(BIG)
    assert entry["layer"] == "offload" and entry["resets_anchor"] is False, "an offload only replaces results after the anchor"
    assert entry["preview"] == result.conversation[2].tool_result.content  # type: ignore[union-attr]
    assert Path(str(entry["path"])).read_text() == BIG


def test_failed_spill_is_not_recorded(tmp_path: Path) -> None:
    session = RecordingSession()
    blocker = tmp_path / "spill"
    blocker.write_text("x")
    offload_tool_results(_conversation(tool_round([("call_1", BIG)])), _runtime(blocker, session=session))
    assert session.events == []


def test_ids_that_sanitize_alike_get_different_files(tmp_path: Path) -> None:
    runtime = _runtime(tmp_path)
    result = offload_tool_results(_conversation(tool_round([("a/b", BIG), ("a_b", BIG.upper())])), runtime)
    first, second = (_saved_path(m.tool_result.content) for m in result.conversation[2:4])  # type: ignore[union-attr]
    assert first != second
    assert first.read_text() == BIG and second.read_text() == BIG.upper()


def test_existing_spill_file_with_other_content_is_not_reused(tmp_path: Path) -> None:
    stale = _saved_path(offload_tool_results(_conversation(tool_round([("call_1", "old" * 20_000)])), _runtime(tmp_path)).conversation[2].tool_result.content)  # type: ignore[union-attr]
    fresh = offload_tool_results(_conversation(tool_round([("call_1", BIG)])), _runtime(tmp_path))
    path = _saved_path(fresh.conversation[2].tool_result.content)  # type: ignore[union-attr]
    assert path != stale
    assert path.read_text() == BIG and stale.read_text() == "old" * 20_000


def test_existing_spill_file_with_same_content_is_reused(tmp_path: Path) -> None:
    conversation = _conversation(tool_round([("call_1", BIG)]))
    one = _saved_path(offload_tool_results(conversation, _runtime(tmp_path)).conversation[2].tool_result.content)  # type: ignore[union-attr]
    two = _saved_path(offload_tool_results(conversation, _runtime(tmp_path)).conversation[2].tool_result.content)  # type: ignore[union-attr]
    assert one == two
    assert len(list(tmp_path.iterdir())) == 1


def test_restored_replacements_send_the_same_previews_without_spilling(tmp_path: Path) -> None:
    runtime = _runtime(tmp_path)
    original = offload_tool_results(_conversation(tool_round([("call_1", BIG)])), runtime)
    resumed = _runtime(tmp_path / "elsewhere", replacements=runtime.replacements)
    again = offload_tool_results(_conversation(tool_round([("call_1", BIG)])), resumed)
    assert again.conversation == original.conversation
    assert not (tmp_path / "elsewhere").exists()


def test_without_spill_dir_content_stays_and_warns_once() -> None:
    runtime = _runtime(None)
    first = offload_tool_results(_conversation(tool_round([("a", BIG)])), runtime)
    second = offload_tool_results(first.conversation + tool_round([("b", BIG)]), runtime)
    assert first.conversation[2].tool_result.content == BIG  # type: ignore[union-attr]
    assert len(first.warnings) == 1 and second.warnings == ()


def test_caller_passing_original_objects_still_gets_previews(tmp_path: Path) -> None:
    runtime = _runtime(tmp_path)
    original = _conversation(tool_round([("a", BIG)]))
    first = offload_tool_results(original, runtime)
    grown = original + tool_round([("b", "small")])
    second = offload_tool_results(grown, runtime)
    assert second.conversation[2] == first.conversation[2]


def test_results_appended_after_a_pass_are_decided_on_the_next(tmp_path: Path) -> None:
    runtime = _runtime(tmp_path)
    first = offload_tool_results(_conversation(tool_round([("a", "small")])), runtime)
    grown = first.conversation + [Message.assistant("next")] + [Message.user("go on")] + tool_round([("b", BIG)])
    second = offload_tool_results(grown, runtime)
    assert second.offloaded_count == 1
    assert second.conversation[-1].tool_result.content.startswith("[content offloaded]")  # type: ignore[union-attr]
    assert second.conversation[:2] == first.conversation[:2]


def test_reused_call_id_never_gets_another_results_preview(tmp_path: Path) -> None:
    runtime = _runtime(tmp_path)
    first = offload_tool_results(_conversation(tool_round([("call_0", BIG)])), runtime)
    grown = first.conversation + [Message.user("again")] + tool_round([("call_0", "a different, small result")])
    second = offload_tool_results(grown, runtime)
    assert second.conversation[-1].tool_result.content == "a different, small result"  # type: ignore[union-attr]
    assert second.conversation[2] == first.conversation[2]


class _UnrecordableSession(RecordingSession):
    """A session whose disk refuses the replacement entry (the spill file itself was written)."""

    def append_replacement(self, call_id: str, preview: str, **details: object) -> None:
        raise OSError(28, "No space left on device")


def test_a_replacement_the_session_cannot_record_is_still_made_and_said(tmp_path: Path) -> None:
    result = offload_tool_results(_conversation(tool_round([("call_1", BIG)])), _runtime(tmp_path, session=_UnrecordableSession()))
    assert result.conversation[2].tool_result.content != BIG  # type: ignore[union-attr]
    assert result.offloaded_count == 1
    assert len(result.warnings) == 1 and "call_1" in result.warnings[0] and "No space left" in result.warnings[0]
