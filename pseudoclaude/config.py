"""Settings from flags, environment, ``.env``, and settings files, in that precedence.

Settings files (JSON), later ones overriding earlier ones:
``$PSEUDOCLAUDE_HOME/settings.json`` (user), ``<workspace>/.pseudoclaude/settings.json``
(project), ``<workspace>/.pseudoclaude/settings.local.json`` (local, untracked).

Which variables hold each provider's key and base URL, and which provider a
model name belongs to, come from the provider table (``llm/providers.py``).
API keys are read from the environment or the workspace ``.env`` only, never
from settings files, and never appear in ``repr``, logs, events or sessions.

The project files (both settings files and ``.env``) come with the repository,
so they are not trusted by default (``pseudoclaude.trust``): their hooks, allow
rules, loosening permission modes and sessions folder apply only once the user
trusted them, and a base URL from the project ``.env`` never receives a key
from the user's own environment unless the folder is trusted (the default
endpoint is used instead, with one notice). ``PSEUDOCLAUDE_HOME`` is never read
from ``.env``: a repository cannot choose where the user's settings live.
This module is on the start-up path: it imports nothing heavy.

``openai_api`` (``PSEUDOCLAUDE_OPENAI_API``, the ``openaiApi`` setting):
``auto`` (OpenAI's reasoning models through the Responses API, every other
model and every server at a base URL through Chat Completions), ``responses``
(a compatible server that speaks the Responses API) or ``chat``.

Reasoning: ``effort`` (``--effort``, ``PSEUDOCLAUDE_EFFORT``, the ``effort``
setting: low, medium, high or max; unset means the provider's default, no
reasoning requested), ``max_thinking_tokens`` (``--max-thinking-tokens``,
``MAX_THINKING_TOKENS`` as Claude Code reads it, ``maxThinkingTokens``) and
``thinking`` (``--thinking adaptive|disabled``).

``shellEnvironment`` (``tools.child_env`` says why): ``include`` lists
variables the model's commands keep although their names look secret, read
from the user's settings file only (a project's is ignored, with a notice);
``exclude`` lists more to remove (names or ``*`` patterns), from any file.

``sandbox`` (``--sandbox MODE``, the ``sandbox`` setting): the OS sandbox of the
model's commands, parsed by ``pseudoclaude.sandbox.sandbox_config``; a project
or local file may only tighten it (the permission mode never touches it).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from enum import Enum
from typing import Any, Callable, Iterable, Mapping, Sequence, TypeVar

from pseudoclaude.llm import EFFORTS, PROVIDERS, ProviderEntry, UnknownProvider, provider_entry, provider_for_model
from pseudoclaude.sandbox import SandboxConfig
from pseudoclaude.trust import TrustEntry, TrustStore, WorkspaceTrust, filter_layer, find_entries, mcp_json_entries, visible

THINKING_MODES = ("adaptive", "disabled")
_Number = TypeVar("_Number", int, float)
MIN_THINKING_TOKENS = 1024



OPENAI_APIS = ("auto", "responses", "chat")


class PermissionMode(str, Enum):
    """The permission modes (``tools.permissions`` says what each allows; it lives here so settings can check it cheaply)."""

    DEFAULT = "default"
    ACCEPT_EDITS = "accept-edits"
    PLAN = "plan"
    BYPASS = "bypass"

    @property
    def claude_name(self) -> str:
        """Claude Code's name for the mode (what its hook scripts and the Agent SDK read)."""
        return _CLAUDE_MODE_NAMES[self.value]

    @classmethod
    def parse(cls, name: str) -> PermissionMode:
        """A mode by our name or Claude Code's (``acceptEdits``, ``bypassPermissions``); ``ValueError`` names the choices."""
        ours = {claude: mine for mine, claude in _CLAUDE_MODE_NAMES.items()}.get(name, name)
        try:
            return cls(ours)
        except ValueError:
            choices = ", ".join(m.value for m in cls)
            raise ValueError(f"unknown permission mode {name!r}: choose one of {choices} (or Claude Code's acceptEdits, bypassPermissions)") from None


_CLAUDE_MODE_NAMES = {"default": "default", "accept-edits": "acceptEdits", "plan": "plan", "bypass": "bypassPermissions"}


class ConfigError(Exception):
    """Bad or missing configuration: one clear line for the user, exit code 2."""


class NoProviderConfigured(ConfigError):
    """No key and no base URL anywhere: the CLI looks for a local server before showing this."""


@dataclass(frozen=True)
class Flags:
    """What the command line said; None means 'not given'."""

    model: str | None = None
    provider: str | None = None
    context_window: int | None = None
    sessions_dir: Path | None = None
    permission_mode: str | None = None
    allowed_tools: tuple[str, ...] = ()
    max_turns: int | None = None
    max_budget_usd: float | None = None
    trust_workspace: bool = False
    effort: str | None = None
    max_thinking_tokens: int | None = None
    thinking: str | None = None
    mcp_config: tuple[str, ...] = ()
    strict_mcp_config: bool = False
    sandbox: str | None = None


@dataclass(frozen=True)
class ShellEnvironment:
    """The ``shellEnvironment`` setting: secret-looking variables the model's commands keep (``include``: exact names,
    the user's own settings only) and further ones they lose (``exclude``: names or ``*`` patterns, any settings file)."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()


McpDeclarations = Mapping[str, tuple[str, Mapping[str, Any]]]
"""MCP servers by name: (where declared, the raw declaration, ``${VAR}`` not expanded yet)."""


@dataclass(frozen=True)
class Settings:
    workspace: Path
    home: Path
    sessions_dir: Path
    provider: str
    model: str
    base_url: str | None
    context_window: int | None
    permission_mode: str
    allowed_tools: tuple[str, ...]
    max_turns: int | None
    openai_api: str = "auto"
    settings_layers: tuple[Mapping[str, Any], ...] = ()
    settings_paths: tuple[Path, ...] = ()
    trust: WorkspaceTrust = WorkspaceTrust()
    api_key: str | None = field(default=None, repr=False)
    auth_token: str | None = field(default=None, repr=False)
    extra_headers: tuple[tuple[str, str], ...] = ()
    max_budget_usd: float | None = None
    effort: str | None = None
    max_thinking_tokens: int | None = None
    thinking: str | None = None
    mcp_servers: McpDeclarations = field(default_factory=dict, repr=False)
    web_fetch_local: bool = False
    model_from_flag: bool = False
    """``--model`` or ``--provider`` was given on the command line: a resumed session's recorded ``/model`` switch does not override it."""
    shell_environment: ShellEnvironment = ShellEnvironment()
    sandbox: SandboxConfig = SandboxConfig()


def pseudoclaude_home(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    return Path(env.get("PSEUDOCLAUDE_HOME") or Path.home() / ".pseudoclaude").expanduser()


def settings_paths(workspace: Path, home: Path) -> tuple[Path, Path, Path]:
    """User, project and local settings files, in increasing precedence."""
    return (home / "settings.json", workspace / ".pseudoclaude" / "settings.json", local_settings_path(workspace))


def local_settings_path(workspace: Path) -> Path:
    """The settings file of this user in this workspace, kept out of git ("always allow" answers go there)."""
    return workspace / ".pseudoclaude" / "settings.local.json"


def read_settings_file(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ConfigError(f"cannot read settings file {path}: {error}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"settings file {path} must hold a JSON object")
    return data


@dataclass(frozen=True)
class SettingsFiles:
    """The user, project and local settings files, read once; later layers override earlier ones."""

    paths: tuple[Path, ...]
    layers: tuple[Mapping[str, Any], ...]

    @classmethod
    def read(cls, workspace: Path, home: Path) -> SettingsFiles:
        paths = settings_paths(workspace, home)
        return cls(paths, tuple(read_settings_file(path) for path in paths))

    def get(self, key: str) -> Any:
        """A top-level value: the last file that has ``key`` wins."""
        value = None
        for layer in self.layers:
            value = layer.get(key, value)
        return value


def read_dotenv(workspace: Path) -> dict[str, str]:
    """The workspace ``.env`` as a mapping, values as written; the process environment is not touched.

    No ``${VAR}`` interpolation: the file comes with the repository, and
    ``OPENAI_API_KEY=${ANTHROPIC_API_KEY}`` next to its own base URL would pass the
    user's key off as the project's.
    """
    path = workspace / ".env"
    if not path.is_file():
        return {}
    from dotenv import dotenv_values

    return {key: value for key, value in dotenv_values(path, interpolate=False).items() if value is not None}


def load_settings(
    workspace: Path,
    flags: Flags = Flags(),
    environ: Mapping[str, str] | None = None,
    providers: Sequence[ProviderEntry] = PROVIDERS,
) -> Settings:
    """Resolve every setting; raise ``ConfigError`` when no provider is configured.

    Project entries the user has not trusted are left out here (``pseudoclaude.trust``),
    so nothing downstream can apply them. ``providers`` is the provider table
    (``llm.providers.PROVIDERS``); tests pass their own.
    """
    workspace = workspace.resolve()
    process = os.environ if environ is None else environ
    dotenv = read_dotenv(workspace)
    env = {**dotenv, **process}
    home = pseudoclaude_home(process)
    raw = SettingsFiles.read(workspace, home)
    model = flags.model or env.get("PSEUDOCLAUDE_MODEL") or _str(raw.get("model"))
    entry = _provider_entry(flags.provider or env.get("PSEUDOCLAUDE_PROVIDER") or _str(raw.get("provider")), model, env, providers)
    api_key = env.get(entry.key_variable) or None
    auth_token = (env.get(entry.token_variable) or None) if entry.token_variable else None
    endpoint = _project_endpoint(entry, process, dotenv)
    files, trust = trusted_settings_files(workspace, home, trust_workspace=flags.trust_workspace, raw=raw, extra=endpoint)
    base_url = env.get(entry.base_url_variable) or None
    rerouted = any(ignored.kind == "endpoint" for ignored in trust.ignored)
    if rerouted:
        base_url = None
        trust = replace(trust, notices=(*trust.notices, _rerouted(entry, dotenv[entry.base_url_variable], bool(process.get(entry.key_variable)))))
    elif endpoint == () and entry.base_url_variable in dotenv and entry.base_url_variable not in process and trust.trusted_by is None:
        trust = replace(trust, notices=(*trust.notices, _project_pair(entry, api_key, dotenv[entry.base_url_variable])))
    if api_key is None and auth_token is None and not (entry.keyless_server and base_url):
        untrusted = (
            f"; this folder's .env names the server {dotenv[entry.base_url_variable]}, used only once you trust the folder (--trust-workspace)"
            if rerouted else ""
        )
        raise ConfigError(f"the {entry.name} provider needs {entry.key_variable} (in the environment or in .env){visible(untrusted)}")

    window = flags.context_window or _int(env.get("PSEUDOCLAUDE_CONTEXT_WINDOW"), "PSEUDOCLAUDE_CONTEXT_WINDOW") or _int(files.get("contextWindow"), "contextWindow")
    sandbox, sandbox_notices = _sandbox(raw, workspace, flags.sandbox)
    if sandbox_notices:
        trust = replace(trust, notices=(*trust.notices, *sandbox_notices))
    mode_name = flags.permission_mode or _mode_name(files) or "default"
    try:
        mode = PermissionMode.parse(mode_name).value
    except ValueError as error:
        raise ConfigError(str(error)) from None
    shell_environment, ignored_include = _shell_environment(files)
    if ignored_include:
        trust = replace(trust, notices=(*trust.notices, *ignored_include))
    return Settings(
        workspace=workspace,
        home=home,
        sessions_dir=_sessions_dir(flags.sessions_dir, files, home),
        provider=entry.name,
        model=model or entry.default_model,
        base_url=base_url,
        context_window=window,
        permission_mode=mode,
        allowed_tools=flags.allowed_tools,
        max_turns=flags.max_turns or _lowest(files, "maxTurns", _int),
        max_budget_usd=flags.max_budget_usd or _lowest(files, "maxBudgetUsd", _dollars),
        openai_api=_openai_api(env, files),
        settings_layers=files.layers,
        settings_paths=files.paths,
        trust=trust,
        api_key=api_key,
        auth_token=auth_token,
        extra_headers=_custom_headers(entry, env),
        mcp_servers=mcp_declarations(workspace, raw.layers[0], flags, trust),
        web_fetch_local=process.get("PSEUDOCLAUDE_WEB_FETCH_LOCAL") == "1" or raw.layers[0].get("webFetchLocalAddresses") is True,
        model_from_flag=bool(flags.model or flags.provider),
        shell_environment=shell_environment,
        sandbox=sandbox,
        **_reasoning(flags, env, files),
    )


def trusted_settings_files(
    workspace: Path,
    home: Path,
    *,
    trust_workspace: bool = False,
    raw: SettingsFiles | None = None,
    extra: tuple[TrustEntry, ...] = (),
) -> tuple[SettingsFiles, WorkspaceTrust]:
    """The settings files with every project entry the user has not trusted left out, and what was left out.

    Trusted: everything with ``--trust-workspace`` or when the user's settings list the folder in
    ``trustedWorkspaces``; otherwise the entries approved earlier in this folder (``TrustStore``).
    ``extra``: entries found elsewhere (a base URL from the project ``.env``).
    """
    workspace = workspace.resolve()
    files = raw if raw is not None else SettingsFiles.read(workspace, home)
    project = [(_shown(path, workspace), layer) for path, layer in zip(files.paths[1:], files.layers[1:])]
    entries = tuple(dict.fromkeys([*find_entries(project), *mcp_json_entries(read_mcp_json(workspace)), *extra]))
    if not entries:
        return files, WorkspaceTrust(folder=workspace)
    trusted_by = "--trust-workspace" if trust_workspace else ("trustedWorkspaces" if _listed(files.layers[0], workspace) else None)
    if trusted_by is not None:
        approved, declined = frozenset(entry.fingerprint for entry in entries), frozenset[str]()
    else:
        approved, declined = TrustStore(home).answers(workspace)
    ignored = tuple(_unique(entry for entry in entries if entry.fingerprint not in approved))
    pending = tuple(entry for entry in ignored if entry.fingerprint not in declined)
    layers = (files.layers[0], *(filter_layer(source, layer, approved) for source, layer in project))
    trust = WorkspaceTrust(workspace, entries, ignored, pending, trusted_by)
    return SettingsFiles(files.paths, layers), trust


MCP_JSON = ".mcp.json"


def read_mcp_json(workspace: Path) -> dict[str, Any]:
    """The ``mcpServers`` of the project's ``.mcp.json`` (Claude Code's file), unchecked beyond the shape."""
    return _mcp_servers(read_settings_file(workspace / MCP_JSON), workspace / MCP_JSON)


def mcp_declarations(workspace: Path, user: Mapping[str, Any], flags: Flags, trust: WorkspaceTrust) -> McpDeclarations:
    """The MCP servers of this run: the user's settings, then the trusted ``.mcp.json`` servers, then ``--mcp-config``
    (a later one with the same name wins); with ``--strict-mcp-config`` only the last."""
    found: dict[str, tuple[str, Mapping[str, Any]]] = {}
    if not flags.strict_mcp_config:
        found.update((name, ("user settings", raw)) for name, raw in _mcp_servers(user, Path("user settings")).items())
        ignored = {entry.fingerprint for entry in trust.ignored}
        project = read_mcp_json(workspace)
        kept = {entry.value for entry in mcp_json_entries(project) if entry.fingerprint not in ignored}
        found.update((name, (MCP_JSON, raw)) for name, raw in project.items() if name in kept)
    for value in flags.mcp_config:
        found.update((name, ("--mcp-config", raw)) for name, raw in _mcp_config(value).items())
    return found


def _mcp_config(value: str) -> dict[str, Any]:
    """One ``--mcp-config`` value: a JSON object, or a file holding one."""
    if value.lstrip().startswith("{"):
        try:
            document = json.loads(value)
        except json.JSONDecodeError as error:
            raise ConfigError(f"--mcp-config: not valid JSON ({error})") from None
        if not isinstance(document, dict):
            raise ConfigError("--mcp-config must hold a JSON object")
        return _mcp_servers(document, Path("--mcp-config"))
    path = Path(value).expanduser()
    if not path.is_file():
        raise ConfigError(f"--mcp-config: no such file {path}")
    return _mcp_servers(read_settings_file(path), path)


def _mcp_servers(document: Mapping[str, Any], where: Path) -> dict[str, Any]:
    servers = document.get("mcpServers", {})
    if not isinstance(servers, dict) or not all(isinstance(raw, dict) for raw in servers.values()):
        raise ConfigError(f"{where}: `mcpServers` must be an object of server objects")
    return servers


def _sandbox(raw: SettingsFiles, workspace: Path, flag: str | None) -> tuple[SandboxConfig, tuple[str, ...]]:
    """The sandbox from every settings file (the untrusted ones too: they can only tighten it) and ``--sandbox``."""
    from pseudoclaude.sandbox import SandboxSettingsError, sandbox_config

    layers = [(_shown(path, workspace), layer) for path, layer in zip(raw.paths, raw.layers)]
    try:
        return sandbox_config(layers, mode_flag=flag)
    except SandboxSettingsError as error:
        raise ConfigError(str(error)) from None


def _reasoning(flags: Flags, env: Mapping[str, str], files: SettingsFiles) -> dict[str, Any]:
    """``effort``, ``max_thinking_tokens`` and ``thinking``, checked (see the module docstring)."""
    effort = flags.effort or env.get("PSEUDOCLAUDE_EFFORT") or _str(files.get("effort"))
    if effort is not None and effort not in EFFORTS:
        raise ConfigError(f"unknown effort {effort!r}: choose one of {', '.join(EFFORTS)}")
    tokens = flags.max_thinking_tokens or _int(env.get("MAX_THINKING_TOKENS"), "MAX_THINKING_TOKENS") or _int(files.get("maxThinkingTokens"), "maxThinkingTokens")
    if tokens is not None and tokens < MIN_THINKING_TOKENS:
        raise ConfigError(f"the thinking budget must be at least {MIN_THINKING_TOKENS} tokens, not {tokens}")
    thinking = flags.thinking or _str(files.get("thinking"))
    if thinking is not None and thinking not in THINKING_MODES:
        raise ConfigError(f"unknown thinking mode {thinking!r}: choose adaptive or disabled")
    return {"effort": effort, "max_thinking_tokens": tokens, "thinking": thinking}


def _shell_environment(files: SettingsFiles) -> tuple[ShellEnvironment, tuple[str, ...]]:
    """``shellEnvironment`` of the settings files, and a notice for each project file whose ``include`` is ignored."""
    include: tuple[str, ...] = ()
    exclude: list[str] = []
    notices: list[str] = []
    for index, (path, layer) in enumerate(zip(files.paths, files.layers)):
        setting = layer.get("shellEnvironment")
        if setting is None:
            continue
        if not isinstance(setting, Mapping):
            raise ConfigError(f"{path}: `shellEnvironment` must be an object with `include` and `exclude` lists")
        names = _names(setting.get("include"), f"{path}: `shellEnvironment.include`")
        if index == 0:
            patterns = [name for name in names if any(char in name for char in "*?[")]
            if patterns:
                raise ConfigError(f"{path}: `shellEnvironment.include` takes exact variable names, not patterns ({patterns[0]})")
            include = names
        elif names:
            notices.append(visible(
                f"ignoring `shellEnvironment.include` in {path}: only your own settings ({files.paths[0]}) "
                "can pass a secret variable to the model's commands"
            ))
        exclude.extend(_names(setting.get("exclude"), f"{path}: `shellEnvironment.exclude`"))
    return ShellEnvironment(include, tuple(dict.fromkeys(exclude))), tuple(notices)


def _names(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(name, str) and name for name in value):
        raise ConfigError(f"{where} must be a list of variable names")
    return tuple(value)


def resolve_sessions_dir(workspace: Path, flag: Path | None = None, environ: Mapping[str, str] | None = None) -> Path:
    """Where sessions are kept, by ``load_settings``'s rule, for commands that need no provider."""
    if flag is not None:
        return flag
    workspace = workspace.resolve()
    home = pseudoclaude_home(os.environ if environ is None else environ)
    files, _ = trusted_settings_files(workspace, home)
    return _sessions_dir(None, files, home)


def _project_endpoint(entry: ProviderEntry, process: Mapping[str, str], dotenv: Mapping[str, str]) -> tuple[TrustEntry, ...]:
    """The project ``.env``'s base URL as an entry needing trust, unless it can take nothing of the user's.

    A base URL from the user's environment is the user's. One from the project
    ``.env`` needs consent when it would receive the user's own key, and also
    when it is another machine's, whatever key goes with it: that server would
    read the whole conversation (what the user types, every file the model
    reads) and play the model, whose replies drive the tools. A loopback server
    named with the project's own key (or none) is on this machine and needs no
    consent (``load_settings`` still says where requests go).
    """
    variable = entry.base_url_variable
    if variable not in dotenv or process.get(variable):
        return ()
    url = dotenv[variable]
    if any(process.get(name) for name in entry.credential_variables):
        return (TrustEntry("endpoint", url, ".env", f"your {entry.key_variable} (from your environment)"),)
    if _loopback(url):
        return ()
    return (TrustEntry("endpoint", url, ".env", "this whole conversation (that server would play the model)"),)


def _custom_headers(entry: ProviderEntry, env: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The extra request headers of ``entry`` (``ANTHROPIC_CUSTOM_HEADERS``); a malformed line is a ``ConfigError``."""
    from pseudoclaude.llm import CustomHeadersError, parse_custom_headers

    try:
        return parse_custom_headers(env.get(entry.headers_variable), entry.headers_variable) if entry.headers_variable else ()
    except CustomHeadersError as error:
        raise ConfigError(str(error)) from None


def _loopback(url: str) -> bool:
    import ipaddress
    from urllib.parse import urlsplit

    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _rerouted(entry: ProviderEntry, url: str, users_key: bool) -> str:
    what = f"your {entry.key_variable}" if users_key else "this conversation"
    return visible(
        f"not sending {what} to {url} ({entry.base_url_variable} in this folder's .env): "
        f"using the default {entry.name} endpoint until you trust this folder"
    )


def _project_pair(entry: ProviderEntry, api_key: str | None, url: str) -> str:
    key = f"with the {entry.key_variable} from the same file" if api_key else "with no key"
    return visible(f"model requests go to {url} ({entry.base_url_variable} in this folder's .env, {key})")


def _listed(user: Mapping[str, Any], workspace: Path) -> bool:
    """Whether the user's own settings list ``workspace`` in ``trustedWorkspaces`` (exact folders, ``~`` expanded)."""
    listed = user.get("trustedWorkspaces")
    if not isinstance(listed, list):
        return False
    real = os.path.realpath(workspace)
    return any(isinstance(item, str) and item and os.path.realpath(Path(item).expanduser()) == real for item in listed)


def _shown(path: Path, workspace: Path) -> str:
    try:
        return path.relative_to(workspace).as_posix()
    except ValueError:
        return str(path)


def _unique(entries: Iterable[TrustEntry]) -> Iterable[TrustEntry]:
    seen: set[str] = set()
    for entry in entries:
        if entry.fingerprint not in seen:
            seen.add(entry.fingerprint)
            yield entry


def _sessions_dir(flag: Path | None, files: SettingsFiles, home: Path) -> Path:
    configured = files.get("sessionsDir")
    return flag or (Path(configured).expanduser() if configured else home / "sessions")


def _openai_api(env: Mapping[str, str], files: SettingsFiles) -> str:
    api = env.get("PSEUDOCLAUDE_OPENAI_API") or _str(files.get("openaiApi")) or "auto"
    if api not in OPENAI_APIS:
        raise ConfigError(f"unknown OpenAI API {api!r}: choose one of {', '.join(OPENAI_APIS)}")
    return api


def _provider_entry(
    named: str | None, model: str | None, env: Mapping[str, str], providers: Sequence[ProviderEntry]
) -> ProviderEntry:
    """The provider named, else the one the model name belongs to, else the first the environment configures."""
    if named:
        try:
            return provider_entry(named, providers)
        except UnknownProvider as error:
            raise ConfigError(str(error)) from None
    configured = [entry for entry in providers if entry.configured_in(env)]
    inferred = provider_for_model(model, providers) if model else None
    if inferred is not None:
        return _settle_guess(provider_entry(inferred, providers), model or "", configured, env)
    if configured:
        return configured[0]
    choices = ", or ".join(
        entry.key_variable + (f" (or {entry.base_url_variable} for {entry.keyless_server})" if entry.keyless_server else "")
        + (f" (or {entry.token_variable} for a gateway)" if entry.token_variable else "")
        for entry in providers
    )
    raise NoProviderConfigured(f"no model provider is configured: set {choices}, in the environment or in .env")


def _settle_guess(guess: ProviderEntry, model: str, configured: Sequence[ProviderEntry], env: Mapping[str, str]) -> ProviderEntry:
    """The provider the model name suggests, unless the configuration says otherwise (a gateway such as LiteLLM).

    The guess stands when it is configured, or when nothing is. When the only configured
    provider is a server at a base URL (which serves whatever names it likes: ``claude-via-litellm``
    through LiteLLM), that one is used; any other disagreement is an error naming ``--provider``.
    """
    if guess in configured or not configured:
        return guess
    if len(configured) == 1 and env.get(configured[0].base_url_variable):
        return configured[0]
    names = " or ".join(f"--provider {entry.name}" for entry in configured)
    raise ConfigError(
        f"the model name {model!r} looks like a {guess.name} model, but {guess.key_variable} is not set and "
        f"{', '.join(entry.name for entry in configured)} is configured: pass {names} to send it there, or set {guess.key_variable}"
    )


def _mode_name(files: SettingsFiles) -> str | None:
    """``permissions.defaultMode``, the last file setting it winning, except that a project's ``default``
    (which needs no trust) does not lift the user's own ``plan``."""
    name: str | None = None
    for index, layer in enumerate(files.layers):
        permissions = layer.get("permissions")
        value = _str(permissions.get("defaultMode")) if isinstance(permissions, Mapping) else None
        if value is not None and not (index > 0 and value == "default" and name == "plan"):
            name = value
    return name


def _lowest(files: SettingsFiles, key: str, parse: Callable[[Any, str], _Number | None]) -> _Number | None:
    """A limit (``maxTurns``, ``maxBudgetUsd``) as the lowest any settings file sets: a project may
    tighten the user's limit, never raise it (a cloned repository must not lift a spending cap)."""
    found = [value for layer in files.layers if (value := parse(layer.get(key), key)) is not None]
    return min(found) if found else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _dollars(value: Any, name: str) -> float | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ConfigError(f"{name} must be a number of US dollars, not {value!r}")
    try:
        number = float(value)
    except ValueError:
        raise ConfigError(f"{name} must be a number of US dollars, not {value!r}") from None
    if not number > 0 or number == float("inf"):
        raise ConfigError(f"{name} must be a positive number of US dollars, not {value!r}")
    return number


def _int(value: Any, name: str) -> int | None:
    if value is None or value == "":
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{name} must be a whole number, not {value!r}") from None
    if number <= 0:
        raise ConfigError(f"{name} must be positive, not {number}")
    return number
