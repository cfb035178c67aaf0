"""What a server said of the window it runs: the value ``probe`` finds and ``probe_cache`` remembers.

Its own module so that the cache, which ``probe`` uses, need not import ``probe`` back.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WindowProbe:
    """What a server said: the window it runs (``tokens``), where that came from, and what it said besides.

    ``notice``: one line the user should read once (how to raise Ollama's window);
    ``tools``: whether the server says the model takes tools (None: it does not say).
    """

    tokens: int
    source: str
    notice: str | None = None
    tools: bool | None = None
    server: str = ""
