"""grep's results: per-file hits in any order in, capped text in path order out, the complete list in a spill file.

ripgrep runs on all its threads (``--sort path`` made it single-threaded),
so files arrive in the order its threads finish them; what is shown must not
depend on that. ``Results`` keeps every file's entries (formatted once, as
strings) and orders them by ``grep_search.path_key`` only when the answer is
written, so the output is the same for both engines and from run to run.

Memory stays bounded: past ``KEEP_CHARS`` of entries the search stops
(``full``: the caller stops ripgrep or the walk), and the answer says it
stopped counting rather than giving a total it does not know. Short of that
every match is read, so the note about what was left out is exact, and the
complete list goes to a file in the session's spill folder (only when the
answer is cut, and only then is a file created). Names are computed with
string operations against the workspace's real path, once per file: a
``Path`` and a ``realpath`` per file were most of a broad search's own time.
"""

from __future__ import annotations

import contextlib
import os
from operator import itemgetter
from pathlib import Path
from typing import BinaryIO

from pseudoclaude.textsafe import NAME_QUOTING_NOTE, is_plain, quote_name
from pseudoclaude.tools.base import ToolContext, ToolOutput
from pseudoclaude.tools.grep_search import MAX_FILE_LINES, FileHits, Mode, Query, path_key
from pseudoclaude.tools.output import SPILL_LIMIT_BYTES
from pseudoclaude.tools.paths import display_path
from pseudoclaude.tools.shell import open_spill_file

MAX_FILES = 200
MAX_CONTENT_LINES = 300
LINE_LIMIT_CHARS = 500
KEEP_CHARS = 2 * 1024 * 1024
"""Entries held before the search stops counting: 2 MiB of text (about 50,000 names or lines), far past any inline
budget; reading 300,000 lines of ripgrep's JSON to the end cost 6 s."""
_FRAME_BYTES = 400


_File = tuple[str, int, tuple[str, ...], "tuple[bool, ...] | None"]
"""One file's result: its sort key (``path_key``), its matches, its lines as shown (content mode; a group after the
first starts with ``--``) or its one line, and which lines match (None: all do). A plain tuple: a ``NamedTuple``'s
``__new__`` per file showed in a broad search's profile."""


class Results:
    """Collects ``FileHits`` (``add``), then writes the answer (``output``)."""

    def __init__(self, ctx: ToolContext, mode: Mode, context: int) -> None:
        self._ctx = ctx
        self._mode = mode
        self._context = context
        self._limit = max(1_000, ctx.budget.inline_bytes - _FRAME_BYTES)
        real = os.path.realpath(ctx.workspace)
        self._prefix = real if real.endswith(os.sep) else real + os.sep
        self._kept: list[_File] = []
        self._chars = 0
        self.full = False
        """``KEEP_CHARS`` reached: the caller stops searching, and the counts are of what was read."""
        self.files = 0
        self.matches = 0
        self.notes: list[str] = []
        self.quoted_names = False
        self.spill_path: Path | None = None
        self._spill_error: str | None = None
        self._spill_full = False
        self._spilled = 0

    def notice(self, path: Path, why: str) -> None:
        """An ignore file the walk could not use (``walk.Notice``): the result says so."""
        self.notes.append(f"{display_path(self._ctx, path)}: {why}")

    def add(self, hits: FileHits) -> None:
        self._add(hits, False)

    def add_all(self, found: list[FileHits]) -> None:
        """``add`` each, in order, until ``full``; their names are checked for quoting all at once (one regex search
        per name was a tenth of a broad search's own time)."""
        joined = "/".join([hits.path for hits in found])
        plain = is_plain(joined) and '/"' not in joined
        if self._context:
            for hits in found:
                self._add(hits, plain)
                if self.full:
                    return
            return
        prefix, kept = self._prefix, self._kept
        size, chars, matches, before = len(prefix), self._chars, 0, len(kept)
        for hits in found:  # matches only, one group a file: ``_add`` in a plain loop
            path = hits.path
            shown = path[size:] if path.startswith(prefix) and len(path) > size else path
            if os.sep != "/" and shown is not path:
                shown = shown.replace(os.sep, "/")
            if not plain and not is_plain(shown):
                shown, self.quoted_names = quote_name(shown), True
            entries = tuple([
                f"{shown}:{number}:{text if len(text) <= LINE_LIMIT_CHARS and not text.endswith(chr(13)) else _clip(text)}"
                for number, text, _ in hits.lines
            ])  # fmt: skip
            kept.append((path.replace(os.sep, "\0"), hits.count, entries, None))  # ``path_key``, inlined
            chars += sum(map(len, entries)) + len(entries)
            matches += hits.count
            if chars >= KEEP_CHARS or hits.cut:
                self.full = True
                break
        self.files += len(kept) - before
        self._chars = chars
        self.matches += matches

    def add_names(self, found: list[tuple[str, int]]) -> None:
        """``add`` for files_with_matches and count, from ``(path, count)``: a file's one line made in a plain loop (a
        ``FileHits`` and an ``add`` per file cost most of a broad listing's own time)."""
        joined = "/".join([path for path, _ in found])
        plain = is_plain(joined) and '/"' not in joined
        prefix, kept, count_mode = self._prefix, self._kept, self._mode == "count"
        size, chars, matches, before = len(prefix), self._chars, 0, len(kept)
        for path, count in found:
            shown = path[size:] if path.startswith(prefix) and len(path) > size else path
            if os.sep != "/" and shown is not path:
                shown = shown.replace(os.sep, "/")
            if not plain and not is_plain(shown):
                shown, self.quoted_names = quote_name(shown), True
            entry = f"{shown}:{count}" if count_mode else shown
            kept.append((path.replace(os.sep, "\0"), count, (entry,), None))  # ``path_key``, inlined
            chars += len(entry) + 1
            matches += count
            if chars >= KEEP_CHARS:
                self.full = True
                break
        self.files += len(kept) - before
        self._chars = chars
        if count_mode:
            self.matches += matches

    def _add(self, hits: FileHits, plain: bool) -> None:
        self.files += 1
        path, prefix = hits.path, self._prefix
        if path.startswith(prefix) and len(path) > len(prefix):
            path = path[len(prefix) :]
            if os.sep != "/":
                path = path.replace(os.sep, "/")
        if plain or is_plain(path):
            shown = path
        else:
            shown, self.quoted_names = quote_name(path), True
        mode = self._mode
        if mode == "content":
            self.matches += hits.count
            entries, is_match = self._lines(shown, hits.lines)
            self._chars += sum(map(len, entries)) + len(entries)
        else:
            entries, is_match = (f"{shown}:{hits.count}" if mode == "count" else shown,), None
            if mode == "count":
                self.matches += hits.count
            self._chars += len(entries[0]) + 1
        self._kept.append((path_key(hits.path), hits.count, entries, is_match))
        self.full = self._chars >= KEEP_CHARS or hits.cut

    def _lines(self, shown: str, lines: list[tuple[int, str, bool]]) -> tuple[tuple[str, ...], tuple[bool, ...] | None]:
        """A file's entries: ``name:number:text`` for a match, ``name-number-text`` around one, ``--`` between groups."""
        if not self._context:  # matches only, one group
            return tuple([
                f"{shown}:{number}:{text if len(text) <= LINE_LIMIT_CHARS and not text.endswith(chr(13)) else _clip(text)}"
                for number, text, _ in lines
            ]), None  # fmt: skip
        entries: list[str] = []
        previous: int | None = None
        for number, text, is_match in lines:
            sep = ":" if is_match else "-"
            entry = f"{shown}{sep}{number}{sep}{_clip(text)}"
            if previous is not None and number != previous + 1:
                entry = "--\n" + entry
            previous = number
            entries.append(entry)
        return tuple(entries), tuple([line[2] for line in lines])

    def output(self, query: Query, where: str) -> ToolOutput:
        display = {"files": self.files, "matches": self.matches, "mode": self._mode}
        notes = "".join(f"(note: {note})\n" for note in dict.fromkeys(self.notes))
        if not self.files:
            text = f"No matches for {query.pattern!r} in {where}." + (f"\n{notes}" if notes else "")
            return ToolOutput(text, summary=f"grep {query.pattern}: no matches", display=display)
        ordered = sorted(self._kept, key=itemgetter(0))
        self._kept = []
        out, rest, shown_files, shown_matches = self._shown(ordered)
        cut = bool(rest)
        if cut:
            self._save([*out, *rest])
        plural = "s" if self.files != 1 else ""
        least = "at least " if self.full else ""
        if self._mode == "files_with_matches":
            header = f"{least}{self.files} file{plural} match {query.pattern!r}:"
        else:
            header = f"{least}{self.matches} matching line{'s' if self.matches != 1 else ''} in {self.files} file{plural}:"
        body = "\n".join([header[0].upper() + header[1:], *out]) + "\n"
        hidden_files = self.files - shown_files
        if cut:
            if self._mode == "content":
                body += f"… {self.matches - shown_matches} more matching lines ({hidden_files} more files) not shown; narrow the pattern, path or glob"
            else:
                body += f"… {hidden_files} more files not shown; narrow the pattern, path or glob"
            body += f"; {self._where_complete()}\n"
        if self.full:
            body += (
                f"(note: the search stopped counting after {self.files} files, at {KEEP_CHARS >> 20} MiB of results or "
                f"{MAX_FILE_LINES:,} lines of one file; what is shown is the first by path of what was read)\n"
            )
        if self.quoted_names:
            body += f"(note: {NAME_QUOTING_NOTE})\n"
        body += notes
        found = f"{self.files} file{plural}" if self._mode == "files_with_matches" else f"{self.matches} lines in {self.files} file{plural}"
        path = str(self.spill_path) if cut and self.spill_path is not None else None
        return ToolOutput(body, summary=f"grep {query.pattern}: {least}{found}", display=display, shaped=cut, full_output=path)

    def _shown(self, ordered: list[_File]) -> tuple[list[str], list[str], int, int]:
        """What fits (``MAX_FILES`` / ``MAX_CONTENT_LINES`` and the inline budget), what does not, files and matches shown."""
        out: list[str] = []
        rest: list[str] = []
        used = shown_files = shown_matches = 0
        cap = MAX_CONTENT_LINES if self._mode == "content" else MAX_FILES
        for position, (_, matches, entries, is_match) in enumerate(ordered):
            if rest:  # the rest goes to the spill file whole
                for _, _, later, _ in ordered[position:]:
                    if self._context and later:
                        rest.append("--\n" + later[0])
                        rest.extend(later[1:])
                    else:
                        rest.extend(later)
                break
            shown_here = 0
            for index, entry in enumerate(entries):
                if index == 0 and self._context and (out or rest):
                    entry = "--\n" + entry
                if not rest:
                    size = len(entry.encode("utf-8")) + 1
                    if len(out) < cap and used + size <= self._limit:
                        out.append(entry)
                        used += size
                        shown_here += 1 if is_match is None else is_match[index]
                        continue
                rest.append(entry)
            if self._mode != "content":
                shown_here = matches if shown_here else 0
            shown_files += shown_here > 0
            shown_matches += shown_here
        return out, rest, shown_files, shown_matches

    def _save(self, entries: list[str]) -> None:
        """The complete list in the session's spill folder (up to ``SPILL_LIMIT_BYTES``)."""
        if self._ctx.spill_dir is None:
            self._spill_error = "the complete list was not saved (this session keeps no files)"
            return
        spill: BinaryIO | None = None
        try:
            self.spill_path, spill = open_spill_file(self._ctx.spill_dir, "grep")
            with spill:
                whole = "\n".join(entries).encode("utf-8", errors="replace") + b"\n"
                if len(whole) <= SPILL_LIMIT_BYTES:
                    spill.write(whole)
                    self._spilled = len(whole)
                    return
                for entry in entries:
                    encoded = (entry + "\n").encode("utf-8", errors="replace")
                    if self._spilled + len(encoded) > SPILL_LIMIT_BYTES:
                        self._spill_full = True
                        continue
                    spill.write(encoded)
                    self._spilled += len(encoded)
        except OSError as error:
            if self.spill_path is not None:
                with contextlib.suppress(OSError):
                    self.spill_path.unlink()
            self.spill_path = None
            self._spill_error = f"the complete list could not be saved: {error.strerror or error}"

    def _where_complete(self) -> str:
        if self.spill_path is None:
            return self._spill_error or "the complete list was not saved"
        if self._spill_full:
            return f"only the first {self._spilled:,} bytes of the complete list ({SPILL_LIMIT_BYTES // (1024 * 1024)} MiB disk cap) are in {self.spill_path}"
        return f"the complete list is in {self.spill_path}"


def _clip(text: str) -> str:
    """A line as shown: no carriage return at its end, cut at ``LINE_LIMIT_CHARS``."""
    if text.endswith("\r"):
        text = text.rstrip("\r")
    return text if len(text) <= LINE_LIMIT_CHARS else text[:LINE_LIMIT_CHARS] + " … [line cut]"
