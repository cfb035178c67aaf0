"""Session folders: create, open (resume) and the ``Session`` recorder.

Layout: ``<sessions_dir>/<workspace_key>/<session_id>/session.jsonl`` with the
spill folder ``tool-results/`` beside it; folders 0700, files 0600 (sessions
hold prompts, code and tool output).

A ``Session`` records; it never raises from an ``append_*``. The first failed
write, open or fsync of ``session.jsonl`` becomes ``write_failure`` (the agent
turns it into an error event) and ends the recording: later entries are counted
in ``lost_entries``, not written, so the file never has holes and a resume
replays a true prefix. ``close`` tries once to append an entry saying how many
entries were lost (it succeeds when space came back), which a later resume
shows. The run itself goes on in memory.

Appends are serialized by a lock: ``read_file`` records its file stamps
(``append_file_stamp``) from worker threads, concurrent reads among them, and
the writer's bookkeeping (the size a failed write is cut back to) must see one
line at a time.

The session keeps no transcript in memory. Compaction changes only what the model sees
next, so a compaction is one more appended entry: recorded entries are never
rewritten.
"""

from __future__ import annotations

import dataclasses
import os
import stat
import threading
from datetime import datetime
from pathlib import Path
from typing import Any, Mapping, Sequence

from pseudoclaude import __version__
from pseudoclaude.llm import Image, Message, Usage
from pseudoclaude.redaction import Redactor
from pseudoclaude.session import format as fmt
from pseudoclaude.session.checkpoints import CHECKPOINT_DIR, save_blob
from pseudoclaude.session.errors import SessionError, SessionNotFound
from pseudoclaude.session.facts import ReadStamp
from pseudoclaude.session.images import IMAGE_DIR, ImageStore
from pseudoclaude.session.lock import SessionLock
from pseudoclaude.session.naming import (
    new_session_id,
    validate_session_id,
    workspace_key,
)
from pseudoclaude.session.reader import JSONL_NAME, Replay, load_replay
from pseudoclaude.session.spill import write_spill
from pseudoclaude.session.writer import FILE_MODE, FileOps, JsonlWriter, WriteFailure, describe_os_error

SPILL_NAME = "tool-results"
DIR_MODE = 0o700


class Session:
    """An open, locked, append-only session."""

    def __init__(self, folder: Path, meta: fmt.SessionMeta, *, ops: FileOps | None = None, redactor: Redactor | None = None) -> None:
        self.id = meta.id
        self.folder = folder
        self.jsonl_path = folder / JSONL_NAME
        self.spill_dir = folder / SPILL_NAME
        self.meta = meta
        self.write_errors: list[str] = []
        self.write_failure: WriteFailure | None = None
        self.lost_entries = 0
        self._failed_at = ""
        self._lock = SessionLock(folder, meta.id)
        self._writer = JsonlWriter(self.jsonl_path, ops, redactor)
        self._images = ImageStore(folder)
        self._appending = threading.Lock()
        self.closed = False

    def _take_lock(self) -> None:
        """``SessionInUse`` propagates; a folder where no lock file can be made is only a write error."""
        try:
            self._lock.acquire()
        except OSError as error:
            self._record(describe_os_error("lock", self._lock.path, error))

    def _open_writer(self) -> None:
        self._fail(self._writer.open())

    def _record(self, failure: WriteFailure | None) -> None:
        if failure is not None:
            self.write_errors.append(failure.message)

    def _fail(self, failure: WriteFailure | None) -> None:
        """A failure of ``session.jsonl`` itself: the first one stops the recording."""
        self._record(failure)
        if failure is not None and self.write_failure is None:
            self.write_failure = failure
            self._failed_at = fmt.format_ts(fmt.now())

    def _append(self, kind: str, payload: Mapping[str, Any]) -> None:
        if self.closed:
            raise SessionError(f"session {self.id} is closed")
        line = fmt.encode_entry(kind, payload)
        with self._appending:
            if self.write_failure is not None:
                self.lost_entries += 1
                return
            failure = self._writer.append(line)
            if failure is not None:
                self.lost_entries += 1
                self._fail(failure)

    def append_message(self, message: Message) -> None:
        self._save_images([message])
        self._append(fmt.MESSAGE, {"message": message.to_dict()})

    def _save_images(self, messages: Sequence[Message]) -> None:
        """Images' bytes go to ``images/`` before the entry naming them; a failure loses the image, not the entry."""
        for message in messages:
            for image in message.all_images():
                try:
                    self._images.save(image)
                except OSError as error:
                    self._record(describe_os_error("save image", self.folder / IMAGE_DIR / image.file_name, error))

    def append_usage(self, usage: Usage, *, context_messages: int, model: str = "") -> None:
        """One provider call's usage; ``model`` is the model that served it (its price, whatever the model is later)."""
        self._append(fmt.USAGE, {"usage": usage.to_dict(), "context_messages": context_messages, **({"model": model} if model else {})})

    def append_model(self, model: str, provider: str = "") -> None:
        """A ``/model`` switch: a resume continues with ``model`` (served by ``provider``), not the one the session started with."""
        self._append(fmt.MODEL, {"model": model, **({"provider": provider} if provider else {})})

    def append_file_stamp(self, stamp: ReadStamp) -> None:
        """A file as the model just read or wrote it: a resume may edit it without reading it again (``session/facts.py``)."""
        self._append(fmt.FILE_STAMP, stamp.payload())

    def append_effort(self, effort: str | None) -> None:
        """The reasoning effort chosen (None: off); a resume goes on with it."""
        self._append(fmt.EFFORT, {"effort": effort})

    def append_mode(self, mode: str) -> None:
        """A permission-mode switch; a resume goes on in it (``agent/build.py`` says when not)."""
        self._append(fmt.MODE, {"mode": mode})

    def append_replacement(
        self,
        call_id: str,
        preview: str,
        *,
        layer: str,
        original_bytes: int,
        path: str | None = None,
        resets_anchor: bool = False,
        drops_images: bool = False,
    ) -> None:
        """A context layer replaced one tool result (``pseudoclaude.compact.CompactSession``); ``drops_images``: its images too."""
        self._append(
            fmt.REPLACEMENT,
            {
                "call_id": call_id,
                "path": self._relative(path) if path else "",
                "preview": preview,
                "original_bytes": original_bytes,
                "layer": layer,
                "resets_anchor": resets_anchor,
                **({"drops_images": True} if drops_images else {}),
            },
        )

    def keep_image(self, image: Image) -> Path:
        """The absolute path of ``image``'s bytes in ``images/`` (saved there if they were not); ``OSError``."""
        return self._images.save(image)

    def append_compaction(self, *, summary: str, messages: Sequence[Message], trigger: str, before_tokens: int, after_tokens: int) -> None:
        self._save_images(messages)
        self._append(
            fmt.COMPACTION,
            {
                "trigger": trigger,
                "before_tokens": before_tokens,
                "after_tokens": after_tokens,
                "message_count": len(messages),
                "summary": summary,
                "messages": [m.to_dict() for m in messages],
            },
        )

    def append_memory(self, snapshot: str) -> None:
        """The memory snapshot this session's system prompt carries (taken once, at its start)."""
        self._append(fmt.MEMORY, {"snapshot": snapshot})

    def append_window(self, context_window: int) -> None:
        """The provider stated a smaller context window than assumed (a prompt-too-long error)."""
        self._append(fmt.WINDOW, {"context_window": context_window})

    def append_calibration(self, bytes_per_token: float, samples: int) -> None:
        """What the token estimator learned from usage reports (``compact.estimate``): a resume restores it."""
        self._append(fmt.CALIBRATION, {"bytes_per_token": bytes_per_token, "samples": samples})

    @property
    def checkpoint_folder(self) -> Path:
        """The folder a checkpoint's blob path is relative to (the session folder)."""
        return self.folder

    def append_checkpoint(self, path: Path, content: bytes | None, *, turn: int) -> None:
        """``path`` as it was before an edit (``content`` None: it did not exist); raises ``OSError`` if the blob cannot be saved."""
        blob = save_blob(self.folder, content) if content is not None else ""
        self._append(fmt.CHECKPOINT, {"path": str(path), "existed": content is not None, "blob": blob, "turn": turn})

    def append_rewind(self, messages: int, *, files: bool) -> None:
        """The conversation goes back to its first ``messages`` recorded messages (``files``: the files were restored)."""
        self._append(fmt.REWIND, {"messages": messages, "files": files})

    def append_error(self, kind: str, message: str) -> None:
        self._append(fmt.ERROR, {"kind": kind, "message": message})

    def append_interrupt(self, reason: str = "user") -> None:
        self._append(fmt.INTERRUPT, {"reason": reason})

    @property
    def title(self) -> str:
        """The session's latest title ("" until the first prompt gives it one)."""
        return self.meta.title

    def set_title(self, title: str) -> None:
        normalized = fmt.normalize_title(title)
        self.meta = fmt.replace_title(self.meta, normalized)
        self._append(fmt.TITLE, {"title": normalized})

    def write_spill(self, call_id: str, content: str) -> Path:
        """Save a full tool result under ``tool-results/`` (collision-free name); raises ``OSError``.

        The folder is made again if something removed it during the session.
        """
        self.spill_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        return write_spill(self.spill_dir, call_id, content)

    def sync(self) -> None:
        if self.write_failure is None:
            self._fail(self._writer.sync())

    def close(self) -> None:
        if self.closed:
            return
        try:
            if self.write_failure is not None:
                self._mark_loss(self.write_failure)
            else:
                self._fail(self._writer.close())
        finally:
            self.closed = True
            self._writer.close()
            self._lock.release()

    def _mark_loss(self, failure: WriteFailure) -> None:
        """Best effort: record in the file itself that what followed was lost (works once space is back)."""
        payload = {
            "kind": fmt.WRITE_FAILED,
            "message": failure.message,
            "reason": failure.reason,
            "failed_at": self._failed_at,
            "lost_entries": self.lost_entries,
        }
        if self._writer.append(fmt.encode_entry(fmt.ERROR, payload)) is None:
            self._writer.sync()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _relative(self, path: str) -> str:
        """Spill paths inside the folder are stored relative, so a moved folder still resolves them."""
        try:
            return str(Path(path).resolve().relative_to(self.folder.resolve()))
        except ValueError:
            return path


def workspace_folder(sessions_dir: Path, workspace: Path) -> Path:
    return Path(sessions_dir) / workspace_key(workspace)


def session_folder(sessions_dir: Path, workspace: Path, session_id: str) -> Path:
    return workspace_folder(sessions_dir, workspace) / validate_session_id(session_id)


def create_session(
    sessions_dir: Path,
    workspace: Path,
    *,
    model: str,
    provider: str,
    ops: FileOps | None = None,
    session_id: str | None = None,
    redactor: Redactor | None = None,
) -> Session:
    """A new, locked session with its ``meta`` entry written; ``session_id`` chooses its id (a UUID, refused if taken)."""
    parent = workspace_folder(sessions_dir, workspace)
    try:
        _make_private_dirs(parent)
        session_id, created = _allocate_folder(parent) if session_id is None else _claim_folder(parent, validate_session_id(session_id))
    except FileExistsError:
        raise SessionError(f"a session {session_id} already exists in this workspace: resume it with --resume {session_id}") from None
    except OSError as error:
        raise SessionError(f"cannot create a session under {parent}: {error.strerror or error}") from error
    folder = parent / session_id
    meta = fmt.SessionMeta(
        id=session_id,
        cwd=os.path.abspath(workspace),
        model=model,
        provider=provider,
        created=created,
        pseudoclaude_version=__version__,
    )
    session = Session(folder, meta, ops=ops, redactor=redactor)
    session._take_lock()
    session._open_writer()
    session._append(fmt.META, meta.payload())
    session.sync()
    _fsync_dir(folder)
    return session


def open_session(
    sessions_dir: Path, workspace: Path, session_id: str, *, ops: FileOps | None = None, redactor: Redactor | None = None
) -> tuple[Session, Replay]:
    """Lock an existing session, replay it, and return it ready for appending."""
    folder = session_folder(sessions_dir, workspace, session_id)
    if not (folder / JSONL_NAME).is_file():
        raise SessionNotFound(f"no session {session_id} for workspace {os.path.abspath(workspace)}")
    placeholder = fmt.SessionMeta(session_id, "", "", "", fmt.parse_ts(None), "")
    session = Session(folder, placeholder, ops=ops, redactor=redactor)
    session._take_lock()
    try:
        notices = tighten_permissions(folder)
        replay = load_replay(folder)
        if notices:
            replay = dataclasses.replace(replay, warnings=tuple(notices) + replay.warnings)
        session.meta = replay.meta
        session._open_writer()
    except BaseException:
        session._lock.release()
        raise
    if not session.spill_dir.is_dir():
        try:
            os.mkdir(session.spill_dir, DIR_MODE)
        except OSError as error:
            session._record(describe_os_error("mkdir", session.spill_dir, error))
    return session, replay


def tighten_permissions(folder: Path) -> list[str]:
    """Make a session's folders 0700 and its files 0600 again; a notice for what was open to others.

    Sessions hold prompts, code and tool output: a copy, an archive or another
    tool's umask can leave them group- or world-readable. Spill files are
    reported together, in one line.
    """
    spill = folder / SPILL_NAME
    notices = [n for n in (_tighten(folder, DIR_MODE), _tighten(folder / JSONL_NAME, FILE_MODE), _tighten(spill, DIR_MODE)) if n]
    try:
        spilled = [n for n in (_tighten(entry, FILE_MODE) for entry in spill.iterdir()) if n] if spill.is_dir() else []
    except OSError:
        spilled = []
    if spilled:
        notices.append(spilled[0] if len(spilled) == 1 else f"{len(spilled)} files in {spill}: {spilled[0]} (and the others alike)")
    return notices


def _tighten(path: Path, wanted: int) -> str:
    """The notice for ``path``; empty when it is private already, missing, or a symlink (chmod would follow it)."""
    try:
        info = path.lstat()
    except OSError:
        return ""
    mode = stat.S_IMODE(info.st_mode)
    if not mode & 0o077 or stat.S_ISLNK(info.st_mode):
        return ""
    try:
        os.chmod(path, wanted)
    except OSError as error:
        return f"{path} is open to others (mode {mode:04o}) and could not be made private: {error.strerror or error}"
    return f"{path} was open to others (mode {mode:04o}); made private ({wanted:04o})"


def fork_session(sessions_dir: Path, workspace: Path, source_id: str, new_id: str | None = None) -> str:
    """Copy session ``source_id`` under a new id (``--fork-session``; ``new_id`` chooses it); return the new id.

    The copy holds the same entries (its ``meta`` names the new id and the
    session it came from) and the same spill files, checkpoints and images, whose paths are relative to
    the session folder, so the fork resumes exactly as the original would. The
    original is only read: a fork can be taken while another process appends to it.
    """
    import json
    import shutil

    source = session_folder(sessions_dir, workspace, source_id)
    if not (source / JSONL_NAME).is_file():
        raise SessionNotFound(f"no session {source_id} for workspace {os.path.abspath(workspace)}")
    parent = workspace_folder(sessions_dir, workspace)
    try:
        new_id, created = _allocate_folder(parent) if new_id is None else _claim_folder(parent, validate_session_id(new_id))
        lines = (source / JSONL_NAME).read_bytes().splitlines(keepends=True)
        first = json.loads(lines[0]) if lines else {}
        if isinstance(first, dict) and first.get("type") == fmt.META:
            first.update(session_id=new_id, created=fmt.format_ts(created), forked_from=source_id)
            lines[0] = (json.dumps(first, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        fd = os.open(parent / new_id / JSONL_NAME, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.writelines(lines)
            out.flush()
            os.fsync(out.fileno())
        for name in (SPILL_NAME, CHECKPOINT_DIR, IMAGE_DIR):
            folder = source / name
            if folder.is_dir() and not (parent / new_id / name).is_dir():
                os.mkdir(parent / new_id / name, DIR_MODE)
            for path in folder.iterdir() if folder.is_dir() else ():
                if path.is_file() and not path.is_symlink():
                    shutil.copyfile(path, parent / new_id / name / path.name)
                    os.chmod(parent / new_id / name / path.name, 0o600)
    except FileExistsError:
        raise SessionError(f"a session {new_id} already exists in this workspace") from None
    except (OSError, ValueError) as error:
        raise SessionError(f"cannot fork session {source_id}: {getattr(error, 'strerror', None) or error}") from error
    _fsync_dir(parent / new_id)
    return new_id


def _claim_folder(parent: Path, session_id: str) -> tuple[str, datetime]:
    """Create ``<parent>/<session_id>/tool-results`` (0700); ``FileExistsError`` when the id is taken."""
    os.mkdir(parent / session_id, DIR_MODE)
    os.chmod(parent / session_id, DIR_MODE)
    os.mkdir(parent / session_id / SPILL_NAME, DIR_MODE)
    os.chmod(parent / session_id / SPILL_NAME, DIR_MODE)
    return session_id, fmt.now()


def _allocate_folder(parent: Path) -> tuple[str, datetime]:
    """Create ``<parent>/<new id>/tool-results`` (0700); ids are retried until one is free."""
    for _ in range(32):
        created = fmt.now()
        session_id = new_session_id(created)
        folder = parent / session_id
        try:
            os.mkdir(folder, DIR_MODE)
        except FileExistsError:
            continue
        os.chmod(folder, DIR_MODE)
        os.mkdir(folder / SPILL_NAME, DIR_MODE)
        os.chmod(folder / SPILL_NAME, DIR_MODE)
        return session_id, created
    raise SessionError(f"could not allocate a new session id under {parent}")


def _make_private_dirs(path: Path) -> None:
    missing = []
    current = path
    while not current.exists():
        missing.append(current)
        current = current.parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, DIR_MODE)
        except FileExistsError:
            continue
        os.chmod(folder, DIR_MODE)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
