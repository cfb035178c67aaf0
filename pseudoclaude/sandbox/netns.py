"""One network namespace for all the commands of a session, with nothing in it but loopback.

With ``--unshare-net`` per command, a dev server started in the background
listens on a loopback no later command can reach. So, with the network off,
the sandbox keeps one namespace for the session: a holder (``bwrap
--unshare-net ... sleep``, killed with us by ``--die-with-parent``) owns it,
and each command enters it with ``nsenter --net`` before bubblewrap builds the
rest. The commands reach each other's servers; nothing reaches outside.

Entering another process's network namespace takes ``CAP_SYS_ADMIN`` over it,
which root has; for anyone else (an unprivileged bubblewrap puts the
namespace in a user namespace of its own), and where ``nsenter`` is missing,
each command gets its own namespace as before (``path`` is None).
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import threading
import weakref
from pathlib import Path

HOLD_TIMEOUT_S = 5.0


class SharedNetwork:
    """The session's network namespace, started on first use and again should its holder die."""

    def __init__(self, bwrap: str) -> None:
        self.bwrap = bwrap
        self._holder: subprocess.Popen[bytes] | None = None
        self._path: str | None = None
        self._lock = threading.Lock()
        self._unavailable = os.geteuid() != 0 or shutil.which("nsenter") is None

    def enter(self) -> tuple[str, ...]:
        """The argv prefix that runs the rest in the shared namespace; empty when there is none (see the module docstring)."""
        path = self.path()
        return (shutil.which("nsenter") or "nsenter", f"--net={path}", "--") if path is not None else ()

    def path(self) -> str | None:
        if self._unavailable:
            return None
        with self._lock:
            if self._path is None or self._holder is None or self._holder.poll() is not None or not os.path.exists(self._path):
                self._path = self._start()
                self._unavailable = self._path is None
            return self._path

    def close(self) -> None:
        if self._holder is not None:
            _stop(self._holder)

    def _start(self) -> str | None:
        self.close()
        read, write = os.pipe()
        argv = [
            self.bwrap,
            "--ro-bind",
            "/",
            "/",
            "--unshare-net",
            "--die-with-parent",
            "--cap-drop",
            "ALL",
            "--info-fd",
            str(write),
            "--",
            "sleep",
            "infinity",
        ]
        try:
            self._holder = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=(write,), start_new_session=True
            )
            weakref.finalize(self, _stop, self._holder)
        except OSError:
            os.close(read)
            return None
        finally:
            os.close(write)
        text = b""
        try:
            while b"}" not in text and len(text) < 4096 and select.select([read], [], [], HOLD_TIMEOUT_S)[0]:
                chunk = os.read(read, 4096)
                if not chunk:
                    break
                text += chunk
        finally:
            os.close(read)
        try:
            child = int(json.loads(text)["child-pid"])
        except (ValueError, KeyError, TypeError):
            self.close()
            return None
        path = f"/proc/{child}/ns/net"
        return path if Path(path).exists() else None


def _stop(holder: subprocess.Popen[bytes]) -> None:
    """Kill the holder's process group (bwrap and its ``sleep``) and reap it."""
    if holder.poll() is None:
        try:
            os.killpg(holder.pid, signal.SIGKILL)
        except OSError:
            holder.kill()
        holder.wait()
