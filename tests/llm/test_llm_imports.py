"""No import circle inside ``pseudoclaude.llm``, counting the imports inside functions too.

A lazy import only postpones a circle to the first call, where a partly
initialized module (or the warm-up thread's import lock, ``providers.py``)
turns it into a bug. Read from the source with ``ast`` as ``tests/test_architecture.py``
does; imports under ``if TYPE_CHECKING:`` are left out (they never run).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.test_architecture import MODULES, find_cycle, Import, _is_type_checking

PACKAGE = "pseudoclaude.llm"


def _running_imports(importer: str, node: ast.AST) -> list[Import]:
    """Every pseudoclaude import under ``node`` that runs at some point (module level or in a function)."""
    if isinstance(node, ast.If) and _is_type_checking(node.test):
        return [i for child in node.orelse for i in _running_imports(importer, child)]
    if isinstance(node, ast.Import):
        return [Import(importer, a.name, node.lineno, True) for a in node.names if a.name.startswith("pseudoclaude")]
    if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pseudoclaude"):
        found = []
        for alias in node.names:
            submodule = f"{node.module}.{alias.name}"
            found.append(Import(importer, submodule if submodule in MODULES else str(node.module), node.lineno, True))
        return found
    return [i for child in ast.iter_child_nodes(node) for i in _running_imports(importer, child)]


def llm_imports(source: dict[str, Path] = MODULES) -> list[Import]:
    return [
        imp
        for module, path in source.items()
        if module.startswith(PACKAGE + ".")
        for imp in _running_imports(module, ast.parse(path.read_text(), filename=str(path)))
        if imp.target.startswith(PACKAGE + ".")
    ]


def test_the_scan_counts_imports_inside_functions() -> None:
    imports = llm_imports()
    assert any(imp.importer == "pseudoclaude.llm.anthropic" and imp.target == "pseudoclaude.llm.providers" for imp in imports)
    tree = ast.parse("def f():\n    from pseudoclaude.llm import providers\n")
    assert [imp.target for imp in _running_imports("pseudoclaude.llm.x", tree)] == ["pseudoclaude.llm.providers"]
    guarded = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pseudoclaude.llm import providers\n")
    assert _running_imports("pseudoclaude.llm.x", guarded) == []


def test_no_import_circle_in_llm_lazy_imports_included() -> None:
    assert find_cycle(llm_imports()) == []


def test_a_lazy_circle_is_caught() -> None:
    table, adapter = "pseudoclaude.llm.providers", "pseudoclaude.llm.anthropic"
    lazy = ast.parse(f"def factory():\n    from {adapter} import build\n")
    imports = [*_running_imports(table, lazy), Import(adapter, table, 1, True)]
    assert find_cycle(imports) == [adapter, table, adapter]
