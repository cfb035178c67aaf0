"""Reading an image from the clipboard through the platform's tool: fake ``xclip``/``wl-paste``/``pngpaste`` scripts on PATH."""

from __future__ import annotations

import io
import os
import stat
import time
from pathlib import Path

import pytest
from PIL import Image as PILImage

from pseudoclaude.tui.clipboard import ClipboardError, mention, paste_image, read_clipboard_image, save_clipboard_image
from pseudoclaude.tui.prompt_images import attach_prompt_images


def png(width: int = 30, height: int = 20) -> bytes:
    out = io.BytesIO()
    PILImage.new("RGB", (width, height), "teal").save(out, format="PNG")
    return out.getvalue()


def fake_tool(folder: Path, name: str, body: str) -> None:
    """A shell script standing for a clipboard tool (the code under test runs it without a shell)."""
    folder.mkdir(exist_ok=True)
    script = folder / name
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)


def fake_xclip(folder: Path, targets: str, image: Path | None = None, exit_code: int = 0) -> None:
    body = f'case "$*" in\n  *TARGETS*) printf "{targets}";;\n'
    if image is not None:
        body += f'  *image/*) cat "{image}";;\n'
    body += f"  *) exit 1;;\nesac\nexit {exit_code}\n"
    fake_tool(folder, "xclip", body)


def env(bin_dir: Path, **extra: str) -> dict[str, str]:
    return {"PATH": f"{bin_dir}:/usr/bin:/bin", "DISPLAY": ":0", **extra}


def test_xclip_gives_the_png_on_the_clipboard(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(data := png())
    fake_xclip(tmp_path / "bin", r"TARGETS\ntext/plain\nimage/png\nimage/bmp\n", tmp_path / "shot.png")
    image = read_clipboard_image(env(tmp_path / "bin"), platform="linux")
    assert (image.data, image.media_type, image.tool) == (data, "image/png", "xclip")


def test_wl_paste_is_asked_first_under_wayland(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(data := png())
    fake_xclip(tmp_path / "bin", r"image/png\n", tmp_path / "other.png")
    fake_tool(
        tmp_path / "bin",
        "wl-paste",
        f'case "$*" in\n  *--list-types*) printf "text/plain\\nimage/png\\n";;\n  *"--type image/png"*) cat "{tmp_path / "shot.png"}";;\n  *) exit 1;;\nesac\n',
    )
    image = read_clipboard_image(env(tmp_path / "bin", WAYLAND_DISPLAY="wayland-0"), platform="linux")
    assert (image.data, image.tool) == (data, "wl-paste")


def test_text_only_on_the_clipboard_is_no_image(tmp_path: Path) -> None:
    fake_xclip(tmp_path / "bin", r"TARGETS\nUTF8_STRING\ntext/plain\n")
    with pytest.raises(ClipboardError, match="^no image on the clipboard$"):
        read_clipboard_image(env(tmp_path / "bin"), platform="linux")


def test_without_a_clipboard_tool_the_hint_says_what_to_install(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(ClipboardError, match="install wl-clipboard or xclip to paste images"):
        read_clipboard_image({"PATH": str(tmp_path / "empty"), "WAYLAND_DISPLAY": "wayland-0"}, platform="linux")


def test_without_a_display_the_hint_says_so(tmp_path: Path) -> None:
    fake_xclip(tmp_path / "bin", r"image/png\n")
    with pytest.raises(ClipboardError, match="neither WAYLAND_DISPLAY nor DISPLAY is set"):
        read_clipboard_image({"PATH": str(tmp_path / "bin")}, platform="linux")


def test_a_tool_that_never_answers_is_stopped_at_the_timeout(tmp_path: Path) -> None:
    fake_tool(tmp_path / "bin", "xclip", "exec sleep 30\n")
    started = time.monotonic()
    with pytest.raises(ClipboardError, match=r"xclip did not answer within 0\.5 s"):
        read_clipboard_image(env(tmp_path / "bin"), platform="linux", timeout=0.5)
    assert time.monotonic() - started < 3


def test_output_over_the_limit_is_cut_and_refused(tmp_path: Path) -> None:
    fake_xclip(tmp_path / "bin", r"image/png\n", Path("/dev/zero"))
    started = time.monotonic()
    with pytest.raises(ClipboardError, match="over the 1 MB an image may be"):
        read_clipboard_image(env(tmp_path / "bin"), platform="linux", limit=1 << 20)
    assert time.monotonic() - started < 3


def test_a_failing_tool_is_one_line_with_what_it_said(tmp_path: Path) -> None:
    fake_tool(
        tmp_path / "bin",
        "xclip",
        'case "$*" in\n  *TARGETS*) printf "image/png\\n";;\n  *) echo "Error: Can\'t open display: :0" >&2; echo more >&2; exit 1;;\nesac\n',
    )
    with pytest.raises(ClipboardError, match=r"^xclip could not read the clipboard \(Error: Can't open display: :0\)$"):
        read_clipboard_image(env(tmp_path / "bin"), platform="linux")
    fake_tool(tmp_path / "bin", "xclip", 'case "$*" in\n  *TARGETS*) printf "image/png\\n";;\n  *) exit 3;;\nesac\n')
    with pytest.raises(ClipboardError, match=r"\(exit code 3\)$"):
        read_clipboard_image(env(tmp_path / "bin"), platform="linux")


def test_an_empty_clipboard_is_no_image(tmp_path: Path) -> None:
    fake_tool(tmp_path / "bin", "xclip", 'echo "Error: target TARGETS not available" >&2; exit 1\n')
    with pytest.raises(ClipboardError, match="^no image on the clipboard$"):
        read_clipboard_image(env(tmp_path / "bin"), platform="linux")


def test_a_bmp_on_the_clipboard_becomes_a_png(tmp_path: Path) -> None:
    out = io.BytesIO()
    PILImage.new("RGB", (7, 5), "red").save(out, format="BMP")
    (tmp_path / "shot.bmp").write_bytes(out.getvalue())
    fake_xclip(tmp_path / "bin", r"image/bmp\ntext/plain\n", tmp_path / "shot.bmp")
    image = read_clipboard_image(env(tmp_path / "bin"), platform="linux")
    assert image.media_type == "image/png"
    assert PILImage.open(io.BytesIO(image.data)).size == (7, 5)


def test_text_offered_as_an_image_is_refused(tmp_path: Path) -> None:
    (tmp_path / "fake.png").write_text("not a picture at all")
    fake_xclip(tmp_path / "bin", r"image/png\n", tmp_path / "fake.png")
    with pytest.raises(ClipboardError, match="no image that can be read"):
        read_clipboard_image(env(tmp_path / "bin"), platform="linux")


def test_macos_reads_with_pngpaste_or_osascript(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(data := png())
    fake_tool(tmp_path / "mac", "osascript", f'printf "«data PNGf%s»\\n" "{data.hex().upper()}"\n')
    assert read_clipboard_image(env(tmp_path / "mac"), platform="darwin").data == data
    fake_tool(tmp_path / "mac", "pngpaste", "exit 1\n")
    with pytest.raises(ClipboardError, match="^no image on the clipboard$"):
        read_clipboard_image(env(tmp_path / "mac"), platform="darwin")


def test_the_saved_image_is_private_named_by_content_and_attaches_through_its_mention(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(data := png(41, 17))
    fake_xclip(tmp_path / "bin", r"image/png\n", tmp_path / "shot.png")
    home = tmp_path / "home"
    path = paste_image(home, env(tmp_path / "bin"))
    assert path == save_clipboard_image(read_clipboard_image(env(tmp_path / "bin"), platform="linux"), home)
    assert path.read_bytes() == data and path.parent == home / "clipboard"
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700 and stat.S_IMODE(os.stat(path).st_mode) == 0o600
    workspace = tmp_path / "ws"
    workspace.mkdir()
    text = "look" + mention(path, "look", "")
    assert text == f'look @"{path}" '
    attached = attach_prompt_images(text, workspace)
    assert attached.error == "" and attached.text == f"look [image 1: {path.name}] "
    assert [(image.data, image.width, image.height) for image in attached.images] == [(data, 41, 17)]


def test_old_pastes_are_pruned(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(png())
    fake_xclip(tmp_path / "bin", r"image/png\n", tmp_path / "shot.png")
    old = tmp_path / "home" / "clipboard" / "clipboard-old.png"
    old.parent.mkdir(parents=True)
    old.write_bytes(b"x")
    os.utime(old, (time.time() - 30 * 86400,) * 2)
    paste_image(tmp_path / "home", env(tmp_path / "bin"))
    assert not old.exists()


@pytest.mark.parametrize(("before", "after", "expected"), [("", "", '@"/p/c.png" '), ("see", " now", ' @"/p/c.png"'), ("see ", "x", '@"/p/c.png" ')])
def test_the_mention_is_spaced_apart_from_words(before: str, after: str, expected: str) -> None:
    assert mention(Path("/p/c.png"), before, after) == expected


def test_the_clipboard_tool_does_not_see_the_users_secrets(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(png())
    fake_xclip(tmp_path / "bin", r"TARGETS\nimage/png\n", tmp_path / "shot.png")
    script = tmp_path / "bin" / "xclip"
    script.write_text(script.read_text().replace("#!/bin/sh\n", f'#!/bin/sh\nenv >> "{tmp_path / "seen"}"\n', 1))
    read_clipboard_image(env(tmp_path / "bin", ANTHROPIC_API_KEY="sk-ant-" + "k" * 30, GITHUB_TOKEN="ghp_" + "g" * 36), platform="linux")
    names = {line.split("=", 1)[0] for line in (tmp_path / "seen").read_text().splitlines()}
    assert {"DISPLAY", "PATH"} <= names and not names & {"ANTHROPIC_API_KEY", "GITHUB_TOKEN"}
