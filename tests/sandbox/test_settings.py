"""The ``sandbox`` setting: the user's file says what it likes, a project's may only tighten, ``--sandbox`` wins."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pseudoclaude.config import ConfigError, Flags, load_settings
from pseudoclaude.sandbox import SandboxConfig, SandboxLimits

ENV = {"ANTHROPIC_API_KEY": "sk-test"}


def settings_with(
    tmp_path: Path, user: object = None, project: object = None, local: object = None, flag: str | None = None
) -> tuple[SandboxConfig, tuple[str, ...]]:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    (workspace / ".pseudoclaude").mkdir(parents=True)
    home.mkdir()
    for path, layer in (
        (home / "settings.json", user),
        (workspace / ".pseudoclaude/settings.json", project),
        (workspace / ".pseudoclaude/settings.local.json", local),
    ):
        if layer is not None:
            path.write_text(json.dumps({"sandbox": layer}))
    settings = load_settings(workspace, Flags(sandbox=flag), environ={**ENV, "PSEUDOCLAUDE_HOME": str(home)})
    return settings.sandbox, settings.trust.notices


def test_the_default_is_workspace_write_with_the_network_off(tmp_path: Path) -> None:
    config, notices = settings_with(tmp_path)
    assert (config.mode, config.network, notices) == ("workspace-write", "off", ())


def test_the_users_settings_say_everything(tmp_path: Path) -> None:
    user = {"mode": "read-only", "network": "all", "writableRoots": ["~/cache"], "limits": {"processes": 100, "memory": "2G", "fileSize": 1024}}
    config, _ = settings_with(tmp_path, user=user)
    assert (config.mode, config.network) == ("read-only", "all")
    assert config.writable_roots == (Path("~/cache").expanduser(),)
    assert config.limits == SandboxLimits(processes=100, memory_bytes=2 << 30, file_bytes=1024)


def test_a_project_may_tighten(tmp_path: Path) -> None:
    config, notices = settings_with(tmp_path, user={"network": "all"}, project={"mode": "read-only", "network": "off", "limits": {"processes": 50}})
    assert (config.mode, config.network, config.limits.processes, notices) == ("read-only", "off", 50, ())


def test_a_project_or_local_file_cannot_loosen_and_says_so(tmp_path: Path) -> None:
    config, notices = settings_with(
        tmp_path, project={"mode": "off", "writableRoots": ["/"]}, local={"network": "all", "limits": {"processes": 10**6, "fileSize": "1T"}}
    )
    assert (config.mode, config.network, config.writable_roots) == ("workspace-write", "off", ())
    assert config.limits == SandboxLimits()
    assert any("mode 'off'" in n and "writableRoots" in n for n in notices)
    assert any("settings.local.json" in n and "network 'all'" in n for n in notices)


@pytest.mark.parametrize(
    ("project", "kept", "said"),
    [
        pytest.param(["pypi.org", "evil.example"], ("pypi.org",), True, id="a domain beyond the user's is dropped and said"),
        pytest.param(["pypi.org"], ("pypi.org",), False, id="a narrower list is taken quietly"),
    ],
)
def test_a_projects_allowed_domains_only_narrow_the_users(tmp_path: Path, project: list[str], kept: tuple[str, ...], said: bool) -> None:
    user = {"network": "allowed", "allowedDomains": ["pypi.org", "github.com"]}
    config, notices = settings_with(tmp_path, user=user, project={"allowedDomains": project})
    assert (config.network, config.allowed_domains) == ("allowed", kept)
    assert ["allowedDomains beyond yours" in notice for notice in notices] == ([True] if said else [])


def test_a_project_adds_no_domain_to_a_users_empty_allow_list_but_may_narrow_all_to_its_own(tmp_path: Path) -> None:
    """An allow-list the user left empty reaches nothing; a project's domains would open it."""
    config, notices = settings_with(tmp_path / "a", user={"network": "allowed"}, project={"allowedDomains": ["evil.example"]})
    assert (config.network, config.allowed_domains) == ("allowed", ())
    assert ["allowedDomains beyond yours" in notice for notice in notices] == [True]
    config, notices = settings_with(tmp_path / "b", user={"network": "all"}, project={"network": "allowed", "allowedDomains": ["pypi.org"]})
    assert (config.network, config.allowed_domains, notices) == ("allowed", ("pypi.org",), ())


def test_a_projects_domains_with_the_network_off_are_ignored_and_said(tmp_path: Path) -> None:
    config, notices = settings_with(tmp_path / "a", project={"allowedDomains": ["pypi.org"]})
    assert (config.network, config.allowed_domains) == ("off", ())
    assert [notice for notice in notices if "ignored sandbox allowedDomains" in notice] == list(notices) and len(notices) == 1
    assert settings_with(tmp_path / "b", project={"allowedDomains": []})[1] == ()


def test_the_flag_is_the_users_word_for_this_run(tmp_path: Path) -> None:
    config, _ = settings_with(tmp_path, project={"mode": "read-only"}, flag="off")
    assert config.mode == "off"


@pytest.mark.parametrize(
    ("layer", "message"),
    [
        ("on", "`sandbox` must be an object"),
        ({"mode": "strict"}, "unknown sandbox mode 'strict'"),
        ({"network": True}, "sandbox.network must be one of off, allowed, all"),
        ({"writableRoots": "/tmp"}, "sandbox.writableRoots must be a list"),
        ({"limits": {"memory": "lots"}}, "sandbox.limits.memory must be a size"),
        ({"limits": {"processes": 0}}, "sandbox.limits.processes must be a whole number"),
        ({"limts": {}}, "unknown `sandbox` key 'limts'"),
    ],
)
def test_a_bad_value_is_a_clear_config_error_naming_the_file(tmp_path: Path, layer: object, message: str) -> None:
    with pytest.raises(ConfigError, match="settings.json") as raised:
        settings_with(tmp_path, user=layer)
    assert message in str(raised.value)


def test_a_bad_flag_value_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--sandbox: unknown sandbox mode 'loose'"):
        settings_with(tmp_path, flag="loose")
