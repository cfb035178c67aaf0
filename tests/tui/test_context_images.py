"""``/context`` shows the images in the window on a line of their own: seen now, their tokens, those that became notes."""

from __future__ import annotations

import asyncio
import io
import re
from pathlib import Path

from PIL import Image as Picture
from rich.console import Console

from pseudoclaude.compact.imagenotes import with_notes
from pseudoclaude.config import Flags, load_settings
from pseudoclaude.llm import Image
from pseudoclaude.llm.messages import Message, ToolCall
from pseudoclaude.session import create_session
from pseudoclaude.tui.repl import Repl
from pseudoclaude.tui.slash import dispatch


def picture(name: str, shade: int, width: int = 1000, height: int = 750) -> Image:
    """A real PNG of 1000x750: 1,000 tokens by Anthropic's w*h/750."""
    out = io.BytesIO()
    Picture.new("RGB", (width, height), (shade, 40, 90)).save(out, "PNG")
    return Image("image/png", out.getvalue(), name, width, height)


def make_repl(tmp_path: Path, model: str = "claude-sonnet-4-5") -> Repl:
    env = {"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k", "PSEUDOCLAUDE_HOME": str(tmp_path / "home")}
    settings = load_settings(tmp_path, Flags(model=model), environ=env)
    return Repl(settings, Console(file=io.StringIO(), width=200, color_system=None))


def write_session(repl: Repl, *, drop: bool) -> None:
    """A session that attached ui.png and read plot.png; with ``drop``, the shrink tier replaced plot.png by its note."""
    settings = repl.settings
    attached, read = picture("ui.png", 10), picture("plot.png", 200)
    with create_session(settings.sessions_dir, settings.workspace, model=settings.model, provider=settings.provider) as session:
        for message in (
            Message.user("the button is misaligned, see @ui.png", (attached,)),
            Message.assistant("Let me look at the plot too.", [ToolCall("c1", "read_file", '{"path": "plot.png"}')]),
            Message.tool("c1", "Image plot.png", images=(read,)),
            Message.assistant("The button sits 4px low."),
        ):
            session.append_message(message)
        if drop:
            preview = with_notes("Image plot.png", (read,), session)
            session.append_replacement("c1", preview, layer="shrink", original_bytes=len(read.data), resets_anchor=True, drops_images=True)


def context_output(repl: Repl, *, resume: bool = True) -> str:
    async def go() -> None:
        assert await repl.open_agent(continue_latest=resume)
        try:
            await dispatch(repl, "/context")
        finally:
            await repl.close_agent()

    asyncio.run(go())
    return str(repl.console.file.getvalue())  # type: ignore[attr-defined]


def test_context_counts_the_images_the_model_sees_and_the_ones_that_became_notes(tmp_path: Path) -> None:
    repl = make_repl(tmp_path)
    write_session(repl, drop=True)
    text = context_output(repl)
    line = re.search(r"\n  images +([\d,]+)  tokens of them: (.*)\n", text)
    assert line is not None, text
    assert line.group(1) == "1,000"
    assert line.group(2) == "1 image the model sees (Anthropic's rule, w×h/750), 1 older one replaced by a note naming its file"


def test_without_notes_both_images_count_and_the_percentage_includes_them(tmp_path: Path) -> None:
    repl = make_repl(tmp_path)
    write_session(repl, drop=False)

    async def go() -> None:
        assert await repl.open_agent(continue_latest=True)
        assert repl.agent is not None
        try:
            view, status = repl.agent.context_breakdown(), repl.agent.status()
            assert (view.images, view.image_tokens, view.image_notes) == (2, 2_000, 0)
            assert 2_000 < view.message_tokens < 2_100, "the messages' text is a few dozen tokens; the two images 2,000"
            assert status.context_tokens == view.estimated_tokens > view.system_tokens + view.tools_tokens + 2_000
            assert status.context_percent == round(100 * view.estimated_tokens / view.context_window)
            await dispatch(repl, "/context")
        finally:
            await repl.close_agent()

    asyncio.run(go())
    shown = repl.console.file.getvalue()  # type: ignore[attr-defined]
    assert re.search(r"\n  images +2,000  tokens of them: 2 images the model sees \(Anthropic's rule, w×h/750\) *\n", shown)


def test_openai_models_count_by_tiles_one_without_vision_by_notes_and_no_images_means_no_line(tmp_path: Path) -> None:
    repl = make_repl(tmp_path / "gpt", "gpt-4.1")
    (tmp_path / "gpt").mkdir()
    write_session(repl, drop=False)
    assert re.search(r"\n  images +1,530  tokens of them: 2 images the model sees \(OpenAI's rule", context_output(repl))
    blind = make_repl(tmp_path / "blind", "o3-mini")
    (tmp_path / "blind").mkdir()
    write_session(blind, drop=False)
    assert re.search(r"\n  images +80  tokens of them: 2 images, each sent as a short note \(the model has no vision\) *\n", context_output(blind))
    empty = make_repl(tmp_path / "none")
    (tmp_path / "none").mkdir()
    text = context_output(empty, resume=False)
    assert "estimated total" in text and "images" not in text
