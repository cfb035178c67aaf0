"""Reading the pinned block's grouped file list in tests: does it name a path?"""

from __future__ import annotations

import posixpath
import re


def names_path(text: str, path: str) -> bool:
    """Whether ``text`` lists ``path`` on its directory's line: ``- src/shop/: cart.py (edited), tax.py (read 1-80 of 90)``
    or, brief, ``- src/shop/: edited cart.py; read tax.py, util.py``."""
    folder, base = posixpath.split(path)
    shown = f"{folder}/" if folder else "./"
    entry = re.compile(rf"(?:: |, |; |(?:edited|read|searched|listed) ){re.escape(base)}/?(?= \(|,|;|$)")
    return any(line.startswith(f"- {shown}: ") and entry.search(line) is not None for line in text.splitlines())
