"""Gateways: ANTHROPIC_AUTH_TOKEN and ANTHROPIC_CUSTOM_HEADERS read into the settings, parsed strictly, and the
one-line effort notice for each route that cannot carry the effort as set."""

from __future__ import annotations

from pathlib import Path

import pytest

from pseudoclaude.config import ConfigError, load_settings
from pseudoclaude.llm import effort_notice
from pseudoclaude.llm.gateway import CustomHeadersError, openai_api, parse_custom_headers
from pseudoclaude.llm.providers import ANTHROPIC, OPENAI
from pseudoclaude.tools.child_env import looks_secret

LOCAL = "http://127.0.0.1:4000/v1"


def env(tmp_path: Path, **variables: str) -> dict[str, str]:
    return {"PSEUDOCLAUDE_HOME": str(tmp_path / "home"), **variables}


def test_custom_headers_are_name_value_lines_in_order_blank_lines_and_crlf_allowed() -> None:
    text = "X-Team: core\r\n\n  anthropic-beta :  tools-2024  \nX-Empty:\nX-Url: http://a:b/c"
    assert parse_custom_headers(text) == (("X-Team", "core"), ("anthropic-beta", "tools-2024"), ("X-Empty", ""), ("X-Url", "http://a:b/c"))
    assert parse_custom_headers(None) == () and parse_custom_headers("") == ()


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("X-Team: core\nBearer sk-secret-value", "ANTHROPIC_CUSTOM_HEADERS line 2 is not `Name: value`"),
        (": value", "line 1 is not `Name: value`"),
        ("X Team: core", "'X Team' is not a valid header name"),
        ("Content-Length: 5", "Content-Length is set by the HTTP client"),
        ("Host: evil.example", "Host is set by the HTTP client"),
        ("X-A: one\x00two", "the value of X-A holds a control character"),
    ],
)
def test_a_malformed_custom_header_line_is_an_error_naming_the_line_never_the_value(text: str, said: str) -> None:
    with pytest.raises(CustomHeadersError) as raised:
        parse_custom_headers(text)
    assert said in str(raised.value)
    assert "sk-secret-value" not in str(raised.value)


def test_the_auth_token_alone_configures_anthropic_and_the_headers_are_read(tmp_path: Path) -> None:
    settings = load_settings(tmp_path, environ=env(tmp_path, ANTHROPIC_AUTH_TOKEN="gw-token-123", ANTHROPIC_CUSTOM_HEADERS="X-Team: core"))
    assert (settings.provider, settings.api_key, settings.auth_token) == ("anthropic", None, "gw-token-123")
    assert settings.extra_headers == (("X-Team", "core"),)
    assert "gw-token-123" not in repr(settings)


def test_malformed_custom_headers_stop_the_start_with_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="ANTHROPIC_CUSTOM_HEADERS line 1"):
        load_settings(tmp_path, environ=env(tmp_path, ANTHROPIC_API_KEY="k", ANTHROPIC_CUSTOM_HEADERS="no colon here"))


def test_a_project_env_base_url_needs_trust_before_it_gets_the_users_token(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("ANTHROPIC_BASE_URL=http://127.0.0.1:9/\n")
    settings = load_settings(tmp_path, environ=env(tmp_path, ANTHROPIC_AUTH_TOKEN="users-own-token"))
    assert settings.base_url is None and settings.auth_token == "users-own-token"


def test_the_token_and_header_variables_are_withheld_from_the_models_commands() -> None:
    assert ANTHROPIC.credential_variables == ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_CUSTOM_HEADERS")
    assert looks_secret("ANTHROPIC_CUSTOM_HEADERS") and looks_secret("ANTHROPIC_AUTH_TOKEN")
    assert OPENAI.credential_variables == ("OPENAI_API_KEY",)


def test_reasoning_models_take_responses_only_on_openai_itself_unless_told() -> None:
    assert openai_api(True, None) == "responses" and openai_api(True, "https://api.openai.com/v1") == "responses"
    assert openai_api(True, LOCAL) == "chat" and openai_api(False, None) == "chat"
    assert openai_api(True, LOCAL, "responses") == "responses" and openai_api(True, None, "chat") == "chat"


def test_an_effort_the_route_carries_is_not_remarked() -> None:
    assert effort_notice("gpt-5", "high") is None
    assert effort_notice("gpt-5.2", "max") is None
    assert effort_notice("gpt-5", "high", base_url=LOCAL, api="responses") is None
    assert effort_notice("claude-sonnet-4-5", "max") is None
    assert effort_notice("gpt-4.1", None, base_url=LOCAL) is None


def test_an_effort_the_route_cannot_carry_is_said_in_one_line() -> None:
    assert effort_notice("gpt-4.1", "high") == "gpt-4.1 does not take an effort setting: effort high is ignored"
    assert effort_notice("gpt-5", "max") == "gpt-5: effort max is sent as high, the most gpt-5 takes"
    through = effort_notice("gpt-5", "high", base_url=LOCAL)
    assert through is not None and "\n" not in through
    assert through.startswith(f"gpt-5: the server at {LOCAL} gets effort high as Chat Completions' reasoning_effort")
    assert "PSEUDOCLAUDE_OPENAI_API=responses" in through
    both = effort_notice("o3", "max", base_url=LOCAL)
    assert both is not None and both.startswith("o3: effort max is sent as high") and "gets effort high as" in both


def test_doctor_says_the_bearer_token_is_the_credential(tmp_path: Path) -> None:
    from pseudoclaude.doctor import run_doctor

    checks = run_doctor(tmp_path, environ=env(tmp_path, ANTHROPIC_AUTH_TOKEN="gw-token-123", ANTHROPIC_BASE_URL="http://127.0.0.1:9"))
    key = next(check for check in checks if check.name == "key")
    assert (key.verdict, key.detail) == ("ok", "auth: Bearer token (ANTHROPIC_AUTH_TOKEN)")
    assert all("gw-token-123" not in check.detail for check in checks)


def test_a_token_from_the_workspace_env_and_credential_headers_are_masked_in_what_commands_print(tmp_path: Path) -> None:
    from pseudoclaude.agent.build import child_environment

    (tmp_path / ".env").write_text("ANTHROPIC_AUTH_TOKEN=token-from-dotenv-42\n")
    headers = "X-Api-Key: header-secret-9911\nAuthorization-Extra: also-secret-7788\nX-Route: eu-west-routing"
    settings = load_settings(tmp_path, environ=env(tmp_path, ANTHROPIC_CUSTOM_HEADERS=headers))
    redactor = child_environment(settings).redactor
    shown = redactor.text("token-from-dotenv-42 header-secret-9911 also-secret-7788 eu-west-routing")
    assert shown == "*** *** *** eu-west-routing"


def test_the_no_provider_message_names_the_gateway_token(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"ANTHROPIC_API_KEY \(or ANTHROPIC_AUTH_TOKEN for a gateway\)"):
        load_settings(tmp_path, environ=env(tmp_path))
