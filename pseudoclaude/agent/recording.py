"""What the agent asks of a session store: the runner records through ``SessionRecorder``, the agent through
``AgentSession``, and ``build_agent`` creates or opens sessions through a ``SessionStore``.

``pseudoclaude.session.Session`` satisfies the first two; a sub-agent's recorder
(``session.SubrunRecorder``) only the first; ``build.JSONL_STORE`` is the
default ``SessionStore``. Kept apart from the runner so a store can be written
against these Protocols without reading the loop.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from pseudoclaude.compact import CompactSession
from pseudoclaude.config import Settings
from pseudoclaude.llm import Message, Usage
from pseudoclaude.redaction import Redactor
from pseudoclaude.session import ReadStamp, Replay, WriteFailure


class SessionRecorder(Protocol):
    """What the runner records; ``pseudoclaude.session.Session`` satisfies it."""

    def append_message(self, message: Message) -> None: ...
    def append_usage(self, usage: Usage, *, context_messages: int, model: str = "") -> None: ...
    def append_error(self, kind: str, message: str) -> None: ...
    def append_interrupt(self, reason: str = "user") -> None: ...
    def sync(self) -> None: ...


class AgentSession(SessionRecorder, CompactSession, Protocol):
    """Everything the agent needs of a session store (``pseudoclaude.session.Session`` satisfies it).

    A different store implements this and hands it out from its ``SessionStore``.
    ``jsonl_path``'s folder (``jsonl_path.parent``) is where the session's own
    files go (background commands' ``background.json``, sub-agents' records);
    ``recall`` and the hooks' ``transcript_path`` read ``jsonl_path`` as the
    JSONL store writes it, and find nothing when it is not there.
    """

    id: str
    spill_dir: Path
    jsonl_path: Path
    write_failure: WriteFailure | None
    """The first failed write of the session file; nothing is recorded after it."""
    closed: bool

    @property
    def title(self) -> str: ...
    def set_title(self, title: str) -> None: ...
    def append_memory(self, snapshot: str) -> None: ...
    def append_model(self, model: str, provider: str = "") -> None: ...
    def append_effort(self, effort: str | None) -> None: ...
    def append_mode(self, mode: str) -> None: ...
    def append_file_stamp(self, stamp: ReadStamp) -> None: ...
    def close(self) -> None: ...


class SessionStore(Protocol):
    """Where ``build_agent`` creates a session, or opens one to resume (``build.JSONL_STORE``: ``sessions/``, JSONL).

    ``open``'s ``session_id`` may be a prefix the store resolves; None asks for
    the latest session of ``settings.workspace`` (``--continue``). ``fork``
    resumes a copy under ``new_id`` (None: a new id). A store that cannot do
    what is asked raises ``session.SessionNotFound`` or ``session.SessionError``
    (the front ends report both as usage errors).
    """

    def create(self, settings: Settings, *, session_id: str | None = None, redactor: Redactor | None = None) -> AgentSession: ...

    def open(
        self, settings: Settings, session_id: str | None, *, fork: bool = False, new_id: str | None = None, redactor: Redactor | None = None
    ) -> tuple[AgentSession, Replay]: ...
