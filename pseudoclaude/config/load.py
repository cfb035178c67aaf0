"""``load_settings``: every row of the settings table resolved, with its origin, into one ``Settings``."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from pseudoclaude.config.files import SettingsFiles, parse_setting_sources, pseudoclaude_home, read_dotenv, shown
from pseudoclaude.config.mcp import mcp_declarations, server_names
from pseudoclaude.config.provider import (
    choose_provider,
    credentials,
    custom_headers,
    project_endpoint,
    project_pair,
    rerouted,
    run_key_helper,
)
from pseudoclaude.config.resolve import Resolved, Variables, from_files, resolve
from pseudoclaude.config.table import ROWS, SETTINGS, Setting, raw as consumer_parsed
from pseudoclaude.config.trusted import trusted_settings_files
from pseudoclaude.config.types import ConfigError, Flags, Origin, PermissionMode, Settings, ShellEnvironment
from pseudoclaude.llm import PROVIDERS, ProviderEntry
from pseudoclaude.sandbox import SandboxConfig
from pseudoclaude.trust import WorkspaceTrust, visible

_RESOLVED_APART = frozenset({"model", "claude_model", "provider", "api_key_helper", "permission_mode", "sessions_dir"})
"""Rows with rules of their own below (the provider's choice, a Claude Code model alias, the mode's names, the home's
default folder); every other row with a parser resolves the same way, into ``Settings.values`` (rows parsed ``raw``
are read by their consumers from the files)."""


def load_settings(
    workspace: Path,
    flags: Flags = Flags(),
    environ: Mapping[str, str] | None = None,
    providers: Sequence[ProviderEntry] = PROVIDERS,
    table: Sequence[Setting] = SETTINGS,
) -> Settings:
    """Resolve every setting; raise ``ConfigError`` when no provider is configured.

    Project entries the user has not trusted are left out here (``pseudoclaude.trust``),
    so nothing downstream can apply them. ``providers`` is the provider table
    (``llm.providers.PROVIDERS``) and ``table`` the settings table (``config.table.SETTINGS``); tests pass their own.
    """
    rows = {row.name: row for row in table}
    workspace = workspace.resolve()
    process = os.environ if environ is None else environ
    dotenv = read_dotenv(workspace)
    home = pseudoclaude_home(process)
    raw = SettingsFiles.read(workspace, home, process, parse_setting_sources(flags.setting_sources))
    files, trust = trusted_settings_files(workspace, home, trust_workspace=flags.trust_workspace, raw=raw)
    variables = Variables(process, dotenv, session_variables(files))
    env = variables.merged()
    found = {name: resolve(rows[name], flags, variables, files) for name in ("model", "claude_model", "provider")}
    helper = from_files(rows["api_key_helper"], files)
    entry = choose_provider(found["provider"].value, found["model"].value, env, providers, helper=helper.value is not None)
    model, alias_notice = _model(found["model"], found["claude_model"], entry)
    endpoint = project_endpoint(entry, variables.users(), dotenv)
    if endpoint:
        _, trust = trusted_settings_files(workspace, home, trust_workspace=flags.trust_workspace, raw=raw, extra=endpoint)
    credential = {name: variables.find(name) for name in credentials(entry)}
    api_key = env.get(entry.key_variable) or None
    auth_token = (env.get(entry.token_variable) or None) if entry.token_variable else None
    base_url = env.get(entry.base_url_variable) or None
    users = variables.users()
    was_rerouted = any(ignored.kind == "endpoint" for ignored in trust.ignored)
    if was_rerouted:
        base_url = None
        trust = _noticed(trust, rerouted(entry, dotenv[entry.base_url_variable], bool(users.get(entry.key_variable))))
    elif not endpoint and entry.base_url_variable in dotenv and not users.get(entry.base_url_variable) and trust.trusted_by is None:
        trust = _noticed(trust, project_pair(entry, api_key, dotenv[entry.base_url_variable]))
    if api_key is None and auth_token is None and isinstance(helper.value, str) and entry.token_variable:
        api_key = run_key_helper(helper.value, helper.source, str(workspace))
        credential[entry.key_variable] = ("set", f"apiKeyHelper of {helper.source}")
    if api_key is None and auth_token is None and not (entry.keyless_server and base_url):
        untrusted = (
            f"; this folder's .env names the server {dotenv[entry.base_url_variable]}, used only once you trust the folder (--trust-workspace)"
            if was_rerouted
            else ""
        )
        raise ConfigError(f"the {entry.name} provider needs {entry.key_variable} (in the environment or in .env){visible(untrusted)}")

    plain = {row.name: resolve(row, flags, variables, files) for row in table if row.parse is not consumer_parsed and row.name not in _RESOLVED_APART}
    sandbox, sandbox_notices = _sandbox(raw, workspace, flags.sandbox)
    mode = resolve(rows["permission_mode"], flags, variables, files)
    try:
        mode_name = PermissionMode.parse(str(mode.value)).value
    except ValueError as error:
        raise ConfigError(f"{error} (from {mode.source})") from None
    shell_environment, ignored_include = _shell_environment(files)
    sessions = resolve(rows["sessions_dir"], flags, variables, files)
    sessions_dir = sessions.value if sessions.value is not None else home / "sessions"
    trust = _noticed(trust, *sandbox_notices, *ignored_include, *_additional_directories(files), *alias_notice)
    origins = {name: resolved.origin() for name, resolved in {**found, **plain, "model": model, "permission_mode": mode}.items()}
    origins["sessions_dir"] = Origin(str(sessions_dir), sessions.source)
    origins["permission_mode"] = Origin(mode_name, mode.source)
    origins["api_key"] = _secret_origin(credential.get(entry.key_variable), api_key)
    if auth_token is not None:
        origins["auth_token"] = _secret_origin(credential.get(entry.token_variable), auth_token)
    headers = custom_headers(entry, env)
    if headers:
        origins["extra_headers"] = Origin(", ".join(name for name, _ in headers), (credential.get(entry.headers_variable) or ("", ""))[1])
    base = variables.find(entry.base_url_variable)
    origins["base_url"] = Origin(base_url, base[1]) if base_url and base else Origin("the provider's", "default")
    for name in ("hooks", "permission_rules", "env", "sandbox", "shell_environment"):
        origins[name] = from_files(rows[name], files).origin()
    return Settings(
        workspace=workspace,
        home=home,
        sessions_dir=sessions_dir,
        provider=entry.name,
        model=str(model.value),
        base_url=base_url,
        context_window=plain["context_window"].value,
        context_engine=str(plain["context_engine"].value),
        permission_mode=mode_name,
        allowed_tools=flags.allowed_tools,
        max_turns=plain["max_turns"].value,
        max_budget_usd=plain["max_budget_usd"].value,
        openai_api=str(plain["openai_api"].value),
        settings_layers=files.layers,
        settings_paths=files.paths,
        settings_labels=tuple(file.label for file in files.files),
        trust=trust,
        api_key=api_key,
        auth_token=auth_token,
        extra_headers=headers,
        mcp_servers=mcp_declarations(workspace, files.user, flags, trust, _disabled_servers(files)),
        web_fetch_local=plain["web_fetch_local"].value is True,
        model_from_flag=bool(flags.model or flags.provider),
        shell_environment=shell_environment,
        sandbox=sandbox,
        effort=plain["effort"].value,
        max_thinking_tokens=plain["max_thinking_tokens"].value,
        thinking=plain["thinking"].value,
        origins=origins,
        session_env={name: value for name, (value, _) in session_variables(files).items()},
        values={name: resolved.value for name, resolved in plain.items()},
    )


def resolve_sessions_dir(workspace: Path, flag: Path | None = None, environ: Mapping[str, str] | None = None) -> Path:
    """Where sessions are kept, by ``load_settings``'s rule, for commands that need no provider."""
    if flag is not None:
        return flag
    workspace = workspace.resolve()
    process = os.environ if environ is None else environ
    home = pseudoclaude_home(process)
    files, _ = trusted_settings_files(workspace, home, environ=process)
    configured = from_files(ROWS["sessions_dir"], files).value
    return configured if isinstance(configured, Path) else home / "sessions"


def session_variables(files: SettingsFiles) -> dict[str, tuple[str, Any]]:
    """The ``env`` setting of every (trusted) settings file, by variable: (value, the file); a later file wins."""
    found: dict[str, tuple[str, Any]] = {}
    for file, layer in files.pairs():
        env = layer.get("env")
        if env is None:
            continue
        if not isinstance(env, Mapping):
            raise ConfigError(f"{file.path}: `env` must be an object of variable names and values")
        for name, value in env.items():
            found[str(name)] = (value if isinstance(value, str) else json.dumps(value), file)
    return found


CLAUDE_ALIASES = frozenset({"default", "sonnet", "opus", "haiku", "opusplan", "best"})
"""Claude Code's model aliases: they name no model on the wire, so ours (``entry.default_model``) is used instead."""


def _model(ours: Resolved, claude: Resolved, entry: ProviderEntry) -> tuple[Resolved, tuple[str, ...]]:
    """The model: ours if set, else Claude Code's (``ANTHROPIC_MODEL``, a ``.claude`` file's ``model``) for the
    anthropic provider, without Claude Code's ``[1m]`` suffix; an alias (``opus``) falls back to the default, with a notice."""
    if ours.value is not None:
        return ours, ()
    if claude.value is None or entry.name != "anthropic":
        return Resolved(entry.default_model, "default"), ()
    name = str(claude.value).split("[", 1)[0]
    if name.lower() in CLAUDE_ALIASES:
        notice = f"Claude Code's model alias {name!r} ({claude.source}) names no model here: using {entry.default_model} (set PSEUDOCLAUDE_MODEL or --model)"
        return Resolved(entry.default_model, "default"), (visible(notice),)
    return Resolved(name, claude.source), ()


def _secret_origin(found: tuple[str, str] | None, value: str | None) -> Origin:
    """A credential's origin: where it was found, never its value."""
    if not value:
        return Origin("not set", "not set")
    return Origin("set", found[1] if found else "not set")


def _noticed(trust: WorkspaceTrust, *notices: str) -> WorkspaceTrust:
    return replace(trust, notices=(*trust.notices, *notices)) if notices else trust


def _additional_directories(files: SettingsFiles) -> tuple[str, ...]:
    """One notice when a file asks for ``permissions.additionalDirectories``: the tools stay inside the workspace."""
    asked = from_files(ROWS["additional_directories"], files)
    if not any(isinstance(value, list) and value for value in asked.value or ()):
        return ()
    return (visible(f"`permissions.additionalDirectories` is not supported ({asked.source}): the tools stay inside the workspace"),)


def _disabled_servers(files: SettingsFiles) -> tuple[str, ...]:
    values = from_files(ROWS["disabled_mcpjson_servers"], files).value or ()
    return tuple(name for value in values for name in server_names(value, "disabledMcpjsonServers"))


def _sandbox(raw: SettingsFiles, workspace: Path, flag: str | None) -> tuple[SandboxConfig, tuple[str, ...]]:
    """The sandbox from our settings files (the untrusted ones too: they can only tighten it) and ``--sandbox``.

    Claude Code's files are left out: their ``sandbox`` setting has another shape."""
    from pseudoclaude.sandbox import SandboxSettingsError, sandbox_config

    layers = [(shown(file.path, workspace), layer) for file, layer in raw.pairs(family="ours")]
    try:
        return sandbox_config(layers, mode_flag=flag)
    except SandboxSettingsError as error:
        raise ConfigError(str(error)) from None


def _shell_environment(files: SettingsFiles) -> tuple[ShellEnvironment, tuple[str, ...]]:
    """``shellEnvironment`` of our settings files, and a notice for each project file whose ``include`` is ignored."""
    include: tuple[str, ...] = ()
    exclude: list[str] = []
    notices: list[str] = []
    user_path = next(file.path for file, _ in files.pairs(family="ours", scopes=("user",)))
    for file, layer in files.pairs(family="ours"):
        setting = layer.get("shellEnvironment")
        if setting is None:
            continue
        path = file.path
        if not isinstance(setting, Mapping):
            raise ConfigError(f"{path}: `shellEnvironment` must be an object with `include` and `exclude` lists")
        names = _names(setting.get("include"), f"{path}: `shellEnvironment.include`")
        if file.scope == "user":
            patterns = [name for name in names if any(char in name for char in "*?[")]
            if patterns:
                raise ConfigError(f"{path}: `shellEnvironment.include` takes exact variable names, not patterns ({patterns[0]})")
            include = names
        elif names:
            notices.append(
                visible(
                    f"ignoring `shellEnvironment.include` in {path}: only your own settings ({user_path}) can pass a secret variable to the model's commands"
                )
            )
        exclude.extend(_names(setting.get("exclude"), f"{path}: `shellEnvironment.exclude`"))
    return ShellEnvironment(include, tuple(dict.fromkeys(exclude))), tuple(notices)


def _names(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(name, str) and name for name in value):
        raise ConfigError(f"{where} must be a list of variable names")
    return tuple(value)
