"""Images in context governance: counted by the providers' published rules, old ones turned into notes naming their file."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Sequence

import pytest
from PIL import Image as Picture

from pseudoclaude.compact import BytesEstimator, ContextOutcome, ContextState, force_compact, manage_context
from pseudoclaude.compact.clear import CLEARED_RESULT, COLD_CACHE_SECONDS
from pseudoclaude.compact.estimate import NO_VISION_RULE, NOTE_TOKENS, TiktokenEstimator, image_rule
from pseudoclaude.compact.manage import compacted_conversation
from pseudoclaude.compact.select import select_recent
from pseudoclaude.compact.imagecount import ImageUsage
from pseudoclaude.compact.tokenizer import load_offline_encoding
from pseudoclaude.llm import Image, Request
from pseudoclaude.llm.messages import Message, ToolCall
from pseudoclaude.session import create_session, load_replay
from pseudoclaude.tools import builtin_registry
from tests.compact.support import RecordingSession, SummaryProvider
from tests.fakes.scripted import validate_conversation

WINDOW = 60_000  # shrink at 30,000 tokens when the batch saves >= 42,000 bytes (12,000 tokens: 8 screenshots)
PAYING_WINDOW = 40_000  # a batch of nine old screenshots pays here: 6 rounds left before a summary, little else in the prefix
CLEARABLE = builtin_registry().clearable_names()


def picture(n: int, width: int = 1568, height: int = 735) -> Image:
    """A real PNG (one colour per ``n``, so each has its own hash)."""
    out = io.BytesIO()
    Picture.new("RGB", (width, height), (n * 7 % 256, n * 13 % 256, 90)).save(out, "PNG")
    return Image("image/png", out.getvalue(), f"shot{n}.png", width, height)


def image_round(n: int) -> list[Message]:
    return [
        Message.assistant(f"look {n}", [ToolCall(f"c{n}", "read_file", '{"path": "shot.png"}')]),
        Message.tool(f"c{n}", f"Image shot{n}.png", images=(picture(n),)),
    ]


def history(rounds: int, attachment: Image | None = None) -> list[Message]:
    out = [Message.user("compare the screenshots", (attachment,) if attachment else ())]
    for n in range(rounds):
        out += image_round(n)
    return out


def state_for(session: object, model: str = "claude-sonnet-4-5", window: int = WINDOW, **kwargs: object) -> ContextState:
    return ContextState(
        model=model,
        context_window=window,
        session=session,
        estimator=BytesEstimator(provider=image_rule(model)),  # type: ignore[arg-type]
        clearable_tools=CLEARABLE,
        **kwargs,  # type: ignore[arg-type]
    )


def manage(conversation: list[Message], state: ContextState) -> ContextOutcome:
    return asyncio.run(manage_context(conversation, state, SummaryProvider()))


def results(conversation: tuple[Message, ...] | list[Message]) -> list[Message]:
    return [m for m in conversation if m.tool_result is not None]


def test_a_1568x735_screenshot_counts_about_1537_tokens_not_its_bytes() -> None:
    shot = picture(1)
    estimator = BytesEstimator(provider="anthropic")
    alone = estimator.count([Message.user("see")])
    assert estimator.count([Message.user("see", [shot])]) - alone == 1537
    assert BytesEstimator(provider="openai").count([Message.user("see", [shot])]) - alone == 85 + 170 * 4 * 2
    assert BytesEstimator().count([Message.user("see", [shot])]) - alone == 1537, "unknown provider: the larger rule"
    tool = Message.tool("c1", "Image shot1.png", images=(shot,))
    assert estimator.count([tool]) - estimator.count([Message.tool("c1", "Image shot1.png")]) == 1537


def test_the_model_picks_the_image_rule() -> None:
    assert (image_rule("claude-sonnet-4-5"), image_rule("gpt-4.1"), image_rule("some-local-model")) == ("anthropic", "openai", "")
    assert state_for(None, "claude-sonnet-4-5").estimate([Message.user("", [picture(2, 750, 750)])]) == 2 + 750


def test_calibration_learns_text_only_image_tokens_are_subtracted() -> None:
    state = state_for(None)
    text = "word " * 1_600  # 8,000 bytes, reported as 2,000 tokens: 4 bytes a token
    first = [Message.user("start")]
    state.note_sent(first)
    state.record_usage(1_000, 1)
    sent = first + [Message.assistant(text), Message.user("again", [picture(3)])]
    state.note_sent(sent)
    text_tokens = 2_000 - 1 + 2  # what the provider counts for the two text messages, about
    state.record_usage(1_000 + text_tokens + 1537, len(sent))
    learned = state.estimator.calibration()
    assert learned is not None and learned.samples == 1
    assert 3.6 < learned.bytes_per_token < 3.7, "sample ~4.0 blended at 0.3 from 3.5; counting the image as text would pull it below 3"


def test_old_images_become_notes_naming_their_file_the_latest_rounds_keep_theirs(tmp_path: Path) -> None:
    recorder = RecordingSession(tmp_path / "session" / "tool-results")
    state = state_for(recorder, window=PAYING_WINDOW)
    attachment = picture(99, 400, 300)
    conversation = history(12, attachment)
    state.record_usage(2_000, 1)
    outcome = manage(conversation, state)
    assert outcome.count("shrink") == 9 and not outcome.summarized
    assert outcome.action("shrink") is not None and outcome.action("shrink").data["images"] == 9  # type: ignore[union-attr]
    shown = results(outcome.conversation)
    for n, message in enumerate(shown[:9]):
        result = message.tool_result
        assert result is not None and result.images == ()
        original = picture(n)
        path = tmp_path / "session" / "images" / original.file_name
        assert result.content == (
            f"Image shot{n}.png\n[image {original.describe()} removed from the context to save room; "
            f"its file is kept at {path.absolute()} (read_file it to see it again)]"
        )
        assert path.read_bytes() == original.data
    assert [m.tool_result.images for m in shown[9:]] == [(picture(n),) for n in range(9, 12)], "the latest three rounds keep their images"
    assert outcome.conversation[0].images == (attachment,), "a user's attachment stays until a summary"
    assert validate_conversation(list(outcome.conversation)) is None
    recorded = [data for kind, data in recorder.events if kind == "replacement"]
    assert [d["call_id"] for d in recorded] == [f"c{n}" for n in range(9)]
    assert all(d["layer"] == "shrink" and d["drops_images"] is True and d["resets_anchor"] is True for d in recorded)
    assert state.anchor is None and outcome.after_tokens < outcome.before_tokens - 9 * 1500
    seen = ImageUsage(images=4, tokens=3 * 1537 + 160, notes=9, rule="anthropic")
    assert state.status(outcome.conversation).images == seen == state.status(conversation).images, "the ledger decides, applied or not"


def test_a_few_old_images_do_not_break_the_cache_on_their_own(tmp_path: Path) -> None:
    recorder = RecordingSession(tmp_path / "session" / "tool-results")
    state = state_for(recorder)
    state.record_usage(28_000, 1)
    outcome = manage(history(6), state)
    assert outcome.count("shrink") == 0 and all(m.tool_result.images for m in results(outcome.conversation))


def test_without_a_session_folder_images_stay(tmp_path: Path) -> None:
    state = state_for(None)
    state.record_usage(20_000, 1)
    outcome = manage(history(12), state)
    assert all(m.tool_result.images for m in results(outcome.conversation))


def test_a_resumed_session_sends_the_same_notes_and_no_image(tmp_path: Path) -> None:
    workspace = tmp_path / "work"
    workspace.mkdir()
    conversation = history(12)
    with create_session(tmp_path / "sessions", workspace, model="claude-sonnet-4-5", provider="anthropic") as session:
        for message in conversation:
            session.append_message(message)
        state = state_for(session, window=PAYING_WINDOW)
        state.record_usage(2_000, 1)
        first = manage(conversation, state)
        folder = session.folder
    assert first.count("shrink") == 9
    replay = load_replay(folder)
    assert replay.images_dropped() == frozenset(f"c{n}" for n in range(9))
    resumed = state_for(None, window=PAYING_WINDOW, replacements=replay.previews(), images_dropped=replay.images_dropped())
    again = manage(list(replay.conversation), resumed)
    assert [m.to_dict() for m in again.conversation] == [m.to_dict() for m in first.conversation]
    assert [i.data for m in again.conversation for i in m.all_images()] == [i.data for m in first.conversation for i in m.all_images()]
    assert len([i for m in again.conversation for i in m.all_images()]) == 3


def test_cold_cache_clearing_takes_a_results_images_with_its_text(tmp_path: Path) -> None:
    recorder = RecordingSession(tmp_path / "session" / "tool-results")
    clock = [10_000.0]
    state = state_for(recorder, last_call_at=clock[0] - COLD_CACHE_SECONDS - 1, clock=lambda: clock[0])
    outcome = manage(history(7), state)
    cleared = results(outcome.conversation)[:2]
    for n, message in enumerate(cleared):
        result = message.tool_result
        assert result is not None and result.images == ()
        assert result.content.startswith(CLEARED_RESULT + "\n[image shot") and picture(n).file_name in result.content
    assert all(m.tool_result.images for m in results(outcome.conversation)[2:])
    recorded = [d for kind, d in recorder.events if kind == "replacement"]
    assert [(d["call_id"], d["layer"], d["drops_images"]) for d in recorded] == [("c0", "clear", True), ("c1", "clear", True)]


def test_the_cut_never_separates_an_image_result_from_its_call() -> None:
    conversation = history(6)
    for keep in range(1, 4000, 97):
        tail = select_recent(conversation, keep_tokens=keep, keep_messages=1, count=BytesEstimator(provider="anthropic").count)
        assert tail[0].role != "tool"
        calls = {c.id for m in tail for c in m.tool_calls}
        assert all(m.tool_result.call_id in calls for m in results(tail))


def test_a_summary_keeps_the_tails_images_and_names_the_summarized_ones_with_their_file(tmp_path: Path) -> None:
    recorder = RecordingSession(tmp_path / "session" / "tool-results")
    state = state_for(recorder)
    attachment = picture(50, 300, 200)
    conversation = history(8, attachment)
    provider = SummaryProvider()
    outcome = asyncio.run(force_compact(conversation, state, provider))
    assert outcome.summarized and validate_conversation(list(outcome.conversation)) is None
    kept = results(outcome.conversation)
    assert kept and all(m.tool_result.images for m in kept), "kept tail images stay"
    calls = {c.id for m in outcome.conversation for c in m.tool_calls}
    assert all(m.tool_result.call_id in calls for m in kept)
    prompt = provider.requests[-1].messages[-1].text
    assert not provider.requests[-1].messages[-1].images
    path = tmp_path / "session" / "images" / picture(0).file_name
    assert f"[image {picture(0).describe()}, kept at {path.absolute()}]" in prompt and path.read_bytes() == picture(0).data
    assert f"[image {attachment.describe()}, kept at " in prompt, "the user's attachment is named in the transcript"
    recorded = [d for kind, d in recorder.events if kind == "compaction"]
    assert recorded and any(i == picture(7) for m in recorded[0]["messages"] for i in m.all_images())  # type: ignore[attr-defined]


def test_a_merged_leading_user_message_keeps_its_images() -> None:
    shot = picture(4)
    merged = compacted_conversation("the summary", [Message.user("and this one", [shot]), Message.assistant("ok")])
    assert merged[2].images == (shot,) and merged[2].text.endswith("and this one")


def test_images_whose_file_cannot_be_kept_stay_with_a_warning() -> None:
    state = state_for(RecordingSession(None), window=PAYING_WINDOW)
    state.record_usage(2_000, 1)
    outcome = manage(history(12), state)
    assert all(m.tool_result.images for m in results(outcome.conversation))
    assert any("could not keep the images of tool result c0 in the session folder" in w for w in outcome.warnings)
    assert state.images_dropped == frozenset()


def test_the_tokenizer_estimate_counts_images_by_openais_tiles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    encoding = load_offline_encoding("gpt-4o")
    assert encoding is not None
    estimator = TiktokenEstimator(encoding)
    shot = picture(5)
    assert estimator.count([Message.user("see", [shot])]) - estimator.count([Message.user("see")]) == 85 + 170 * 4 * 2
    state = ContextState(model="gpt-4o", context_window=WINDOW)
    assert state.estimator_name == "tiktoken:o200k_base"
    assert state.estimate([Message.user("see", [shot])]) - state.estimate([Message.user("see")]) == 1445


def test_a_model_without_vision_counts_the_note_it_gets_not_the_image(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    assert image_rule("o3-mini") == NO_VISION_RULE
    state = ContextState(model="o3-mini", context_window=WINDOW)
    assert state.estimate([Message.user("see", [picture(6)])]) - state.estimate([Message.user("see")]) == NOTE_TOKENS


def test_a_summary_asked_in_place_sends_the_images_as_the_loop_does(tmp_path: Path) -> None:
    shot = picture(8, 200, 100)
    conversation = history(3) + [Message.user("and now this one", [shot])]
    provider = SummaryProvider()

    def shape(messages: Sequence[Message]) -> Request:
        return Request(model="m", system="the agent", messages=tuple(messages), tools=(), max_tokens=4096)

    state = state_for(RecordingSession(tmp_path / "session" / "tool-results"))
    outcome = asyncio.run(force_compact(conversation, state, provider, shape=shape))
    assert outcome.summarized
    asked = provider.requests[0].messages
    assert asked[-1].images == (shot,) and asked[-1].text.startswith("and now this one\n\n")
    assert [m.tool_result.images for m in results(list(asked))] == [(picture(n),) for n in range(3)]
