"""The process's entry point (``python -m pseudoclaude`` and the ``pseudoclaude`` command).

Signals are ours before anything heavy loads (``interrupts``): a Ctrl-C while
the CLI is still importing is said and exits 130 like one at any later moment.
"""

from __future__ import annotations

import sys

from pseudoclaude.interrupts import Interrupted, leave, unwind_on_signals


def main() -> None:
    unwind_on_signals()
    try:
        from pseudoclaude.cli import main as run_cli

        run_cli()
    except Interrupted as stop:
        sys.stderr.write(f"pseudoclaude: {stop.describe()}\n")
        leave(stop.exit_code)


if __name__ == "__main__":
    main()
