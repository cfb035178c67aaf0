"""The environment every command the model runs gets: the user's, without the user's secrets.

A command the model writes is untrusted (a prompt-injected model runs
``echo $ANTHROPIC_API_KEY`` as readily as ``ls``), and whatever it prints goes
into the conversation, the session file and the output streams. So
``run_command`` and background commands do not inherit the process
environment whole: each provider's key variable (from the provider table,
so a new provider's variable is covered whatever its name) and every variable
whose name contains ``KEY``, ``SECRET``, ``TOKEN``, ``PASSWORD`` or
``CREDENTIAL`` (in any case) is removed, sandbox or not.

The user's ``shellEnvironment`` setting adjusts this: ``include`` names
(exact names, no patterns) variables the commands keep although their names
look secret, and is read only from the user's own settings file, so a
repository cannot pull a key into the model's shell; ``exclude`` removes more,
by exact name or shell-style pattern (``AWS_*``, matched case-sensitively as
the environment is) and may come from any settings file, since removing is
always safe. A name in both is removed.

The values of the secret variables withheld (those long enough to be
secrets, see ``pseudoclaude.redaction``) and the configured provider key make
up the session's ``redactor``: what must not come back out of a command, even
when it reads it from a file. (A variable removed only by ``exclude`` is not
taken for a secret: its value is withheld, not masked.)

Hooks (the user's own programs) and MCP servers (which the user configured
and often need their tokens) keep the user's environment: this applies only
to what the model runs.

When no ``rg`` is on the PATH, the folder of the bundled one is appended to
the commands' PATH (appended, so whatever the user's PATH finds first wins).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Iterable, Mapping

from pseudoclaude.llm import PROVIDERS
from pseudoclaude.redaction import Redactor
from pseudoclaude.tools.ripgrep import find_rg

SECRET_MARKERS = ("KEY", "SECRET", "TOKEN", "PASSWORD", "CREDENTIAL")


def provider_key_variables() -> frozenset[str]:
    """The variables that hold a provider's key, token or request headers, as the provider table names them."""
    return frozenset(name for entry in PROVIDERS for name in entry.credential_variables)


def looks_secret(name: str) -> bool:
    """Whether a variable name says it holds a secret: a provider key variable, or a name with a secret marker."""
    upper = name.upper()
    return name in provider_key_variables() or any(marker in upper for marker in SECRET_MARKERS)


@dataclass(frozen=True, eq=False)
class ChildEnvironment:
    """The variables the model's commands run with, the names withheld from them, and the redactor for what comes back."""

    variables: Mapping[str, str] = field(default_factory=dict, repr=False)
    withheld: tuple[str, ...] = ()
    redactor: Redactor = field(default_factory=Redactor)

    @classmethod
    def of(
        cls,
        environ: Mapping[str, str],
        *,
        include: Iterable[str] = (),
        exclude: Iterable[str] = (),
        api_key: str | None = None,
        secrets: Iterable[str | None] = (),
        headers: Iterable[tuple[str, str]] = (),
    ) -> ChildEnvironment:
        """``environ`` without its secret variables (keeping ``include``, removing ``exclude`` too); ``api_key``
        is the configured provider key, redacted wherever it came from (the environment or the workspace ``.env``),
        and so are ``secrets`` (a gateway token) and the values of the request ``headers`` whose names look secret
        (``X-Api-Key``, ``Authorization``: a gateway's credential; a routing header stays readable)."""
        included, excluded = frozenset(include), tuple(exclude)
        secret = [name for name in environ if looks_secret(name) and name not in included]
        dropped = set(secret) | {name for name in environ if any(fnmatchcase(name, pattern) for pattern in excluded)}
        variables = _with_rg({name: value for name, value in environ.items() if name not in dropped})
        credentials = [value for name, value in headers if looks_secret(name) or "AUTH" in name.upper()]
        redactor = Redactor.of([api_key, *secrets, *credentials, *(environ[name] for name in secret)])
        return cls(variables, tuple(sorted(dropped)), redactor)

    @classmethod
    def from_process(cls) -> ChildEnvironment:
        """This process's environment with the default rules (no ``shellEnvironment`` setting, no configured key)."""
        return cls.of(os.environ)

    def environ(self) -> dict[str, str]:
        """A fresh copy of the variables, for ``subprocess``'s ``env``."""
        return dict(self.variables)


def command_environment() -> dict[str, str]:
    """The environment of a command started without a session's ``ChildEnvironment`` (the default rules)."""
    return ChildEnvironment.from_process().environ()


def _with_rg(variables: dict[str, str]) -> dict[str, str]:
    path_env = variables.get("PATH", "")
    found = find_rg()
    if found is None or shutil.which("rg", path=path_env or None) is not None:
        return variables
    folder = str(Path(found).parent)
    return {**variables, "PATH": f"{path_env}{os.pathsep}{folder}" if path_env else folder}
