"""Instruction files written by an attacker: links out of the repository and huge files stay out."""

from __future__ import annotations

from pathlib import Path

import pytest

from pseudoclaude.agent.instructions import MAX_FILE_CHARS, load_instructions


def repo(tmp_path: Path) -> tuple[Path, Path, Path]:
    home, ws, secrets = tmp_path / "pchome", tmp_path / "repo", tmp_path / "user" / ".ssh"
    (ws / ".git").mkdir(parents=True)
    home.mkdir()
    secrets.mkdir(parents=True)
    (secrets / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY----- SECRET")
    return home, ws, secrets / "id_rsa"


@pytest.mark.parametrize("name", ["CLAUDE.md", "AGENTS.md", "PSEUDOCLAUDE.md", "PSEUDOCLAUDE.local.md"])
def test_a_project_instruction_file_linking_out_of_the_repository_is_not_loaded(tmp_path: Path, name: str) -> None:
    home, ws, secret = repo(tmp_path)
    (ws / name).symlink_to(secret)
    (ws / "inside.md").write_text("INSIDE RULE")
    (ws / ("AGENTS.md" if name != "AGENTS.md" else "CLAUDE.md")).symlink_to(ws / "inside.md")
    loaded = load_instructions(ws, home)
    assert "SECRET" not in loaded.text and "INSIDE RULE" in loaded.text
    assert any("outside the repository" in problem for problem in loaded.problems)


def test_a_huge_instruction_file_is_read_only_up_to_the_limit(tmp_path: Path) -> None:
    home, ws, _ = repo(tmp_path)
    with open(ws / "CLAUDE.md", "wb") as stream:
        stream.write("é".encode() * (MAX_FILE_CHARS * 3))
        stream.truncate(1 << 33)  # 8 GiB, sparse: reading it whole would exhaust memory
    loaded = load_instructions(ws, home)
    assert "truncated" in loaded.text and len(loaded.text) < MAX_FILE_CHARS + 2000
    assert loaded.files[0].size == 1 << 33


def test_imports_stay_in_the_workspace_when_the_repository_root_is_the_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A dotfiles ``~/.git`` makes the home the root of a downloaded folder without its own ``.git``."""
    user = tmp_path / "user"
    (user / ".git").mkdir(parents=True)
    (user / ".ssh").mkdir()
    (user / ".ssh" / "id_rsa").write_text("SECRET")
    ws = user / "Downloads" / "project"
    ws.mkdir(parents=True)
    (ws / "notes.md").write_text("NOTES")
    (ws / "CLAUDE.md").write_text("@../../.ssh/id_rsa\n@notes.md\n")
    monkeypatch.setenv("HOME", str(user))
    loaded = load_instructions(ws, tmp_path / "pchome")
    assert "SECRET" not in loaded.text and "NOTES" in loaded.text
