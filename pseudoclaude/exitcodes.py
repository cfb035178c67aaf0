"""The process exit codes, in one place: every command and the REPL return one of these.

2 is for configuration and usage problems (an unusable working folder too), 1
for a run that did not finish, 3 for a run whose session could not be saved
(disk full, read-only: what followed the failure cannot be resumed), 130 for
Ctrl-C, and 128 + N for a termination signal N (the shell convention).
"""

from __future__ import annotations

import signal

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NOT_SAVED = 3
EXIT_INTERRUPTED = 130  # 128 + SIGINT


def exit_code_for_signal(signum: int | None) -> int:
    """128 + the signal number (SIGTERM when it is not known)."""
    return 128 + (signum if signum is not None else signal.SIGTERM)
