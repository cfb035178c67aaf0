"""PreCompact and PostCompact under the native context engine, through the real CLI against both wire-level fakes.

The server compacts inside a request, so both hooks fire once per provider compaction, when the engine adopts it
(before the next request): ``PreCompact`` before the session records the compaction, ``PostCompact`` after, with
the provider's summary. ``/compact`` under the native engine is our summary and fires them as ``manual``. Each hook
is a real script that appends its stdin JSON (and how many compaction entries the transcript held when it ran).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Mapping

import pytest

from pseudoclaude.llm import model_info
from tests.e2e.support import cli_env, fake_server, run_cli
from tests.fakes.script import Call, Reply, Step, is_summary_request

pytestmark = pytest.mark.slow

MODELS = {"anthropic": "claude-sonnet-4-6", "openai": "gpt-5"}
RECORDER = """import json, sys
payload = json.load(sys.stdin)
with open(payload["transcript_path"]) as transcript:
    payload["entries_seen"] = [json.loads(line)["type"] for line in transcript if line.strip()].count("compaction")
with open(sys.argv[1], "a") as out:
    out.write(json.dumps(payload) + "\\n")
"""


class Compacts:
    """The first request is over the model's compaction trigger (the server compacts), calling a tool when ``calls``;
    a summary request of ours gets a summary; the rest answer."""

    def __init__(self, window: int, *, calls: bool = True) -> None:
        self.window, self.calls, self.seen = window, calls, 0

    def __call__(self, body: Mapping[str, Any]) -> Step:
        if is_summary_request(body) or is_summary_request({"messages": body.get("input") or []}):
            return Reply(text="<summary>the parser task, kept by /compact</summary>")
        self.seen += 1
        if self.seen == 1:
            tools = (Call("read_file", json.dumps({"path": "parser.py"})),) if self.calls else ()
            return Reply(text="Reading the parser.", calls=tools, input_tokens=self.window - 1000)
        return Reply(text=f"done {self.seen}")


def _setup(tmp_path: Path, kind: str) -> tuple[Path, Path, str, int]:
    model = MODELS[kind]
    info = model_info(model)
    assert info is not None and info.provider == kind
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    home.mkdir()
    (ws / "parser.py").write_text("def parse(text):\n    return text.split()\n")
    script = tmp_path / "record.py"
    script.write_text(RECORDER)
    hooks = {
        event: [{"hooks": [{"type": "command", "command": f"{sys.executable} {script} {tmp_path / event}.jsonl"}]}] for event in ("PreCompact", "PostCompact")
    }
    (home / "settings.json").write_text(json.dumps({"hooks": hooks}))
    return ws, home, model, info.context_window


def _env(kind: str, url: str, home: Path) -> dict[str, str]:
    env = cli_env(kind, url, home)
    return {**env, "PSEUDOCLAUDE_OPENAI_API": "responses"} if kind == "openai" else env  # a base URL speaks Chat unless told


def _run(prompt: str, ws: Path, env: dict[str, str], model: str, *flags: str) -> None:
    args = [*flags, "-p", prompt, "--model", model, "--context-engine", "native", "--permission-mode", "bypass", "--output-format", "json"]
    done = run_cli(args, ws, env)
    assert done.returncode == 0, done.stderr


def _session(prompts: list[str], ws: Path, env: dict[str, str], model: str, *flags: str) -> None:
    """Several prompts in one process (stream-json on stdin, as the Agent SDK sends them)."""
    lines = [{"type": "user", "message": {"role": "user", "content": text}, "session_id": "default", "parent_tool_use_id": None} for text in prompts]
    args = [*flags, "--model", model, "--context-engine", "native", "--permission-mode", "bypass", "--verbose"]
    stream = ["--output-format", "stream-json", "--input-format", "stream-json"]
    done = run_cli([*args, *stream], ws, env, stdin="".join(json.dumps(line) + "\n" for line in lines))
    assert done.returncode == 0, done.stderr
    assert sum(json.loads(line)["type"] == "result" for line in done.stdout.splitlines()) == len(prompts)


def seen(tmp_path: Path, event: str) -> list[dict[str, Any]]:
    path = tmp_path / f"{event}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _summary_made(server: Any, kind: str) -> str:
    """The summary the provider's compaction carries (Anthropic's block text; OpenAI's item is opaque: none)."""
    if kind == "openai":
        return ""
    made = server.applied[0].compaction
    assert made is not None
    return str(made["content"])


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_a_provider_compaction_fires_pre_and_post_compact_once_and_compact_fires_them_as_manual(kind: str, tmp_path: Path) -> None:
    ws, home, model, window = _setup(tmp_path, kind)
    long = "lorem ipsum dolor " * 4000  # two long prompts after the compaction: /compact has older turns to summarize
    with fake_server(kind, Compacts(window)) as server:
        env = _env(kind, server.url, home)
        _session(["fix the parser", f"and the lexer {long}"], ws, env, model)
        [pre], [post] = seen(tmp_path, "PreCompact"), seen(tmp_path, "PostCompact")
        summary = _summary_made(server, kind)
        _session([f"and the tests {long}", "/compact keep the parser"], ws, env, model, "--continue")
        assert server.rejections == []
    transcript = Path(pre["transcript_path"])
    assert transcript.is_file() and transcript.parent.name == pre["session_id"] and pre["cwd"] == str(ws)
    assert pre["hook_event_name"] == "PreCompact" and pre["trigger"] == "auto" and pre["custom_instructions"] == ""
    assert pre["before_tokens"] > 0 and pre["entries_seen"] == 0, "PreCompact runs before the session records the compaction"
    assert post["hook_event_name"] == "PostCompact" and post["trigger"] == "auto" and post["entries_seen"] == 1
    assert (post["session_id"], post["transcript_path"]) == (pre["session_id"], pre["transcript_path"])
    assert post["before_tokens"] == pre["before_tokens"] and post["after_tokens"] > 0 and post["compact_summary"] == summary
    pres, posts = seen(tmp_path, "PreCompact"), seen(tmp_path, "PostCompact")
    assert [p["trigger"] for p in pres] == [p["trigger"] for p in posts] == ["auto", "manual"], "the resume did not fire them again"
    manual_pre, manual_post = pres[1], posts[1]
    assert manual_pre["custom_instructions"] == "keep the parser" and manual_pre["session_id"] == pre["session_id"]
    assert manual_post["compact_summary"] == "the parser task, kept by /compact" and manual_post["entries_seen"] == 2


def test_a_compaction_on_the_answer_that_ends_the_run_fires_them_at_the_next_prompt(tmp_path: Path) -> None:
    ws, home, model, window = _setup(tmp_path, "anthropic")
    with fake_server("anthropic", Compacts(window, calls=False)) as server:
        env = _env("anthropic", server.url, home)
        _run("fix the parser", ws, env, model)
        assert server.applied[0].compaction is not None
        assert seen(tmp_path, "PreCompact") == seen(tmp_path, "PostCompact") == [], "not applied yet: nothing was sent since"
        _run("and the lexer", ws, env, model, "--continue")
    [pre], [post] = seen(tmp_path, "PreCompact"), seen(tmp_path, "PostCompact")
    assert pre["trigger"] == post["trigger"] == "auto" and (pre["entries_seen"], post["entries_seen"]) == (0, 1)
