"""The terminal interface: the interactive REPL, and the printers of the headless and sessions commands.

Only ``run_repl`` is imported here (it imports nothing heavy); Rich and
prompt-toolkit load when the REPL starts.
"""

from pseudoclaude.tui.repl import run_repl

__all__ = ["run_repl"]
