"""``/export``: the REPL (no terminal) writes the resumed session's conversation where it says."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

from rich.console import Console

from pseudoclaude.config import Flags, load_settings
from pseudoclaude.llm.messages import Message, ToolCall
from pseudoclaude.session import create_session
from pseudoclaude.tui.export_command import parse_export_args
from pseudoclaude.tui.repl import Repl
from pseudoclaude.tui.slash import dispatch


def make_repl(tmp_path: Path) -> Repl:
    settings = load_settings(tmp_path, Flags(), environ={"ANTHROPIC_API_KEY": "k", "PSEUDOCLAUDE_HOME": str(tmp_path / "home")})
    return Repl(settings, Console(file=io.StringIO(), width=400, color_system=None))


def record(repl: Repl) -> str:
    settings = repl.settings
    with create_session(settings.sessions_dir, settings.workspace, model=settings.model, provider=settings.provider) as session:
        session.append_message(Message.user("List the files"))
        session.append_message(Message.assistant("Listing.", [ToolCall("c1", "list_files", '{"path": "."}')]))
        session.append_message(Message.tool("c1", "a.py\nb.py"))
        session.append_message(Message.assistant("Two files: a.py and b.py."))
        return session.id


def run(repl: Repl, *lines: str) -> list[str]:
    async def go() -> None:
        assert await repl.open_agent(continue_latest=True)
        try:
            for line in lines:
                await dispatch(repl, line)
        finally:
            await repl.close_agent()

    asyncio.run(go())
    return [line.rstrip() for line in repl.console.file.getvalue().splitlines() if line.startswith(("Exported", "✗"))]  # type: ignore[attr-defined]


def test_export_writes_markdown_named_by_the_session_in_the_workspace_and_says_where(tmp_path: Path) -> None:
    repl = make_repl(tmp_path)
    session_id = record(repl)
    said = run(repl, "/export")
    target = tmp_path / f"{session_id}.md"
    assert said == [f"Exported the conversation (4 messages, Markdown) to {target}"]
    lines = target.read_text().splitlines()
    assert lines[0] == "# List the files" and "**Tool call:** `list_files`" in lines and "Two files: a.py and b.py." in lines


def test_export_as_json_to_a_named_file_and_a_bad_option_is_refused(tmp_path: Path) -> None:
    repl = make_repl(tmp_path)
    record(repl)
    said = run(repl, "/export out/chat.json", "/export --format md notes.txt", "/export --format pdf")
    assert said[0] == f"Exported the conversation (4 messages, JSON) to {tmp_path / 'out' / 'chat.json'}"
    assert said[1] == f"Exported the conversation (4 messages, Markdown) to {tmp_path / 'notes.txt'}"
    assert said[2] == "✗ unknown format 'pdf': choose md or json. Usage: /export [--format md|json] [file]"
    document = json.loads((tmp_path / "out" / "chat.json").read_text())
    assert [e["role"] for e in document["entries"]] == ["user", "assistant", "tool", "assistant"]
    assert (tmp_path / "notes.txt").read_text().startswith("# List the files\n")


def test_export_arguments() -> None:
    assert parse_export_args("") == (None, "")
    assert parse_export_args("--format=json 'my chat.json'") == ("json", "my chat.json")
    assert parse_export_args("a.md b.md") == "one file name at most. Usage: /export [--format md|json] [file]"


def test_export_before_any_conversation_says_there_is_nothing(tmp_path: Path) -> None:
    repl = make_repl(tmp_path)
    asyncio.run(dispatch(repl, "/export"))
    assert "Nothing to export yet" in repl.console.file.getvalue()  # type: ignore[attr-defined]
    assert list(tmp_path.glob("*.md")) == []
