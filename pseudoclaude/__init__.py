"""PseudoClaude: a terminal coding agent built around context governance."""

__version__ = "0.1.0"

__all__ = ["__version__"]
