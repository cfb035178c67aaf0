"""Which provider a run talks to, with which credentials, and where a project's ``.env`` may not send them.

The provider table (``llm/providers.py``) names each provider's key and base URL
variables. Claude Code's gateway variables are read here too:
``ANTHROPIC_AUTH_TOKEN`` (a Bearer credential for LiteLLM, OpenRouter or a
corporate gateway: it configures the anthropic provider on its own) and
``ANTHROPIC_CUSTOM_HEADERS`` (``Name: value`` lines sent with every request).
Like the keys they are read from the environment or the workspace ``.env``
(or a trusted ``env`` setting), never from settings files, and never shown.
``apiKeyHelper`` (Claude Code's: a command printing the key) runs only when the
anthropic provider has no key or auth token.
"""

from __future__ import annotations

import ipaddress
from typing import Mapping, Sequence
from urllib.parse import urlsplit

from pseudoclaude.config.types import ConfigError, NoProviderConfigured
from pseudoclaude.interrupts import run_probe
from pseudoclaude.llm import CustomHeadersError, ProviderEntry, UnknownProvider, parse_custom_headers, provider_entry, provider_for_model
from pseudoclaude.trust import TrustEntry, visible

HELPER_TIMEOUT_S = 30.0


def credentials(entry: ProviderEntry) -> tuple[str, ...]:
    """Every variable that carries a credential of ``entry``: its key and, from the provider table, a gateway's token and headers."""
    return entry.credential_variables


def configured(entry: ProviderEntry, env: Mapping[str, str], helper: bool) -> bool:
    """Whether ``env`` holds enough to use ``entry`` unasked: its key, a gateway token, or an ``apiKeyHelper``
    (for a provider whose gateway token Claude Code's helper stands in for: the one with a token variable)."""
    return entry.configured_in(env) or (helper and bool(entry.token_variable))


def custom_headers(entry: ProviderEntry, env: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The entry's extra request headers (``ANTHROPIC_CUSTOM_HEADERS``); a malformed line is a ``ConfigError``
    that names the line, never its text (it may hold a credential)."""
    if not entry.headers_variable:
        return ()
    try:
        return parse_custom_headers(env.get(entry.headers_variable), entry.headers_variable)
    except CustomHeadersError as error:
        raise ConfigError(str(error)) from None


def run_key_helper(command: str, where: str, cwd: str) -> str:
    """The key ``apiKeyHelper`` prints (its last non-empty line); ``ConfigError`` when it fails (its output is not shown)."""
    import subprocess

    try:
        done = run_probe(command, shell=True, cwd=cwd, timeout=HELPER_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ConfigError(f"apiKeyHelper ({where}) did not run: {type(error).__name__}") from None
    lines = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    if done.returncode != 0 or not lines:
        raise ConfigError(f"apiKeyHelper ({where}) printed no key (exit {done.returncode})")
    return lines[-1]


def choose_provider(named: str | None, model: str | None, env: Mapping[str, str], providers: Sequence[ProviderEntry], helper: bool = False) -> ProviderEntry:
    """The provider named, else the one the model name belongs to, else the first the environment configures."""
    if named:
        try:
            return provider_entry(named, providers)
        except UnknownProvider as error:
            raise ConfigError(str(error)) from None
    found = [entry for entry in providers if configured(entry, env, helper)]
    inferred = provider_for_model(model, providers) if model else None
    if inferred is not None:
        return _settle_guess(provider_entry(inferred, providers), model or "", found, env)
    if found:
        return found[0]
    choices = ", or ".join(
        entry.key_variable
        + (f" (or {entry.base_url_variable} for {entry.keyless_server})" if entry.keyless_server else "")
        + (f" (or {entry.token_variable} for a gateway)" if entry.token_variable else "")
        for entry in providers
    )
    raise NoProviderConfigured(f"no model provider is configured: set {choices}, in the environment or in .env")


def _settle_guess(guess: ProviderEntry, model: str, found: Sequence[ProviderEntry], env: Mapping[str, str]) -> ProviderEntry:
    """The provider the model name suggests, unless the configuration says otherwise (a gateway such as LiteLLM).

    The guess stands when it is configured, or when nothing is. When the only configured
    provider is a server at a base URL (which serves whatever names it likes: ``claude-via-litellm``
    through LiteLLM), that one is used; any other disagreement is an error naming ``--provider``.
    """
    if guess in found or not found:
        return guess
    if len(found) == 1 and env.get(found[0].base_url_variable):
        return found[0]
    names = " or ".join(f"--provider {entry.name}" for entry in found)
    raise ConfigError(
        f"the model name {model!r} looks like a {guess.name} model, but {guess.key_variable} is not set and "
        f"{', '.join(entry.name for entry in found)} is configured: pass {names} to send it there, or set {guess.key_variable}"
    )


def project_endpoint(entry: ProviderEntry, users: Mapping[str, str], dotenv: Mapping[str, str]) -> tuple[TrustEntry, ...]:
    """The project ``.env``'s base URL as an entry needing trust, unless it can take nothing of the user's.

    A base URL the user set (environment, own settings) is the user's. One from the project
    ``.env`` needs consent when it would receive the user's own key (or auth token, or
    custom headers), and also when it is another machine's, whatever key goes with it:
    that server would read the whole conversation (what the user types, every file the
    model reads) and play the model, whose replies drive the tools. A loopback server
    named with the project's own key (or none) is on this machine and needs no
    consent (``load_settings`` still says where requests go).
    """
    variable = entry.base_url_variable
    if variable not in dotenv or users.get(variable):
        return ()
    url = dotenv[variable]
    mine = [name for name in credentials(entry) if users.get(name)]
    if mine:
        return (TrustEntry("endpoint", url, ".env", f"your {mine[0]} (from your environment)"),)
    if loopback(url):
        return ()
    return (TrustEntry("endpoint", url, ".env", "this whole conversation (that server would play the model)"),)


def loopback(url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def rerouted(entry: ProviderEntry, url: str, users_key: bool) -> str:
    what = f"your {entry.key_variable}" if users_key else "this conversation"
    return visible(
        f"not sending {what} to {url} ({entry.base_url_variable} in this folder's .env): using the default {entry.name} endpoint until you trust this folder"
    )


def project_pair(entry: ProviderEntry, api_key: str | None, url: str) -> str:
    key = f"with the {entry.key_variable} from the same file" if api_key else "with no key"
    return visible(f"model requests go to {url} ({entry.base_url_variable} in this folder's .env, {key})")
