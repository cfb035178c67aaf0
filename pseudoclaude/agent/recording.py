"""What the agent asks of a session store: the runner records through ``SessionRecorder``, the agent through ``AgentSession``.

``pseudoclaude.session.Session`` satisfies both; a sub-agent's recorder
(``session.SubrunRecorder``) only the first. Kept apart from the runner so a
store can be written against these two Protocols without reading the loop.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from pseudoclaude.compact import CompactSession
from pseudoclaude.llm import Message, Usage
from pseudoclaude.session import ReadStamp, WriteFailure


class SessionRecorder(Protocol):
    """What the runner records; ``pseudoclaude.session.Session`` satisfies it."""

    def append_message(self, message: Message) -> None: ...
    def append_usage(self, usage: Usage, *, context_messages: int, model: str = "") -> None: ...
    def append_error(self, kind: str, message: str) -> None: ...
    def append_interrupt(self, reason: str = "user") -> None: ...
    def sync(self) -> None: ...


class AgentSession(SessionRecorder, CompactSession, Protocol):
    """Everything the agent needs of a session store (``pseudoclaude.session.Session`` satisfies it).

    A different store implements this and is opened in ``build._open_session``.
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
