"""The macOS profile, read as text (``sandbox-exec`` cannot run here)."""

from __future__ import annotations

from pathlib import Path

from pseudoclaude.sandbox import SandboxConfig, SeatbeltSandbox


def profile_for(workspace: Path, **config: object) -> str:
    return SeatbeltSandbox(SandboxConfig(**config), workspace, home=workspace.parent / "home").profile({"TMPDIR": str(workspace.parent / "tmp")})


def test_writes_go_only_to_the_workspace_and_the_temp_folders(workspace: Path) -> None:
    text = profile_for(workspace)
    assert text.startswith("(version 1)\n(deny default)")
    allowed = text.split("(allow file-write*")[1].split(")\n(")[0]
    assert f'(subpath "{workspace}")' in allowed and f'(subpath "{workspace.parent / "tmp"}")' in allowed
    assert "(allow file-read*)" in text


def test_read_only_mode_writes_nowhere_but_the_temp_folders(workspace: Path) -> None:
    allowed = profile_for(workspace, mode="read-only").split("(allow file-write*")[1].split(")\n(")[0]
    assert f'(subpath "{workspace}")' not in allowed


def test_protected_paths_are_denied_after_the_allow(workspace: Path) -> None:
    (workspace / ".git/hooks").mkdir(parents=True)
    (workspace / ".git/config").write_text("")
    (workspace / "CLAUDE.md").write_text("")
    text = profile_for(workspace, protected_names=("CLAUDE.md",))
    denied = text.split("(deny file-write*")[1]
    assert text.index("(allow file-write*") < text.index("(deny file-write*")
    for path in (".git/hooks", ".git/config", "CLAUDE.md"):
        assert f'"{workspace / path}"' in denied


def test_masked_paths_are_neither_readable_nor_writable(workspace: Path) -> None:
    (workspace / ".env").write_text("x")
    (workspace / "secrets").mkdir()
    text = profile_for(workspace, masked_patterns=("**/.env", "secrets/**"))
    masked = text.split("(deny file-read* file-write*")[1]
    assert f'(literal "{workspace / ".env"}")' in masked and f'(subpath "{workspace / "secrets"}")' in masked
    assert text.index("(allow file-read*)") < text.index("(deny file-read* file-write*")


def test_the_network_is_denied_unless_all(workspace: Path) -> None:
    assert "(allow network*)" not in profile_for(workspace)
    assert "(allow network* (remote unix-socket) (local unix-socket))" in profile_for(workspace)
    assert "(allow network*)" in profile_for(workspace, network="all")


def test_a_quote_in_a_path_cannot_end_the_string(tmp_path: Path) -> None:
    workspace = tmp_path / 'odd"name'
    workspace.mkdir()
    assert f'(subpath "{str(workspace).replace(chr(34), chr(92) + chr(34))}")' in profile_for(workspace)


def test_allowed_domains_reach_only_the_local_proxy_port(workspace: Path) -> None:
    sandbox = SeatbeltSandbox(SandboxConfig(network="allowed", allowed_domains=("pypi.org",)), workspace, home=workspace.parent / "home")
    text = sandbox.profile({"TMPDIR": str(workspace.parent / "tmp")}, proxy_port=41234)
    assert '(allow network-outbound (remote tcp "localhost:41234"))' in text and "(allow network*)" not in text
