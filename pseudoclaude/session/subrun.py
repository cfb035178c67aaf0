"""Sub-runs: what a sub-agent (the ``task`` tool) said and did, each in its own JSONL beside the session's.

A sub-run is recorded in ``<session folder>/subagents/<call id>.jsonl``, in
the session format itself (a ``meta`` entry, then messages and usage), so
``load_replay`` reads it as it reads a session; the parent's transcript holds
only the ``task`` call and its final answer, linked to the file by the call
id. A failed write stops that file's recording, never the parent's run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pseudoclaude import __version__
from pseudoclaude.llm import Message, Usage
from pseudoclaude.redaction import Redactor
from pseudoclaude.session import format as fmt
from pseudoclaude.session.errors import SessionError
from pseudoclaude.session.images import ImageStore
from pseudoclaude.session.spill import safe_spill_name
from pseudoclaude.session.reader import Replay, load_replay
from pseudoclaude.session.writer import JsonlWriter, WriteFailure

SUBRUNS_DIR = "subagents"


class SubrunRecorder:
    """The recorder a sub-agent's runner writes to (the runner's ``SessionRecorder``)."""

    def __init__(
        self,
        session_folder: Path,
        call_id: str,
        *,
        agent: str,
        description: str,
        model: str,
        provider: str,
        workspace: Path,
        redactor: Redactor | None = None,
    ) -> None:
        folder = session_folder / SUBRUNS_DIR
        self.path = folder / f"{_stem(call_id)}.jsonl"
        self.spill_dir = folder / f"{_stem(call_id)}-results"
        self.write_failure: WriteFailure | None = None
        self._writer = JsonlWriter(self.path, redactor=redactor)
        self._images = ImageStore(folder)
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            self.spill_dir.mkdir(mode=0o700, exist_ok=True)
        except OSError as error:
            self.write_failure = WriteFailure("mkdir", folder, error.strerror or str(error))
        meta = fmt.SessionMeta(id=call_id, cwd=str(workspace), model=model, provider=provider, created=fmt.now(), pseudoclaude_version=__version__)
        self._append(fmt.META, meta.payload())
        self._append(fmt.TITLE, {"title": fmt.normalize_title(f"{agent}: {description}")})

    def _append(self, kind: str, payload: dict[str, object]) -> None:
        if self.write_failure is None:
            self.write_failure = self._writer.append(fmt.encode_entry(kind, payload))

    def append_message(self, message: Message) -> None:
        for image in message.all_images():
            try:
                self._images.save(image)
            except OSError:
                pass  # the replay then tells the model the image is missing; the transcript itself is kept
        self._append(fmt.MESSAGE, {"message": message.to_dict()})

    def append_usage(self, usage: Usage, *, context_messages: int, model: str = "") -> None:
        self._append(fmt.USAGE, {"usage": usage.to_dict(), "context_messages": context_messages, **({"model": model} if model else {})})

    def append_error(self, kind: str, message: str) -> None:
        self._append(fmt.ERROR, {"kind": kind, "message": message})

    def append_interrupt(self, reason: str = "user") -> None:
        self._append(fmt.INTERRUPT, {"reason": reason})

    def sync(self) -> None:
        if self.write_failure is None:
            self.write_failure = self._writer.sync()

    def close(self) -> None:
        self._writer.close()


@dataclass(frozen=True)
class Subrun:
    """One recorded sub-run: the parent's call id and its replay (title: ``agent: description``)."""

    call_id: str
    replay: Replay


def load_subruns(session_folder: Path) -> list[Subrun]:
    """The sub-runs recorded beside a session, oldest first; an unreadable one is left out."""
    folder = session_folder / SUBRUNS_DIR
    if not folder.is_dir():
        return []
    found: list[Subrun] = []
    for path in sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime_ns):
        try:
            replay = load_replay(path)
        except (SessionError, OSError):
            continue
        found.append(Subrun(replay.meta.id, replay))
    return found


def _stem(call_id: str) -> str:
    """A safe, collision-free file stem for a call id (the spill naming, without its extension)."""
    return safe_spill_name(call_id).removesuffix(".txt")
