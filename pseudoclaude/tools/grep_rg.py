"""grep's ripgrep engine: one ``rg`` on all its threads, its plain output read in blocks and split in bulk.

ripgrep prints, with ``--null``, ``path NUL`` per file (files_with_matches),
``path NUL count LF`` (count) and ``path NUL number : text LF`` for a
matching line or ``path NUL number - text LF`` for a context line (content,
``--no-context-separator``: the groups are told apart by their numbers
later). A NUL never occurs in a path nor in a printed line (ripgrep stops at
the first NUL of a file), so each block is decoded once and split with string
methods or one regular expression: the ``--json`` this engine read before cost
three messages per file, each parsed in Python (most of a broad content
search's own time), and ripgrep more to write. Its threads print each file's
output whole, so one file's lines arrive together; the caller orders files.

Two other lines can occur in content mode, after a file's lines: ripgrep's
notes that it stopped at a binary file's NUL (``path: WARNING: stopped
searching binary file after match ...``), or, for a binary file named as the
target, ``path: binary file matches ...`` instead of its lines (the Python
engine skips such a file: so does this one). They start with the file's own
name, hold no NUL, and are skipped; any other line that is not a record (a
name that does not start where ripgrep searched, as when a crafted name
imitates a note) fails the engine, and the Python engine answers instead. A line over ``LONG_RECORD_BYTES`` is never
held: its head gives the file and number, the rest is counted and dropped,
and it shows as a placeholder with its size, as the Python engine shows one.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import signal
import subprocess
import threading
import time
from typing import Iterator

from pseudoclaude.tools.base import ToolError
from pseudoclaude.tools.grep_search import (
    MAX_FILE_BYTES, MAX_FILE_LINES, RG_WALK_FLAGS, EngineFailed, FileHits, Mode, Query, rebase_glob, rg_location,
)  # fmt: skip
from pseudoclaude.tools.grep_results import Results
from pseudoclaude.tools.read_guard import GuardedRoot
from pseudoclaude.tools.rg_limits import POLL_S, PREEXEC, RG_STALL_S, RgProgress, limit_started
from pseudoclaude.tools.threads import in_thread

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

RG_TIMEOUT_S = 60.0
PIPE_BYTES = 1024 * 1024
"""ripgrep's output pipe (Linux lets any process widen one to 1 MiB): room for its output while it gathers."""
GATHER_S = 0.004
"""After a read, the wait before the next (``_Run``)."""
LONG_RECORD_BYTES = 1024 * 1024
"""A content line longer than this is shown as a placeholder (``WHOLE_FILE_BYTES``'s counterpart for one line)."""
_RECORD = re.compile(r"([^\0]*)\0(\d+)([:-])([^\n]*)\n")
_COUNT = re.compile(r"([^\0]*)\0(\d+)\n")
_BLOCK = re.compile(r"(?:[^\0]*\0\d+[:-][^\n]*\n)*")
_HEAD = re.compile(rb"([^\0]*)\0(\d+)([:-])")
_ESCAPED = re.compile("[\udc80-\udcff]")
_NOTES = (": WARNING: stopped searching binary file", ": binary file matches")


async def rg_collect(query: Query, rg_path: str, results: Results) -> None:
    """Search with ripgrep into ``results`` until it ends or they are ``full``; ``EngineFailed`` when it fails before
    finding anything. Runs on a daemon thread (``threads.in_thread``); cancelled, the search stops ripgrep at once."""
    run = _Run(query, rg_path)
    try:
        await in_thread(run.collect, results)
    finally:
        run.stop()


class _Run:
    """One ``rg``: started, read and reaped on the search's thread; stopped from the event loop when cancelled.

    Blocking reads on a thread, not the event loop: read through asyncio, each
    of the few hundred reads of a broad search took a loop iteration, a
    transport callback and a task wake-up, together more than the results'
    own parsing (and a child-watcher thread per search). After a read the
    output is left to gather in the pipe for ``GATHER_S``, or until ripgrep
    exits: it writes each file's lines as it finishes the file, a few dozen
    bytes at a time.
    """

    def __init__(self, query: Query, rg_path: str) -> None:
        self._query = query
        self._argv, self._cwd, self._target = rg_argv(query, rg_path)
        self._stopped = threading.Event()
        self._proc: subprocess.Popen[bytes] | None = None

    def stop(self) -> None:
        """Kill ripgrep's group (the reading thread reaps it); idempotent."""
        self._stopped.set()
        proc = self._proc
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)

    def collect(self, results: Results) -> None:
        proc = subprocess.Popen(
            self._argv, cwd=self._cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True, preexec_fn=PREEXEC,
        )  # fmt: skip
        self._proc = proc
        limit_started(proc.pid)
        assert proc.stdout is not None and proc.stderr is not None
        try:
            found, stderr = self._read(proc, proc.stdout.fileno(), proc.stderr.fileno(), results)
            if found < 0:
                return
            code = proc.wait()
        finally:
            self.stop()
            proc.wait()
            proc.stdout.close()
            proc.stderr.close()
        if code < 0 or (code == 2 and not found):
            raise EngineFailed(stderr.decode("utf-8", errors="replace").strip()[:500] or f"ripgrep ended by signal {-code}")

    def _read(self, proc: subprocess.Popen[bytes], out: int, err: int, results: Results) -> tuple[int, bytes]:
        """Files found and ripgrep's first 64 KiB of errors; -1 found when the search stopped early (full, cut,
        stopped). ``EngineFailed`` when ripgrep stalls (``rg_limits``), ``ToolError`` past ``RG_TIMEOUT_S``."""
        query = self._query
        parser = (
            Records(self._cwd, self._target, query.root.is_file(), query.context) if query.mode == "content" else Names(self._cwd, self._target, query.mode)
        )
        _widen(out)
        os.set_blocking(out, False)
        with _exit_watch(proc.pid) as exited:
            return self._loop(out, err, results, parser, RgProgress(proc.pid), exited)

    def _loop(self, out: int, err: int, results: Results, parser: Records | Names, progress: RgProgress, exited: int | None) -> tuple[int, bytes]:
        """``_read``'s loop; ``exited`` is readable once ripgrep exits (see ``_exit_watch``)."""
        guard = self._query.guard if self._query.guard is not None and self._query.guard.guard.patterns else None
        idle, deadline = 0.0, time.monotonic() + RG_TIMEOUT_S
        found, stderr, open_fds = 0, b"", [out, err]
        while out in open_fds:
            ready = select.select(open_fds, [], [], POLL_S)[0]
            if self._stopped.is_set():
                return -1, stderr
            if time.monotonic() > deadline:
                raise ToolError(f"search took longer than {RG_TIMEOUT_S:.0f} s; narrow the path or the pattern")
            if not ready:
                moved = progress.moved()
                idle = 0.0 if moved is not False else idle + POLL_S
                if idle >= RG_STALL_S:
                    raise EngineFailed(f"ripgrep made no progress for {RG_STALL_S:g} s (a FIFO among the ignore files blocks it)")
                continue
            idle = 0.0
            if err in ready:
                piece = os.read(err, 65536)
                stderr = (stderr + piece)[:65536]
                if not piece:
                    open_fds.remove(err)
            if out not in ready:
                continue
            chunk, ended = _drain(out)
            if ended:
                open_fds.remove(out)
            taken, cut = parser.take(chunk, ended, results, guard)
            found += taken
            if results.full or cut:
                return -1, stderr  # ripgrep has more to say, and no one listens: stopped by ``collect``
            if chunk and not ended:  # let the output gather, unless ripgrep exits meanwhile
                if exited is None:
                    time.sleep(GATHER_S)
                else:
                    select.select([exited], [], [], GATHER_S)
        return found, stderr + _rest(err) if err in open_fds else stderr


def rg_argv(query: Query, rg_path: str) -> tuple[list[str], str, str]:
    """ripgrep's arguments, working folder and target for ``query``."""
    cwd, target, ignore_args = rg_location(query.root, query.ignore_base)
    argv = [rg_path, *RG_WALK_FLAGS, "--with-filename", "--null", "--max-filesize", str(MAX_FILE_BYTES), *ignore_args]
    if query.case_insensitive:
        argv.append("--ignore-case")
    if query.glob:
        argv += ["--glob", rebase_glob(query.glob, target)]
    argv += ["--glob", "!.git"]
    if query.guard is not None:
        argv += query.guard.rg_globs(cwd)
    if query.mode == "content":
        argv += ["--line-number", "--no-heading", "--no-context-separator", "--context", str(query.context)]
    elif query.mode == "count":
        argv += ["--count"]
    else:
        argv += ["--files-with-matches"]
    return [*argv, "--regexp", query.pattern, "--", target], str(cwd), target


@contextlib.contextmanager
def _exit_watch(pid: int) -> Iterator[int | None]:
    """A descriptor that becomes readable when ``pid`` exits (Linux ``pidfd_open``), or None where there is none."""
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        yield None
        return
    try:
        yield fd
    finally:
        os.close(fd)


def _rest(fd: int) -> bytes:
    """ripgrep's remaining errors, once it closed its output (it is exiting): at most 64 KiB kept."""
    kept = b""
    while piece := os.read(fd, 65536):
        kept = (kept + piece)[:65536]
    return kept


def _drain(fd: int) -> tuple[bytes, bool]:
    """What the pipe holds (up to ``PIPE_BYTES``), and whether ripgrep closed it."""
    pieces: list[bytes] = []
    size = 0
    while size < PIPE_BYTES:
        try:
            piece = os.read(fd, PIPE_BYTES - size)
        except BlockingIOError:
            break
        if not piece:
            return b"".join(pieces), True
        pieces.append(piece)
        size += len(piece)
    return b"".join(pieces), False


def _widen(fd: int) -> None:
    """Make the pipe hold ``PIPE_BYTES`` (Linux; elsewhere, or past the system's limit, it stays as it is)."""
    if hasattr(fcntl, "F_SETPIPE_SZ"):
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)


class Names:
    """files_with_matches (``path NUL``) and count (``path NUL count LF``) output, split a block at a time."""

    def __init__(self, cwd: str, target: str, mode: Mode) -> None:
        self._base = cwd if cwd.endswith(os.sep) else cwd + os.sep
        self._strip = 2 if target == "." else 0
        self._count = mode == "count"
        self._pending = b""

    def take(self, chunk: bytes, ended: bool, results: Results, guard: GuardedRoot | None) -> tuple[int, bool]:
        """Add the files ``chunk`` completes to ``results``; how many it named, and False (nothing is cut here)."""
        found = self.feed(chunk)
        if guard is not None:
            found = [(path, count) for path, count in found if guard.denied(path) is None]
        results.add_names(found)
        return len(found), False

    def feed(self, chunk: bytes) -> list[tuple[str, int]]:
        data = self._pending + chunk if self._pending else chunk
        end = data.rfind(b"\n" if self._count else b"\0") + 1
        self._pending = data[end:]
        if not end:
            return []
        base, strip = self._base, self._strip
        if not self._count:
            return [(base + raw[strip:], 1) for raw in os.fsdecode(data[: end - 1]).split("\0")]
        text, pos, found = os.fsdecode(data[:end]), 0, []
        for record in _COUNT.finditer(text):
            if record.start() != pos:
                break
            found.append((base + record.group(1)[strip:], int(record.group(2))))
            pos = record.end()
        if pos < len(text):  # a name with a newline, cut at the block's end
            self._pending = os.fsencode(text[pos:]) + self._pending
        return found


class Records:
    """Content output (``path NUL number [:-] text LF``), a block at a time: a ``FileHits`` per file once its lines
    are complete (a later file starts, or the output ends)."""

    def __init__(self, cwd: str, target: str, explicit: bool, context: int) -> None:
        self._base = cwd if cwd.endswith(os.sep) else cwd + os.sep
        self._strip = 2 if target == "." else 0
        self._prefix = target if explicit else "./" if target == "." else target.rstrip("/") + "/"
        self._explicit = explicit
        self._context = context
        """Lines around matches: without, every line is a match."""
        self._pending = b""
        self._raw = target if explicit else ""
        self._current: FileHits | None = None
        self._long: tuple[str, int, bool] | None = None
        self._long_size = 0
        self.cut = False

    def take(self, chunk: bytes, ended: bool, results: Results, guard: GuardedRoot | None) -> tuple[int, bool]:
        """Add the files ``chunk`` completes (all that are left, once ``ended``) to ``results``; how many there were, and
        whether the last was cut (``MAX_FILE_LINES``: the search stops)."""
        done = self.feed(chunk) if chunk else []
        if ended:
            done += self.finish()
        if not done:
            return 0, False
        found, cut = len(done), done[-1].cut
        if guard is not None:
            done = [hits for hits in done if guard.denied(hits.path) is None]
        results.add_all(done)
        return found, cut

    def feed(self, chunk: bytes) -> list[FileHits]:
        done: list[FileHits] = []
        if self.cut:
            return done
        if self._long is not None:
            newline = chunk.find(b"\n")
            if newline < 0:
                self._long_size += len(chunk)
                return done
            self._end_long(newline + 1, done)
            chunk = chunk[newline + 1 :]
        data = self._pending + chunk if self._pending else chunk
        end = data.rfind(b"\n") + 1
        self._pending = data[end:]
        if end:
            try:  # most blocks are UTF-8 records, whole: checked so with one match, then split with ``findall``
                text = data[:end].decode("utf-8")
                whole = end <= LONG_RECORD_BYTES and not any(note in text for note in _NOTES) and _BLOCK.fullmatch(text) is not None
            except UnicodeDecodeError:
                text, whole = data[:end].decode("utf-8", "surrogateescape"), False
            pos = self._whole(text, done) if whole else self._records(text, done)
            if pos < len(text):  # a name with a newline, cut at the block's end
                self._pending = text[pos:].encode("utf-8", "surrogateescape") + self._pending
        if len(self._pending) > LONG_RECORD_BYTES and not self.cut:
            self._start_long(done)
        return done

    def finish(self) -> list[FileHits]:
        done: list[FileHits] = []
        if self._long is not None:
            self._end_long(0, done)
        self._close(done)
        return done

    def _records(self, text: str, done: list[FileHits]) -> int:
        """Parse ``text`` (whole lines) record by record; returns where parsing stopped (an incomplete record).

        A record over ``LONG_RECORD_BYTES`` is a placeholder, as one read in pieces (``_start_long``) is: the blocks
        ripgrep's output comes in decide nothing."""
        match, pos, size = _RECORD.match, 0, len(text)
        fix = _ESCAPED.search(text) is not None
        while pos < size:
            raw_now = self._raw
            if raw_now and text.startswith(raw_now, pos) and text.startswith(_NOTES, pos + len(raw_now)):
                end = text.index("\n", pos + len(raw_now))
                if "\0" not in text[pos + len(raw_now) : end]:  # a note, not a record of a name that starts so
                    pos = end + 1
                    continue
            found = match(text, pos)
            if found is None:
                if "\0" not in text[pos:]:
                    break  # the first part of a record whose name holds a newline
                raise EngineFailed(f"ripgrep printed a line this engine cannot read: {text[pos : pos + 80]!r}")
            raw, number, sep, line = found.groups()
            if found.end() - pos > LONG_RECORD_BYTES // 4 and len(found.group().encode("utf-8", "surrogateescape")) > LONG_RECORD_BYTES + 1:
                line = f"… [line of about {len(line.encode('utf-8', 'surrogateescape')) + 1:,} bytes, too long to show]"
            pos = found.end()
            if self._current is None or raw != raw_now:
                if self._close(done):
                    return size
                self._current, self._raw = self._start(raw), raw
            if fix:  # not UTF-8: U+FFFD, as ripgrep's JSON gave it and the Python engine reads it
                line = line.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            self._current.lines.append((int(number), line, sep == ":"))
            if len(self._current.lines) >= MAX_FILE_LINES:
                self._close(done)
                return size
        return pos

    def _whole(self, text: str, done: list[FileHits]) -> int:
        """``text``: UTF-8 records only, whole. ``_records``'s loop, with what it checks per record left out or done
        per file (a ``match``, a method call and a count per record cost twice as much)."""
        current = self._current
        raw_now = self._raw if current is not None else ""
        lines = current.lines if current is not None else []
        base, strip, prefix = self._base, self._strip, self._prefix
        for raw, number, sep, line in _RECORD.findall(text):
            if raw != raw_now:
                self._current = current
                if self._close(done):
                    return len(text)
                if not raw.startswith(prefix) or (self._explicit and raw != prefix):
                    self._path(raw)  # raises
                current = FileHits(base + raw[strip:], 0, [])
                raw_now, lines = raw, current.lines
            lines.append((int(number), line, sep == ":"))
        self._current, self._raw = current, raw_now
        if len(lines) >= MAX_FILE_LINES:
            self._close(done)
        return len(text)

    def _close(self, done: list[FileHits]) -> bool:
        """The current file is complete: its lines cut at ``MAX_FILE_LINES`` (the search then stops), counted, and
        done if it matched; whether it was cut."""
        hits, self._current = self._current, None
        if hits is None:
            return False
        if len(hits.lines) >= MAX_FILE_LINES:
            del hits.lines[MAX_FILE_LINES:]
            hits.cut = self.cut = True
        hits.count = sum([is_match for _, _, is_match in hits.lines]) if self._context else len(hits.lines)
        if hits.count or hits.cut:
            done.append(hits)
        return hits.cut

    def _path(self, raw: str) -> str:
        if not raw.startswith(self._prefix) or (self._explicit and raw != self._prefix):
            raise EngineFailed(f"ripgrep printed a name outside its target: {raw[:200]!r}")
        return self._base + raw[self._strip :]

    def _start(self, raw: str) -> FileHits:
        path = self._path(raw)
        if _ESCAPED.search(path) is not None:  # not UTF-8: shown with U+FFFD, as ripgrep's JSON named it
            path = path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        return FileHits(path, 0)

    def _start_long(self, done: list[FileHits]) -> None:
        """A record longer than ``LONG_RECORD_BYTES``: keep its file and number, count the rest."""
        head = _HEAD.match(self._pending)
        if head is None:
            raise EngineFailed("ripgrep printed a long line this engine cannot read")
        raw = os.fsdecode(head.group(1))
        if self._current is None or raw != self._raw:
            if self._close(done):
                return
            self._current, self._raw = self._start(raw), raw
        self._long = (raw, int(head.group(2)), head.group(3) == b":")
        self._long_size = len(self._pending) - head.end()
        self._pending = b""

    def _end_long(self, used: int, done: list[FileHits]) -> None:
        assert self._long is not None and self._current is not None
        _, number, is_match = self._long
        size = self._long_size + used
        self._current.lines.append((number, f"… [line of about {size:,} bytes, too long to show]", is_match))
        self._long = None
        if len(self._current.lines) >= MAX_FILE_LINES:
            self._close(done)
