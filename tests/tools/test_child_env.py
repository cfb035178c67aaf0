"""The model's commands run without the user's secrets, and what they print comes back with the secrets masked."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from pseudoclaude.llm import PROVIDERS
from pseudoclaude.tools import BackgroundJobs, ChildEnvironment, RunCommandTool, ToolContext
from pseudoclaude.tools.output import StreamCapture
from pseudoclaude.tools.ripgrep import find_rg

KEY = "sk-ant-test-secret-123"
SECRETS = {
    "GITHUB_TOKEN": "ghp_0123456789abcdef",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG",
    "DB_PASSWORD": "correct-horse-battery",
    "gcloud_credentials_file": "/home/u/.config/gcloud.json",
    "my_api_key": "lower-case-names-count-too",
}


def environ(**extra: str) -> dict[str, str]:
    return {"PATH": os.environ["PATH"], "HOME": "/home/u", "LANG": "C.UTF-8", **SECRETS, **extra}


def test_secret_looking_variables_are_withheld_and_the_rest_kept() -> None:
    child = ChildEnvironment.of(environ(ANTHROPIC_API_KEY=KEY, EDITOR="vi"))
    assert not set(SECRETS) & set(child.variables) and "ANTHROPIC_API_KEY" not in child.variables
    assert child.variables["EDITOR"] == "vi" and child.variables["HOME"] == "/home/u"
    assert set(child.withheld) == {*SECRETS, "ANTHROPIC_API_KEY"}


def test_every_provider_key_variable_of_the_table_is_withheld() -> None:
    child = ChildEnvironment.of({entry.key_variable: f"value-of-{entry.name}-key" for entry in PROVIDERS})
    assert dict(child.variables).keys() <= {"PATH"}


def test_include_keeps_a_named_variable_and_exclude_removes_more() -> None:
    child = ChildEnvironment.of(environ(AWS_PROFILE="dev", AWS_REGION="eu-west-1"), include=["GITHUB_TOKEN"], exclude=["AWS_*", "LANG"])
    assert child.variables["GITHUB_TOKEN"] == SECRETS["GITHUB_TOKEN"]
    assert not {"AWS_PROFILE", "AWS_REGION", "LANG", "DB_PASSWORD"} & set(child.variables)


def test_exclude_wins_over_include() -> None:
    child = ChildEnvironment.of(environ(), include=["GITHUB_TOKEN"], exclude=["GITHUB_TOKEN"])
    assert "GITHUB_TOKEN" not in child.variables


def test_the_withheld_values_and_the_configured_key_are_redacted() -> None:
    child = ChildEnvironment.of(environ(SHORT_TOKEN="1"), include=["DB_PASSWORD"], api_key=KEY)
    text = " ".join([KEY, *SECRETS.values(), "1"])
    assert child.redactor.text(text) == "*** *** *** correct-horse-battery *** *** 1"


def test_the_environment_never_shows_its_values() -> None:
    child = ChildEnvironment.of(environ(), api_key=KEY)
    assert not any(value in repr(child) for value in (KEY, *SECRETS.values()))


def test_the_bundled_rg_is_appended_to_a_path_without_one(tmp_path: Path) -> None:
    bundled = find_rg()
    if bundled is None:
        pytest.skip("no rg here")
    assert ChildEnvironment.of({"PATH": str(tmp_path)}).variables["PATH"] == f"{tmp_path}{os.pathsep}{Path(bundled).parent}"
    assert ChildEnvironment.of({"PATH": str(Path(bundled).parent)}).variables["PATH"] == str(Path(bundled).parent)


def run_in(child: ChildEnvironment, workspace: Path, command: str, tmp_path: Path) -> str:
    (tmp_path / "spill").mkdir(exist_ok=True)
    ctx = ToolContext(workspace=workspace, spill_dir=tmp_path / "spill", child_env=child)
    return asyncio.run(RunCommandTool().run({"command": command}, ctx)).content


def test_a_command_sees_none_of_the_secrets(tmp_path: Path) -> None:
    child = ChildEnvironment.of(environ(ANTHROPIC_API_KEY=KEY, VISIBLE_TOKEN="shown-on-purpose"), include=["VISIBLE_TOKEN"])
    out = run_in(child, tmp_path, 'env; echo "key=[$ANTHROPIC_API_KEY]"; printenv GITHUB_TOKEN; tr "\\0" "\\n" < /proc/self/environ', tmp_path)
    assert "key=[]" in out and "VISIBLE_TOKEN=shown-on-purpose" in out
    assert not any(name in out for name in SECRETS) and "ANTHROPIC_API_KEY=" not in out


def test_a_key_printed_from_a_file_comes_back_masked_and_its_spill_too(tmp_path: Path) -> None:
    (tmp_path / "key.txt").write_text(KEY + "\n")
    child = ChildEnvironment.of(environ(), api_key=KEY)
    out = run_in(child, tmp_path, "yes $(cat key.txt) | head -n 20000", tmp_path)
    spills = list((tmp_path / "spill").iterdir())
    assert KEY not in out and "***" in out and len(spills) == 1
    saved = spills[0].read_text()
    assert KEY not in saved and saved == "***\n" * 20000


def test_a_background_commands_log_has_the_key_masked(tmp_path: Path) -> None:
    (tmp_path / "key.txt").write_text(KEY)
    child = ChildEnvironment.of(environ(), api_key=KEY)
    jobs = BackgroundJobs(tmp_path / "spill")

    async def scenario() -> str:
        (tmp_path / "spill").mkdir()
        view = await jobs.start("head -c 9 key.txt; sleep 0.2; tail -c +10 key.txt; echo; echo $GITHUB_TOKEN.", tmp_path, child)
        while jobs.jobs()[0].running:
            await asyncio.sleep(0.05)
        await jobs.aclose()
        assert view.log is None or Path(view.log).exists()
        return jobs.read(view.id).text

    unread = asyncio.run(scenario())
    log = Path(jobs.jobs()[0].log or "").read_text()
    assert unread == log == "***\n.\n"


@pytest.mark.parametrize("chunk", [1, 5, 21, 4096])
def test_a_capture_masks_a_key_cut_across_chunks_in_its_preview_and_spill(tmp_path: Path, chunk: int) -> None:
    data = (f"line {KEY} end\n" * 400).encode()
    spill = tmp_path / "out.log"
    capture = StreamCapture(inline_bytes=500, open_spill=lambda: (spill, spill.open("wb")), redactor=ChildEnvironment.of({}, api_key=KEY).redactor)
    for start in range(0, len(data), chunk):
        capture.feed(data[start : start + chunk])
    capture.close()
    shown = bytes(capture.head + capture.tail)
    assert KEY.encode() not in shown and b"line *** end\n" in shown
    assert spill.read_bytes() == b"line *** end\n" * 400
    assert capture.total_bytes == len(b"line *** end\n") * 400 and capture.spill_complete
