"""The real CLI: the model's commands get none of the user's secrets, and a key printed anyway is ``***`` everywhere.

The scripted model runs what a prompt-injected one would (``env``, ``echo
$ANTHROPIC_API_KEY``, ``printenv``) with the fake server's key and other
secrets in the CLI's environment; then it prints the key from a file, as a
short output, as one so large it spills to ``tool-results/``, and from a
background command, and every file of the session and every output format
must show ``***`` and never the key.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pseudoclaude.cli import OUTPUT_FORMATS
from tests.e2e.support import KEYS, cli_env, fake_server, run_cli
from tests.fakes.script import Call, Reply

pytestmark = pytest.mark.slow

KEY = KEYS["anthropic"]
OTHERS = {"GITHUB_TOKEN": "ghp_FakeGithubToken0123", "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI-K7MDENG-fake", "DB_PASSWORD": "hunter2-but-longer"}
SHOWN = ("DEPLOY_TOKEN", "visible-deploy-token-42")


def command(text: str, **extra: Any) -> Call:
    return Call("run_command", json.dumps({"command": text, **extra}))


def write_json(path: Path, document: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "key.txt").write_text(KEY + "\n")
    return ws


def secret_env(url: str, home: Path) -> dict[str, str]:
    return {**cli_env("anthropic", url, home), **OTHERS, SHOWN[0]: SHOWN[1], "PROJECT_TOKEN": "project-wants-this-one"}


def test_the_models_commands_see_none_of_the_secrets(workspace: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_json(home / "settings.json", {"shellEnvironment": {"include": [SHOWN[0]]}})
    write_json(workspace / ".pseudoclaude" / "settings.json", {"shellEnvironment": {"include": ["PROJECT_TOKEN", "GITHUB_TOKEN"]}})
    script = [
        Reply(calls=(command("env"), command('echo "key=[$ANTHROPIC_API_KEY]"'), command("printenv"))),
        Reply(text="Looked around."),
    ]
    with fake_server("anthropic", script) as server:
        proc = run_cli(["-p", "look", "--permission-mode", "bypass", "--trust-workspace"], workspace, secret_env(server.url, home))
    assert proc.returncode == 0, proc.stderr
    results = [block for block in server.requests[1]["messages"][-1]["content"] if block["type"] == "tool_result"]
    seen = json.dumps(results)
    assert len(results) == 3 and "key=[]" in seen and f"{SHOWN[0]}={SHOWN[1]}" in seen
    for name, value in {"ANTHROPIC_API_KEY": KEY, **OTHERS, "PROJECT_TOKEN": "project-wants-this-one"}.items():
        assert f"{name}=" not in seen and value not in seen
    assert "only your own settings" in proc.stderr


def printing_script() -> list[Any]:
    return [
        Reply(calls=(command("cat key.txt"), command("yes $(cat key.txt) | head -n 40000"), command("cat key.txt; echo done", background=True))),
        Reply(calls=(command("sleep 0.3"),)),
        Reply(calls=(Call("command_output", json.dumps({"id": "bg1"})),)),
        Reply(text="Printed the file."),
    ]


@pytest.mark.parametrize("output_format", OUTPUT_FORMATS)
def test_a_printed_key_is_masked_in_the_session_its_files_and_every_output_format(output_format: str, workspace: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    with fake_server("anthropic", printing_script()) as server:
        args = ["-p", "print the key", "--permission-mode", "bypass", "--output-format", output_format]
        if output_format == "stream-json":
            args.append("--verbose")
        proc = run_cli(args, workspace, secret_env(server.url, home))
    assert proc.returncode == 0, proc.stderr
    assert KEY not in proc.stdout + proc.stderr
    if output_format in ("stream-json", "events"):
        assert "***" in proc.stdout
    assert KEY not in json.dumps(server.requests) and "***" in json.dumps(server.requests[1])
    [folder] = [path.parent for path in home.rglob("session.jsonl")]
    files = [path for path in folder.rglob("*") if path.is_file()]
    assert not [path for path in files if KEY.encode() in path.read_bytes()]
    assert "***" in (folder / "session.jsonl").read_text()
    results = sorted(path.name for path in (folder / "tool-results").iterdir())
    assert [name.split("-")[0] for name in results] == ["background", "run_command"]
    log, spill = (folder / "tool-results" / name for name in results)
    assert log.read_text() == "***\ndone\n" and spill.read_text() == "***\n" * 40000
