"""A first run with nothing configured: find a local server before saying so.

With no key and no base URL, the usual loopback ports are asked for a model
list (``llm.find_local_servers``: Ollama, LM Studio, llama.cpp's server, vLLM;
127.0.0.1 only, a short timeout each). The REPL offers the first one that
serves a model (the user may name another of its models); ``-p`` never asks:
its error names the flags that would use the server. Either way the message
names what was tried.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

from pseudoclaude.config import ConfigError
from pseudoclaude.llm import find_local_servers

Ask = Callable[[str], str]


@dataclass(frozen=True)
class LocalChoice:
    """The server and model the user accepted."""

    base_url: str
    model: str


def choose_local_server(message: str, ask: Ask | None, environ: Mapping[str, str] | None = None) -> LocalChoice:
    """The local server to use, or ``ConfigError`` carrying ``message`` and what was found or tried.

    ``ask`` shows a question and returns the answer (None: headless, never ask).
    """
    servers, tried = find_local_servers(environ)
    usable = [server for server in servers if server.models]
    if not usable:
        empty = f"; {servers[0].name} answers at {servers[0].base_url} but serves no model" if servers else ""
        raise ConfigError(f"{message} (no local server found: tried {tried}{empty})")
    server = usable[0]
    models = ", ".join(server.models[:6]) + (", ..." if len(server.models) > 6 else "")
    model = server.models[0]
    if ask is None:
        raise ConfigError(
            f"{message}; {server.name} answers at {server.base_url} with {models}: run with OPENAI_BASE_URL={server.base_url} --provider openai --model {model}"
        )
    answer = ask(
        f"No model provider is configured, but {server.name} answers at {server.base_url} ({models}).\nUse {model}? [Y/n or another model's name] "
    ).strip()
    if answer.lower() in ("", "y", "yes"):
        return LocalChoice(server.base_url, model)
    if answer in server.models:
        return LocalChoice(server.base_url, answer)
    raise ConfigError(f"{message} (not using {server.name} at {server.base_url})")
