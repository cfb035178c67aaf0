"""Checkpoints before edits, and what ``/rewind`` and ``/diff`` do with them.

Every tool that declares itself an ``edit`` (``ToolTraits.kind``) is wrapped:
before it runs (after the permission check, so only edits that happen are
kept), each of its path arguments is read and recorded in the session
(``Session.append_checkpoint``: the content under ``checkpoints/``, or its
absence). A checkpoint that cannot be saved does not stop the edit; the
edit's result says so, since a rewind will not be able to undo it.

Commands' side effects (``run_command``, ``!cmd``) are not checkpointed: a
shell command can change anything, and only what the edit tools wrote can be
put back. ``/rewind`` says so.

``restore_files`` puts files back as they were before the user message at a
transcript index; ``session_changes`` compares each file's first checkpoint
with the disk now (``/diff``). Both read the session file afresh
(``load_replay``), the one record of what was kept.
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Mapping, Protocol, Sequence, runtime_checkable

from pseudoclaude.compact import is_user_request
from pseudoclaude.config import Settings
from pseudoclaude.llm import Message
from pseudoclaude.session import Checkpoint, load_replay, open_session, session_folder
from pseudoclaude.tools import Tool, ToolContext, ToolOutput, ToolTraits

MAX_CHECKPOINT_BYTES = 8 * 1024 * 1024
DIFF_LINES = 400


@runtime_checkable
class CheckpointStore(Protocol):
    """What checkpointing needs of a session (``pseudoclaude.session.Session`` satisfies it)."""

    def append_checkpoint(self, path: Path, content: bytes | None, *, turn: int) -> None: ...


class CheckpointingTool:
    """``tool`` with its files' previous content recorded before each run (same name, schema and traits)."""

    def __init__(self, tool: Tool, store: CheckpointStore) -> None:
        self.tool = tool
        self.store = store
        self.name: str = tool.name
        self.description: str = tool.description
        self.input_schema: Mapping[str, Any] = tool.input_schema
        self.traits: ToolTraits = tool.traits

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        problems = [problem for raw in self._paths(args) if (problem := self._keep(_target(raw, ctx.workspace), ctx.turn))]
        output = await self.tool.run(args, ctx)
        if problems and not output.is_error:
            note = f"\n(note: no checkpoint was kept, so /rewind cannot undo this edit: {'; '.join(problems)})"
            return replace(output, content=output.content + note)
        return output

    def preview(self, args: Mapping[str, Any], ctx: ToolContext) -> str | None:
        """The wrapped tool's change, so the approval question still shows its diff (None: it has no preview)."""
        inner = getattr(self.tool, "preview", None)
        result = inner(args, ctx) if callable(inner) else None
        return result if isinstance(result, str) else None

    def _paths(self, args: Mapping[str, Any]) -> list[str]:
        return [value for name in self.traits.path_arguments if isinstance(value := args.get(name), str) and value.strip()]

    def _keep(self, path: Path, turn: int) -> str:
        try:
            if not path.exists():
                self.store.append_checkpoint(path, None, turn=turn)
                return ""
            if not path.is_file():
                return ""
            if path.stat().st_size > MAX_CHECKPOINT_BYTES:
                return f"{path.name} is larger than {MAX_CHECKPOINT_BYTES // 1024 // 1024} MB"
            self.store.append_checkpoint(path, path.read_bytes(), turn=turn)
        except OSError as error:
            return f"{path.name}: {error.strerror or error}"
        return ""


def checkpointed(tools: Iterable[Tool], store: CheckpointStore) -> list[Tool]:
    """``tools`` with every edit tool wrapped in a ``CheckpointingTool``."""
    return [CheckpointingTool(tool, store) if tool.traits.kind == "edit" else tool for tool in tools]


def _target(raw: str, workspace: Path) -> Path:
    expanded = os.path.expanduser(raw.strip())
    candidate = Path(expanded) if os.path.isabs(expanded) else workspace / expanded
    return Path(os.path.realpath(candidate))


@dataclass(frozen=True)
class UserTurn:
    """A message the user sent: its index in the recorded transcript and its first line."""

    index: int
    text: str


def user_turns(settings: Settings, session_id: str) -> list[UserTurn]:
    """The messages the user typed, oldest first (what ``/rewind`` offers).

    The runner's own ``[Request interrupted ...]`` notes are user-role
    messages too, but nobody typed them: rewinding to one means nothing.
    """
    replay = load_replay(session_folder(settings.sessions_dir, settings.workspace, session_id))
    return [UserTurn(index, message.text) for index, message in enumerate(replay.transcript) if _is_prompt(message)]


def _is_prompt(message: Message) -> bool:
    return is_user_request(message) and not _INTERRUPT_NOTE.fullmatch(message.text.strip())


_INTERRUPT_NOTE = re.compile(r"\[Request interrupted(?: by user| by user for tool use|: [^\]\n]*)\]")


@dataclass(frozen=True)
class RestoredFile:
    path: str
    action: str
    """``restored``, ``removed`` (the turn created it) or a failure: ``cannot restore: ...``."""


def restore_files(settings: Settings, session_id: str, before: int) -> list[RestoredFile]:
    """Put each file edited at or after transcript index ``before`` back as it was then (the session must not be open)."""
    replay = load_replay(session_folder(settings.sessions_dir, settings.workspace, session_id))
    firsts: dict[str, Checkpoint] = {}
    for checkpoint in replay.checkpoints:
        if checkpoint.position > before:
            firsts.setdefault(checkpoint.path, checkpoint)
    return [_restore(checkpoint, settings.workspace) for checkpoint in firsts.values()]


def _restore(checkpoint: Checkpoint, workspace: Path) -> RestoredFile:
    shown = _shown(checkpoint.path, workspace)
    path = Path(checkpoint.path)
    try:
        content = checkpoint.content()
        if content is None:
            if path.is_file():
                path.unlink()
                return RestoredFile(shown, "removed")
            return RestoredFile(shown, "unchanged")
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.rewind.tmp")
        temporary.write_bytes(content)
        if path.exists():
            os.chmod(temporary, path.stat().st_mode & 0o7777)
        os.replace(temporary, path)
    except OSError as error:
        return RestoredFile(shown, f"cannot restore: {error.strerror or error}")
    return RestoredFile(shown, "restored")


def rewind_session(settings: Settings, session_id: str, before: int, *, files: bool) -> list[RestoredFile]:
    """Restore the files (when ``files``) and record the rewind to transcript index ``before`` (the session must not be open).

    The rewind is one more appended entry: replaying the session gives the
    conversation as it was before that message, with the compactions recorded
    before it.
    """
    restored = restore_files(settings, session_id, before) if files else []
    session, _ = open_session(settings.sessions_dir, settings.workspace, session_id)
    try:
        session.append_rewind(before, files=files)
    finally:
        session.close()
    return restored


@dataclass(frozen=True)
class FileChange:
    """One file the session changed: its name, lines added and removed, and a bounded unified diff."""

    path: str
    added: int
    removed: int
    diff: str


def session_changes(settings: Settings, session_id: str, max_lines: int = DIFF_LINES, *, since: int = -1) -> list[FileChange]:
    """What the session's edits changed, per file: its first checkpoint against the disk now (unchanged files left out).

    ``since``: only the edits after transcript index ``since``, so the result
    is what ``restore_files(..., since)`` would put back (``/rewind`` names them).
    """
    replay = load_replay(session_folder(settings.sessions_dir, settings.workspace, session_id))
    firsts: dict[str, Checkpoint] = {}
    for checkpoint in replay.checkpoints:
        if checkpoint.position > since:
            firsts.setdefault(checkpoint.path, checkpoint)
    changes = [_change(checkpoint, settings.workspace, max_lines) for checkpoint in firsts.values()]
    return [change for change in changes if change is not None]


def _change(checkpoint: Checkpoint, workspace: Path, max_lines: int) -> FileChange | None:
    shown = _shown(checkpoint.path, workspace)
    try:
        before = checkpoint.content()
    except OSError as error:
        return FileChange(shown, 0, 0, f"(its checkpoint cannot be read: {error.strerror or error})\n")
    path = Path(checkpoint.path)
    try:
        now = path.read_bytes() if path.is_file() else None
    except OSError:
        now = None
    if before == now:
        return None
    old, new = _lines(before), _lines(now)
    lines = list(
        difflib.unified_diff(old, new, fromfile=f"a/{shown}" if before is not None else "/dev/null", tofile=f"b/{shown}" if now is not None else "/dev/null")
    )
    added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
    shown_lines = [line if line.endswith("\n") else line + "\n" for line in lines[:max_lines]]
    if len(lines) > max_lines:
        shown_lines.append(f"… {len(lines) - max_lines} more diff lines\n")
    return FileChange(shown, added, removed, "".join(shown_lines))


def _lines(data: bytes | None) -> list[str]:
    if data is None:
        return []
    if b"\x00" in data[:8192]:
        return ["(binary content)\n"]
    return data.decode("utf-8", errors="replace").splitlines(keepends=True)


def _shown(path: str, workspace: Path) -> str:
    try:
        return Path(path).relative_to(os.path.realpath(workspace)).as_posix()
    except ValueError:
        return path


def summary_lines(changes: Sequence[FileChange]) -> list[str]:
    """``path  +a -r`` per changed file."""
    return [f"{change.path}  +{change.added} -{change.removed}" for change in changes]
