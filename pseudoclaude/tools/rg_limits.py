"""Running ripgrep on hostile content: a memory cap, and a watch that stops it when it is stuck.

ripgrep reads the repository's ``.gitignore`` files itself, and opens them as
they are: a FIFO blocks it forever, a 2 GB file (or a link to ``/dev/zero``)
is read whole into memory (measured: 4.8 GB in 10 s, and ``--sort path``
makes the whole search wait). So the tools that run it (``grep``, ``glob``)
cap its address space (``limit_rg_memory``: it aborts instead of growing,
0.3 s on ``/dev/zero``) and watch it for a stall (``RgProgress``: not a byte
read while we wait for its output), and either way fall back to
the Python walk, which opens an ignore file only when it is regular and reads
its first MiB. Hitting either limit costs time, never results.
"""

from __future__ import annotations

import os

try:
    import resource
except ImportError:  # Windows: no rlimits
    resource = None  # type: ignore[assignment]

RG_MEMORY_BYTES = 512 * 1024 * 1024
"""ripgrep's address-space cap. Its own need is small (a 60 MB one-line file peaks at 146 MB RSS with ``--json``);
a hostile ignore file passes it within a second."""
RG_STALL_S = 2.0
"""ripgrep this long without output and without reading a byte: it is stuck (a FIFO ``.gitignore``). Our reading
counts as its activity, so a ripgrep waiting for us to drain its output is never taken for a stalled one."""
POLL_S = 0.25


def _cap(hard: int) -> int:
    return RG_MEMORY_BYTES if hard == resource.RLIM_INFINITY else min(hard, RG_MEMORY_BYTES)


def limit_rg_memory() -> None:
    """``preexec_fn`` for a ripgrep child where ``prlimit`` is missing (macOS): cap its address space at
    ``RG_MEMORY_BYTES`` (a lower hard limit stays).

    Only ``getrlimit``/``setrlimit`` run between fork and exec: no lock is
    taken, which is what keeps a ``preexec_fn`` safe in a threaded process.
    """
    if resource is None:
        return
    try:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (_cap(hard), hard))
    except (OSError, ValueError):
        pass


_PRLIMIT = getattr(resource, "prlimit", None) if resource is not None else None
PREEXEC = limit_rg_memory if os.name != "nt" and _PRLIMIT is None else None
"""A ``preexec_fn`` only where the cap cannot be set from outside: any ``preexec_fn`` makes ``subprocess`` fork
instead of ``vfork``, which copies our page tables (measured: 24 ms to start ``rg`` from an 83 MB process, against
0.2 ms)."""


def limit_started(pid: int) -> None:
    """Cap a just-started ripgrep's address space from outside (Linux ``prlimit``); no-op where ``PREEXEC`` does it.

    It runs as soon as the spawn returns, while ripgrep is still starting up
    (it reads no ignore file before parsing its arguments); a child that
    already grew past the cap keeps what it has and fails its next allocation,
    so a hostile ignore file is still stopped within a block.
    """
    if _PRLIMIT is None:
        return
    try:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        _PRLIMIT(pid, resource.RLIMIT_AS, (_cap(hard), hard))
    except (OSError, ValueError):
        pass


class RgProgress:
    """Whether a child process read anything since the last look: its read calls and bytes, from ``/proc`` (Linux).

    A ripgrep blocked opening a FIFO reads nothing; one that is searching
    reads all the time. CPU time is no sign: the parallel walker of
    ``rg --files`` spins while one of its threads is blocked. ``moved()`` is
    None where ``/proc`` cannot tell (macOS): the caller then falls back on
    silence alone, or on its overall timeout.
    """

    def __init__(self, pid: int) -> None:
        self._pid = pid
        self._last = self._sample()

    def _sample(self) -> tuple[bytes, ...] | None:
        try:
            with open(f"/proc/{self._pid}/io", "rb") as f:
                return tuple(line for line in f.read().splitlines() if line.startswith((b"rchar", b"syscr")))
        except OSError:
            return None

    def moved(self) -> bool | None:
        now = self._sample()
        if now is None or self._last is None:
            return None
        moved, self._last = now != self._last, now
        return moved
