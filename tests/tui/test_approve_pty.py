"""The REPL's approval question, a resumed compacted session's recap: in a real pseudo-terminal."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.script import Call, Reply
from tests.tui.terminal import CTRL_D, Terminal, env_for, request_text, start
from tests.tui.test_repl_pty import SummaryResponder

pytestmark = pytest.mark.slow

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]")


def test_an_edit_question_shows_the_diff_before_asking_and_always_saves_a_folder_rule(tmp_path: Path, terminals: list[Terminal]) -> None:
    workspace = tmp_path / "ws"
    (workspace / "src").mkdir(parents=True)
    (workspace / "src" / "app.py").write_text("GREETING = 'hello'\n")
    edit = {"path": "src/app.py", "old_string": "GREETING = 'hello'", "new_string": "GREETING = 'bonjour'"}
    script = [
        Reply(text="Reading.", calls=(Call("read_file", json.dumps({"path": "src/app.py"})),)),
        Reply(text="Editing.", calls=(Call("edit_file", json.dumps(edit)),)),
        Reply(text="Changed the greeting."),
    ]
    with FakeAnthropicServer(script) as server:
        term = start(terminals, workspace, server, tmp_path / "home")
        term.expect_prompt()
        term.send_line("Say bonjour")
        term.expect(r"\[n\] no, and say why")
        question = _ANSI.sub("", term.raw[term.raw.rfind("Allow edit_file") :])
        assert "-GREETING = 'hello'" in question and "+GREETING = 'bonjour'" in question
        assert "saving the rule edit_file(src/**)" in question
        term.send("a")
        term.expect(r"allowed from now on: edit_file\(src/\*\*\)")
        term.expect("Changed the greeting")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert (workspace / "src" / "app.py").read_text() == "GREETING = 'bonjour'\n"
    saved = json.loads((workspace / ".pseudoclaude" / "settings.local.json").read_text())
    assert saved["permissions"]["allow"] == ["edit_file(src/**)"]


def test_a_resumed_compacted_session_does_not_show_the_summary_scaffolding(tmp_path: Path, terminals: list[Terminal]) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    names = ["a.txt", "b.txt", "c.txt", "d.txt"]
    for name in names:
        (workspace / name).write_text("".join(f"{name} line {i:04d}: some text to fill the context\n" for i in range(100)))
    responder = SummaryResponder(
        [
            *(Reply(text=f"Reading {name}.", calls=(Call("read_file", json.dumps({"path": name})),)) for name in names),
            Reply(text="Read all files."),
            Reply(text="Second answer."),
            Reply(text="Third answer."),
        ]
    )
    with FakeAnthropicServer(responder) as server:
        term = start(terminals, workspace, server, tmp_path / "home", "--context-window", "20000")
        term.expect_prompt()
        for prompt, answer in (("Read the four files", "Read all files"), ("Second question", "Second answer")):
            term.send_line(prompt)
            term.expect(answer)
            term.expect_prompt()
        term.send_line("/compact")
        term.expect(r"Context: [\d,]+ → [\d,]+ tokens")
        term.expect_prompt()
        assert "context compacted:" not in term.raw  # /compact reports its result once
        term.send(CTRL_D)
        assert term.exit_code() == 0
        again = start(terminals, workspace, server, tmp_path / "home", "--continue", "--context-window", "20000")
        again.expect("Resumed session")
        again.expect_prompt()
        recap = _ANSI.sub("", again.raw)
        assert "Understood. I have the summary" not in recap and "not the original conversation" not in recap
        assert "Summary of the earlier conversation" not in recap
        assert "earlier conversation summarized" in recap and "1 earlier messages" not in recap
        again.send_line("Third question")
        again.expect("Third answer")
        again.expect_prompt()
        again.send(CTRL_D)
        assert again.exit_code() == 0
    assert "Primary request" in request_text(server.requests[-1])
    assert server.rejections == []


def test_escape_mid_answer_keeps_the_partial_reply_and_marks_the_interrupt(tmp_path: Path, terminals: list[Terminal]) -> None:
    from tests.tui.terminal import ESC, SlowAnthropicServer

    workspace = tmp_path / "ws"
    workspace.mkdir()
    long_answer = "PARTIAL-START " + " ".join(f"word{n}" for n in range(200))
    script = [Reply(text=long_answer, text_chunks=100), Reply(text="Fresh answer.")]
    with SlowAnthropicServer(script, delay=0.05) as server:
        term = start(terminals, workspace, server, tmp_path / "home")
        term.expect_prompt()
        term.send_line("Tell me a long story")
        term.expect("PARTIAL-START")
        term.send(ESC)
        term.expect("Interrupted")
        term.expect_prompt()
        term.send_line("Shorter please")
        term.expect("Fresh answer")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    recorded = [json.loads(line) for line in next((tmp_path / "home").rglob("session.jsonl")).read_text().splitlines()]
    usages = [entry["usage"] for entry in recorded if entry["type"] == "usage"]
    assert len(usages) == 2 and usages[0]["input_tokens"] > 0  # the interrupted stream's reported input is counted
    messages = server.requests[-1]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert "PARTIAL-START" in json.dumps(messages[1]) and "word199" not in json.dumps(messages[1])
    last = json.dumps(messages[2])
    assert "[Request interrupted by user]" in last and "Shorter please" in last and "long story" not in last
    assert server.rejections == []


def _cost(status: str) -> str:
    found = re.search(r"\$\d+\.\d+|cost unknown", status)
    assert found is not None, status
    return found.group(0)


def test_a_model_switch_does_not_reprice_history_and_a_resume_keeps_it(tmp_path: Path, terminals: list[Terminal]) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    script = [Reply(text="First answer."), Reply(text="Second answer."), Reply(text="Third answer.")]
    with FakeAnthropicServer(script) as server:
        term = start(terminals, workspace, server, tmp_path / "home")
        term.expect_prompt()
        term.send_line("First question")
        term.expect("First answer")
        before = _cost(term.expect_prompt())
        term.send_line("/model")
        term.expect(r"anthropic[^\r\n]*from the built-in table")
        term.expect(r"claude-opus-4-5")
        term.expect(r"openai[^\r\n]*needs OPENAI_API_KEY")
        term.expect_prompt()
        term.send_line("/model gpt-4o")
        term.expect(r"gpt-4o is served by openai")
        term.expect(r"needs OPENAI_API_KEY")
        term.expect_prompt()
        term.send_line("/model claude-opus-4-1")
        term.expect("Model set to")
        after = _cost(term.expect_prompt())
        assert before == after != "$0.000"
        term.send_line("/model foo-bar-9")
        term.expect("not a model PseudoClaude knows")
        term.expect("Model set to")
        term.expect_prompt()
        term.send_line("Second question")
        term.expect("Second answer")
        assert _cost(term.expect_prompt()) == "cost unknown"
        term.send(CTRL_D)
        assert term.exit_code() == 0
        again = start(terminals, workspace, server, tmp_path / "home", "--continue")
        again.expect("Resumed session")
        status = again.expect_prompt()
        assert "foo-bar-9 · " in again.raw[-400:] and _cost(status) == "cost unknown"
        again.send_line("Third question")
        again.expect("Third answer")
        again.expect_prompt()
        again.send(CTRL_D)
        assert again.exit_code() == 0
    assert [request["model"] for request in server.requests] == ["claude-sonnet-4-5", "foo-bar-9", "foo-bar-9"]


def test_an_unknown_model_404_names_the_model_and_the_provider_and_suggests_model(tmp_path: Path, terminals: list[Terminal]) -> None:
    from tests.fakes.script import HttpError

    workspace = tmp_path / "ws"
    workspace.mkdir()
    with FakeAnthropicServer([HttpError(404, "not_found", "model: foo-bar-9")]) as server:
        term = start(terminals, workspace, server, tmp_path / "home", "--model", "foo-bar-9")
        term.expect("warning: foo-bar-9 is not a model PseudoClaude knows")
        term.expect_prompt()
        term.send_line("hello")
        term.expect(r"model foo-bar-9 not found at anthropic; choose another with /model")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert "BadRequest" not in _ANSI.sub("", term.raw)


def test_model_switches_provider_when_its_key_is_configured(tmp_path: Path, terminals: list[Terminal]) -> None:
    from tests.fakes.openai_server import FakeOpenAIServer

    workspace = tmp_path / "ws"
    workspace.mkdir()
    with FakeAnthropicServer([Reply(text="Claude here.")]) as claude, FakeOpenAIServer([Reply(text="GPT here."), Reply(text="GPT again.")]) as gpt:
        env = {**env_for(claude.url, tmp_path / "home"), "OPENAI_API_KEY": "k-test", "OPENAI_BASE_URL": gpt.url}
        term = Terminal([], workspace, env)
        terminals.append(term)
        term.expect_prompt()
        term.send_line("Who are you?")
        term.expect("Claude here")
        term.expect_prompt()
        term.send_line("/model gpt-4o")
        term.expect("Switching provider to openai")
        term.expect("Model set to")
        term.expect_prompt()
        term.send_line("And now?")
        term.expect("GPT here")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
        again = Terminal(["--continue"], workspace, env)
        terminals.append(again)
        again.expect_prompt()
        assert "gpt-4o · ctx" in again.raw[-400:]
        again.send_line("Still you?")
        again.expect("GPT again")
        again.expect_prompt()
        again.send(CTRL_D)
        assert again.exit_code() == 0
    assert len(claude.requests) == 1 and len(gpt.requests) == 2
    assert gpt.requests[1]["model"] == "gpt-4o"
    assert "Claude here." in json.dumps(gpt.requests[0]) and gpt.requests[0]["model"] == "gpt-4o"
    assert claude.rejections == [] and gpt.rejections == []
