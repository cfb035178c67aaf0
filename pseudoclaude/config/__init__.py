"""Settings from flags, environment, ``.env``, and settings files, in that precedence.

Settings files (JSON), lowest precedence first; at each scope Claude Code's
file comes before ours, so ours wins a conflict and a team's checked-in
``.claude/settings.json`` still applies (``config.files``)::

    Claude user < ours user < Claude project < ours project < Claude local < ours local < command line

    ~/.claude/settings.json (CLAUDE_CONFIG_DIR replaces ~/.claude)   $PSEUDOCLAUDE_HOME/settings.json
    .claude/settings.json                                            .pseudoclaude/settings.json
    .claude/settings.local.json                                      .pseudoclaude/settings.local.json

Hooks and permission rules of every file combine: every hook runs, rules are
the union (a deny anywhere holds). Every setting is one row of the settings
table (``config.table``: flag, variable, file key, parser, merge rule,
whether a project file needs trust for it); one resolver (``config.resolve``)
records where each value came from, in ``Settings.origins``, for ``/status``
and ``doctor``. ``--setting-sources`` restricts which scopes of Claude Code's
files are read; ours are always read (``config.files`` says why).

From Claude Code's files we honour ``hooks``, ``permissions`` (``allow``,
``deny``, ``ask``, ``defaultMode``; ``additionalDirectories`` gets one notice:
the tools stay inside the workspace), ``disableAllHooks``, ``env``, ``model``
(and ``ANTHROPIC_MODEL``: both after ours, for the anthropic provider only),
``apiKeyHelper``, ``enableAllProjectMcpServers``, ``enabledMcpjsonServers``
and ``disabledMcpjsonServers``. Other keys (Claude Code's ``sandbox`` has
another shape) are ignored.

``env`` (both families): variables set for the session. Order, strongest
first: the process environment, the ``env`` of the user's own files, the
workspace ``.env``, the ``env`` of the (trusted) project files. Each variable
of a project file's ``env`` needs trust, so a repository can never set a key
or base URL variable (or ``NODE_OPTIONS``) for the session unless the user
agreed.

Which variables hold each provider's key and base URL, and which provider a
model name belongs to, come from the provider table (``llm/providers.py``);
``ANTHROPIC_AUTH_TOKEN`` and ``ANTHROPIC_CUSTOM_HEADERS`` (``config.provider``)
are Claude Code's gateway credentials. API keys are read from the environment,
the workspace ``.env`` or a trusted ``env`` setting, or printed by an
``apiKeyHelper`` (user files, or a trusted project file), and never appear in
``repr``, logs, events or sessions.

The project files (all four project and local settings files, ``.mcp.json``
and ``.env``) come with the repository, so they are not trusted by default
(``pseudoclaude.trust``): their hooks, allow rules, loosening permission
modes, ``env``, ``apiKeyHelper`` and sessions folder apply only once the user
trusted them; deny and ask rules only tighten, so they apply before. A base
URL from the project ``.env`` never receives a key from the user's own
environment unless the folder is trusted (the default endpoint is used
instead, with one notice). ``PSEUDOCLAUDE_HOME`` and ``CLAUDE_CONFIG_DIR`` are
never read from ``.env``: a repository cannot choose where the user's
settings live. This package is on the start-up path: it imports nothing heavy.

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

from pseudoclaude.config.files import (
    SCOPES,
    SettingsFile,
    SettingsFiles,
    claude_config_dir,
    local_settings_path,
    parse_setting_sources,
    pseudoclaude_home,
    read_dotenv,
    read_settings_file,
    settings_files,
    settings_paths,
)
from pseudoclaude.config.load import load_settings, resolve_sessions_dir
from pseudoclaude.config.mcp import MCP_JSON, mcp_declarations, read_mcp_json
from pseudoclaude.config.resolve import Variables, describe, from_files, resolve
from pseudoclaude.config.table import ROWS, SETTINGS, Setting
from pseudoclaude.config.trusted import trusted_settings_files
from pseudoclaude.config.types import (
    MIN_THINKING_TOKENS,
    OPENAI_APIS,
    THINKING_MODES,
    ConfigError,
    Flags,
    McpDeclarations,
    NoProviderConfigured,
    Origin,
    PermissionMode,
    Settings,
    ShellEnvironment,
)

__all__ = [
    "MCP_JSON",
    "MIN_THINKING_TOKENS",
    "OPENAI_APIS",
    "ROWS",
    "SCOPES",
    "SETTINGS",
    "THINKING_MODES",
    "ConfigError",
    "Flags",
    "McpDeclarations",
    "NoProviderConfigured",
    "Origin",
    "PermissionMode",
    "Setting",
    "Settings",
    "SettingsFile",
    "SettingsFiles",
    "ShellEnvironment",
    "Variables",
    "claude_config_dir",
    "describe",
    "from_files",
    "load_settings",
    "local_settings_path",
    "mcp_declarations",
    "parse_setting_sources",
    "pseudoclaude_home",
    "read_dotenv",
    "read_mcp_json",
    "read_settings_file",
    "resolve",
    "resolve_sessions_dir",
    "settings_files",
    "settings_paths",
    "trusted_settings_files",
]
