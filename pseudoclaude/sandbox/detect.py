"""Which sandbox this machine can give, and why not when it cannot.

bubblewrap is used when ``bwrap`` is on ``PATH`` and one probe run works (a
kernel without unprivileged user namespaces, a container without the right,
an AppArmor profile: all show up as a failed probe, with bwrap's own words as
the reason); ``sandbox-exec`` (Seatbelt) on macOS. The probe runs once per
process: its answer does not change while we run.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

from pseudoclaude.interrupts import run_probe
from pseudoclaude.sandbox.seam import CommandSandbox, SandboxConfig, SandboxStatus

PROBE_TIMEOUT_S = 10.0


def detect_sandbox(config: SandboxConfig, workspace: Path, *, home: Path | None = None) -> tuple[CommandSandbox | None, SandboxStatus]:
    """The sandbox for ``config`` on this machine, with its status; None and the reason when there is none
    (``mode: off`` is the user's choice and gives None)."""
    if config.mode == "off":
        return None, SandboxStatus("none", "off", config.network, False, "off (--sandbox off or the sandbox setting): commands run unconfined")
    if sys.platform == "darwin":
        from pseudoclaude.sandbox.seatbelt import SeatbeltSandbox

        if shutil.which("sandbox-exec") is None:
            return None, SandboxStatus("none", config.mode, config.network, False, "sandbox-exec is not on PATH")
        seatbelt = SeatbeltSandbox(config, workspace, home=home)
        return seatbelt, seatbelt.status
    if not sys.platform.startswith("linux"):
        return None, SandboxStatus("none", config.mode, config.network, False, f"no sandbox for {sys.platform}")
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return None, SandboxStatus("none", config.mode, config.network, False, "bubblewrap (bwrap) is not installed: install the bubblewrap package")
    problem = probe(bwrap)
    if problem:
        return None, SandboxStatus("none", config.mode, config.network, False, f"bubblewrap does not work here: {problem}")
    from pseudoclaude.sandbox.bwrap import BubblewrapSandbox

    sandbox = BubblewrapSandbox(config, workspace, bwrap=bwrap, home=home)
    return sandbox, sandbox.status


@functools.lru_cache(maxsize=4)
def probe(bwrap: str) -> str:
    """Empty when a bwrap with the namespaces we use runs ``true``; else its first line of complaint.

    It runs before a session's command environment exists, so with PATH alone: no secret reaches it."""
    argv = [
        bwrap,
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-net",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--",
        "true",
    ]
    try:
        done = run_probe(argv, stdin=subprocess.DEVNULL, timeout=PROBE_TIMEOUT_S, env={"PATH": os.environ.get("PATH", os.defpath)})
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error)
    if done.returncode == 0:
        return ""
    lines = (done.stderr or done.stdout).strip().splitlines()
    return lines[0] if lines else f"exit code {done.returncode}"
