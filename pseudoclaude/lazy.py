"""Lazy names for the package faces.

A face (a package's ``__init__``) is the package's API, and it must stay
cheap to import: the REPL paints before the runner, Rich or an SDK loads.
Heavy names are listed with the submodule that defines them and loaded on
first use by the module-level ``__getattr__`` this builds; the face imports
them under ``TYPE_CHECKING`` too, so mypy sees every name and a misspelt one
stays an error.
"""

from __future__ import annotations

import importlib
import sys
from typing import Callable, Mapping


def lazy_getattr(package: str, names: Mapping[str, str]) -> Callable[[str], object]:
    """A ``__getattr__`` for ``package`` that imports ``package.<names[name]>`` on first use and keeps the value."""

    def __getattr__(name: str) -> object:
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{names[name]}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
