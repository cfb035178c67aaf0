"""A seccomp filter that refuses new unix-domain sockets inside the sandbox.

A read-only mount does not stop ``connect()`` to a unix socket, and
``--unshare-net`` hides only the abstract ones: a command could still talk to
``/run/docker.sock``, systemd's private socket or the system bus, any of
which runs programs outside the sandbox for root. So ``socket(AF_UNIX, ...)``
fails with EPERM; ``socketpair()`` (no path, used by asyncio and
multiprocessing) still works. On another architecture than the filter's, or
under the x32 ABI (a way around the syscall number), every syscall fails.

bwrap reads the filter from a file descriptor (``--seccomp 9``). The program
lives in a sealed memfd of this process, and the launcher opens it as
``/proc/<our pid>/fd/<n>``: a confined command cannot see our pid (its own PID
namespace), and no one can rewrite a sealed memfd.
"""

from __future__ import annotations

import functools
import os
import platform
import struct

_ARCHES = {"x86_64": (0xC000003E, 41), "aarch64": (0xC00000B7, 198), "arm64": (0xC00000B7, 198)}
_LD_ABS, _JEQ, _JGE, _RET = 0x20, 0x15, 0x35, 0x06
_ALLOW, _EPERM = 0x7FFF0000, 0x00050000 | 1
_X32_BIT = 0x40000000
_AF_UNIX = 1


def program(machine: str | None = None) -> bytes | None:
    """The BPF program for ``machine`` (this one by default); None where we have no syscall table for it."""
    arch = _ARCHES.get(machine or platform.machine())
    if arch is None:
        return None
    audit_arch, socket_nr = arch
    steps = [
        (_LD_ABS, 0, 0, 4),
        (_JEQ, 1, 0, audit_arch),
        (_RET, 0, 0, _EPERM),
        (_LD_ABS, 0, 0, 0),
        (_JGE, 4, 0, _X32_BIT),
        (_JEQ, 0, 2, socket_nr),
        (_LD_ABS, 0, 0, 16),
        (_JEQ, 1, 0, _AF_UNIX),
        (_RET, 0, 0, _ALLOW),
        (_RET, 0, 0, _EPERM),
    ]
    return b"".join(struct.pack("=HBBI", *step) for step in steps)


@functools.lru_cache(maxsize=1)
def filter_path() -> str | None:
    """``/proc/<pid>/fd/<n>`` of a sealed memfd holding the program (made once per process); None when unsupported."""
    code = program()
    if code is None or not hasattr(os, "memfd_create"):
        return None
    import fcntl

    try:
        fd = os.memfd_create("pseudoclaude-seccomp", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        os.write(fd, code)
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SEAL)
    except OSError:
        return None
    return f"/proc/{os.getpid()}/fd/{fd}"
