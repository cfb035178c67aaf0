"""A ``CommandSandbox`` at the seam: it reports a status and runs commands as they are (for views, not for confinement)."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import AsyncIterator, Mapping

from pseudoclaude.sandbox import PreparedCommand, SandboxStatus

BUBBLEWRAP = SandboxStatus(kind="bubblewrap", mode="workspace-write", network="off", available=True, detail="the workspace and /tmp are writable")


@dataclass(frozen=True)
class FakeSandbox:
    """Says it is ``status``; ``prepare`` hands back plain ``bash -c``: nothing here confines anything."""

    status: SandboxStatus = BUBBLEWRAP

    def prepare(self, command: str, *, cwd: Path, env: Mapping[str, str]) -> AbstractAsyncContextManager[PreparedCommand]:
        return _plain(command, env)

    def blocked(self, output: str, exit_code: int | None) -> str | None:
        return None


@asynccontextmanager
async def _plain(command: str, env: Mapping[str, str]) -> AsyncIterator[PreparedCommand]:
    yield PreparedCommand(("bash", "-c", command), dict(env))
