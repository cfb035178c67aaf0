"""Tolerant replay of ``session.jsonl`` into what a resumed run needs.

Replay never trusts the file: each line is parsed on its own, and a line that
is torn (the process died mid-write, the disk filled), not JSON, not UTF-8, or
a malformed entry is skipped and counted, with a warning that says what was
lost; everything around it is kept. A leading UTF-8 byte-order mark (an editor
saved the file) is ignored. Only one thing
stops a replay: an entry of another *major* format version, because guessing
at a newer format could silently send the model the wrong context.

``conversation`` is what the model saw, as recorded: the ``messages`` of the
last compaction boundary followed by every message recorded after it. Tool
results appear with their original content; every layer's replacement
decisions are in ``replacements`` for the context state to re-apply, so the
resumed run sends the same previews it sent before (and drops the images a
layer turned into notes). Images come back with the bytes saved under
``images/`` (``session/images.py``); a file that is gone or no longer hashes to
its name leaves the image unavailable (the model gets a note), never stops the
replay. Orphaned tool calls (a turn
interrupted mid tool call) are replayed as recorded; closing them is the
runner's repair step, not the reader's.
"""

from __future__ import annotations

import codecs
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from pseudoclaude.llm import Image, Message, Usage
from pseudoclaude.session import format as fmt
from pseudoclaude.session.checkpoints import Checkpoint, checkpoint_from_entry, rewind_checkpoints
from pseudoclaude.session.errors import SessionNotFound
from pseudoclaude.session.facts import ReadStamp, effort_from_entry, mode_from_entry, stamp_from_entry
from pseudoclaude.session.images import image_loader

JSONL_NAME = "session.jsonl"
_WARNING_LIMIT = 20
_decode = json.JSONDecoder().decode
_ENTRY_START = b'{"type":'


@dataclass(frozen=True)
class Replacement:
    """A layer's decision: the model sees ``preview`` instead of the result of ``call_id``.

    ``path`` is the spill file holding the original ("" when none was saved).
    ``drops_images``: the result's images were replaced by the notes in
    ``preview`` (since format 1.5); once dropped they stay dropped, whatever
    later replacement of the same result says.
    """

    call_id: str
    path: str
    preview: str
    original_bytes: int
    layer: str = "offload"
    drops_images: bool = False


@dataclass(frozen=True)
class Replay:
    meta: fmt.SessionMeta
    conversation: tuple[Message, ...]
    transcript: tuple[Message, ...]
    replacements: Mapping[str, Replacement]
    anchor: tuple[int, int] | None
    usage_total: Usage
    skipped_lines: int
    warnings: tuple[str, ...]
    boundaries: tuple[int, ...] = ()
    """Indices into ``transcript`` where a compaction boundary was recorded."""
    learned_window: int | None = None
    """The context window a provider stated in a prompt-too-long error, if one did."""
    last_call_at: float | None = None
    """When the last provider call was answered (epoch seconds): tells whether its prompt cache is still warm."""
    memory_snapshot: str | None = None
    """The memory snapshot the session started with (None for sessions that recorded none)."""
    model: str = ""
    """The model a ``/model`` switch chose last ("" when none was recorded: ``meta.model``)."""
    model_provider: str = ""
    """The provider of that switch ("" when not recorded: older sessions, or none)."""
    cost_usd: float = 0.0
    """The estimated cost of the recorded calls, each at the price of the model that served it."""
    unpriced_calls: int = 0
    """Recorded calls whose model has no known price (their cost is unknown, not $0)."""
    calibration: tuple[float, int] | None = None
    """What the token estimator had learned by the last usage report: (bytes per token, samples), None when nothing was recorded."""
    checkpoints: tuple[Checkpoint, ...] = ()
    """Files as they were before this session's edits, in order (``session/checkpoints.py``)."""
    read_stamps: tuple[ReadStamp, ...] = ()
    """The latest stamp of each file the model read or wrote (``session/facts.py``); none before format 1.6."""
    effort_recorded: bool = False
    """Whether the session recorded an effort (then ``effort`` is it, None meaning off)."""
    effort: str | None = None
    mode: str = ""
    """The last permission-mode switch recorded ("" when none was)."""

    def previews(self) -> dict[str, str]:
        """``call_id -> preview``: the shape ``compact.ContextState`` restores from."""
        return {call_id: r.preview for call_id, r in self.replacements.items()}

    def images_dropped(self) -> frozenset[str]:
        """Call ids whose images were replaced by notes: what ``compact.ContextState`` restores beside ``previews``."""
        return frozenset(call_id for call_id, r in self.replacements.items() if r.drops_images)


def jsonl_path_of(path_or_folder: Path) -> Path:
    return path_or_folder / JSONL_NAME if path_or_folder.is_dir() else path_or_folder


def load_replay(path_or_folder: Path) -> Replay:
    """Replay a session read-only (no lock): for ``sessions show`` and for resuming."""
    path = jsonl_path_of(Path(path_or_folder))
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        raise SessionNotFound(f"no session file at {path}") from None
    with handle:
        return replay_lines(handle, folder=path.parent.absolute())


@dataclass
class _State:
    folder: Path
    meta: fmt.SessionMeta | None = None
    title: str = ""
    transcript: list[Message] = field(default_factory=list)
    prefix: tuple[Message, ...] = ()
    boundary_start: int = 0
    boundaries: list[int] = field(default_factory=list)
    prefixes: list[tuple[Message, ...]] = field(default_factory=list)
    checkpoints: list[Checkpoint] = field(default_factory=list)
    stamps: dict[str, ReadStamp] = field(default_factory=dict)
    effort_recorded: bool = False
    effort: str | None = None
    mode: str = ""
    replacements: dict[str, Replacement] = field(default_factory=dict)
    anchor: tuple[int, int] | None = None
    learned_window: int | None = None
    calibration: tuple[float, int] | None = None
    last_call_at: float | None = None
    memory_snapshot: str | None = None
    usage_total: Usage = field(default_factory=Usage)
    model: str = ""
    model_provider: str = ""
    cost_usd: float = 0.0
    unpriced_calls: int = 0
    skipped: int = 0
    warnings: list[str] = field(default_factory=list)

    def load_image(self, image: Image) -> bytes | None:
        return image_loader(self.folder)(image)

    def warn(self, text: str) -> None:
        if len(self.warnings) < _WARNING_LIMIT:
            self.warnings.append(text)

    def skip(self, number: int, reason: str) -> None:
        self.skipped += 1
        self.warn(f"line {number}: {reason}; skipped")

    def conversation_length(self) -> int:
        return len(self.prefix) + len(self.transcript) - self.boundary_start


def replay_lines(lines: Iterable[bytes], *, folder: Path) -> Replay:
    state = _State(folder=folder)
    for number, raw in enumerate(lines, 1):
        if number == 1 and raw.startswith(codecs.BOM_UTF8):  # an editor saved the file with a byte-order mark
            raw = raw[len(codecs.BOM_UTF8) :]
        if len(raw) <= 2 and not raw.strip():
            continue
        try:
            entry = _decode(raw.decode("utf-8"))
        except UnicodeDecodeError:
            state.skip(number, "invalid UTF-8")
            continue
        except ValueError:
            state.skip(number, _unparsable(raw))
            continue
        if not isinstance(entry, dict):
            state.skip(number, "not a JSON object")
            continue
        try:
            if entry.get("version") != fmt.FORMAT_VERSION:
                fmt.check_version(entry.get("version"), number)
            _apply(state, entry)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            state.skip(number, f"malformed {entry.get('type')!r} entry ({error})")
    return _finish(state)


def _unparsable(raw: bytes) -> str:
    """Why a line that is not JSON was skipped: a torn write says what it lost."""
    if not raw.endswith(b"\n"):
        return f"the last {len(raw)} bytes are an incomplete entry (the process stopped or the disk filled while writing it); what it held was never saved"
    if raw.startswith(_ENTRY_START) and not raw.rstrip().endswith(b"}"):
        return f"an incomplete entry of {len(raw) - 1} bytes (a write that did not finish); what it held was never saved"
    return "not valid JSON"


def _write_failed(state: _State, entry: Mapping[str, Any]) -> None:
    """The entry a session appends when its writes had failed: the conversation after it was cut."""
    lost = int(entry.get("lost_entries") or 0)
    reason = str(entry.get("reason") or "a write failed")
    state.warn(
        f"this session could not be saved from {entry.get('failed_at') or entry.get('ts')} on ({reason}): {lost} entries were lost, "
        "so it resumes from the last entry saved before that"
    )


def _apply(state: _State, entry: dict[str, Any]) -> None:
    kind = entry.get("type")
    if kind == fmt.MESSAGE:
        state.transcript.append(Message.from_dict(entry["message"], state.load_image))
    elif kind == fmt.USAGE:
        usage = Usage.from_dict(entry["usage"])
        context_messages = int(entry["context_messages"])
        state.usage_total = state.usage_total + usage
        _price(state, str(entry.get("model") or state.model or (state.meta.model if state.meta is not None else "")), usage)
        state.last_call_at = fmt.parse_ts(entry.get("ts")).timestamp()
        if 0 <= context_messages <= state.conversation_length():
            state.anchor = (usage.prompt_tokens, context_messages)
        else:
            state.anchor = None
            state.warn(f"usage entry {entry.get('id')} counts {context_messages} messages; anchor dropped")
    elif kind == fmt.REPLACEMENT:
        raw_path = str(entry.get("path") or "")
        path = raw_path if not raw_path or Path(raw_path).is_absolute() else str(state.folder / raw_path)
        call_id = str(entry["call_id"])
        layer = str(entry.get("layer") or ("offload" if raw_path else "clear"))
        earlier = state.replacements.get(call_id)
        drops_images = entry.get("drops_images") is True or (earlier is not None and earlier.drops_images)
        if not path and earlier is not None and drops_images:
            path = earlier.path  # a result whose images went later keeps the spill file of its earlier preview
        state.replacements[call_id] = Replacement(call_id, path, str(entry["preview"]), int(entry["original_bytes"]), layer, drops_images)
        if entry.get("resets_anchor", not raw_path):  # before 1.2, an empty path meant a cleared result
            state.anchor = None
    elif kind == fmt.COMPACTION:
        prefix = tuple(Message.from_dict(m, state.load_image) for m in entry["messages"])
        state.prefix = prefix
        state.boundary_start = len(state.transcript)
        state.boundaries.append(len(state.transcript))
        state.prefixes.append(prefix)
        state.anchor = None
    elif kind == fmt.CHECKPOINT:
        state.checkpoints.append(checkpoint_from_entry(entry, state.folder, len(state.transcript)))
    elif kind == fmt.FILE_STAMP:
        stamp = stamp_from_entry(entry, len(state.transcript))
        state.stamps.pop(stamp.path, None)  # the latest stamp of a file comes last
        state.stamps[stamp.path] = stamp
    elif kind == fmt.EFFORT:
        state.effort, state.effort_recorded = effort_from_entry(entry), True
    elif kind == fmt.MODE:
        state.mode = mode_from_entry(entry)
    elif kind == fmt.REWIND:
        _rewind(state, int(entry["messages"]), bool(entry.get("files")))
    elif kind == fmt.TITLE:
        state.title = str(entry["title"])
    elif kind == fmt.MODEL:
        state.model, state.model_provider = str(entry["model"]), str(entry.get("provider") or "")
    elif kind == fmt.MEMORY:
        if state.memory_snapshot is None:
            state.memory_snapshot = str(entry["snapshot"])
    elif kind == fmt.WINDOW:
        state.learned_window = int(entry["context_window"])
    elif kind == fmt.ERROR and entry.get("kind") == fmt.WRITE_FAILED:
        _write_failed(state, entry)
    elif kind == fmt.CALIBRATION:
        ratio, samples = entry.get("bytes_per_token"), entry.get("samples")
        if isinstance(ratio, (int, float)) and isinstance(samples, int) and not isinstance(samples, bool):
            state.calibration = (float(ratio), samples)
    elif kind == fmt.META:
        if state.meta is None:
            state.meta = fmt.SessionMeta.from_entry(entry, state.folder.name)


def _rewind(state: _State, messages: int, files: bool) -> None:
    """Cut the transcript back to ``messages`` recorded messages; boundaries after the cut are undone."""
    if not 0 <= messages <= len(state.transcript):
        raise ValueError(f"rewind to {messages} messages of {len(state.transcript)}")
    del state.transcript[messages:]
    while state.boundaries and state.boundaries[-1] > messages:
        state.boundaries.pop()
        state.prefixes.pop()
    state.boundary_start = state.boundaries[-1] if state.boundaries else 0
    state.prefix = state.prefixes[-1] if state.prefixes else ()
    state.anchor = None
    state.checkpoints = rewind_checkpoints(state.checkpoints, messages, files)
    state.stamps = {path: stamp for path, stamp in state.stamps.items() if stamp.position < messages}


def _price(state: _State, model: str, usage: Usage) -> None:
    from pseudoclaude.llm import request_cost

    cost = request_cost(model, usage)
    if cost is None:
        state.unpriced_calls += 1
    else:
        state.cost_usd += cost


def _finish(state: _State) -> Replay:
    meta = state.meta
    if meta is None:
        state.warn("no meta entry: model and provider unknown")
        meta = fmt.SessionMeta(state.folder.name, "", "", "", fmt.parse_ts(None), "")
    if state.skipped > _WARNING_LIMIT:
        state.warnings.append(f"{state.skipped} lines skipped in all")
    transcript = tuple(state.transcript)
    conversation = state.prefix + transcript[state.boundary_start :]
    return Replay(
        meta=fmt.replace_title(meta, state.title) if state.title else meta,
        conversation=conversation,
        transcript=transcript,
        replacements=dict(state.replacements),
        anchor=state.anchor,
        usage_total=state.usage_total,
        skipped_lines=state.skipped,
        warnings=tuple(state.warnings),
        boundaries=tuple(state.boundaries),
        learned_window=state.learned_window,
        last_call_at=state.last_call_at,
        memory_snapshot=state.memory_snapshot,
        model=state.model,
        model_provider=state.model_provider,
        cost_usd=state.cost_usd,
        unpriced_calls=state.unpriced_calls,
        calibration=state.calibration,
        checkpoints=tuple(state.checkpoints),
        read_stamps=tuple(state.stamps.values()),
        effort_recorded=state.effort_recorded,
        effort=state.effort,
        mode=state.mode,
    )
