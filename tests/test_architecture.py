"""The package structure is pinned: the dependency direction, imports through the package faces, no import cycle.

Read from the source with ``ast`` (nothing is imported). A unit is a package
(``pseudoclaude.agent``; ``pseudoclaude.tools.permissions`` counts as its own)
or a top-level module (``pseudoclaude.cli``). The rules:

* **Direction.** cli -> commands -> tui | headless -> agent -> compact | tools.permissions | session -> tools -> sandbox | imaging -> llm,
  as the table ``MAY_IMPORT`` says (mcp_client sits beside compact, above tools); compact, tools and session do not import
  each other. ``config``, ``exitcodes``, ``interrupts`` (signals, the quick exit), ``textsafe`` (showing untrusted text), ``redaction`` (masking the user's secrets) and the root
  package (``__version__``) may be imported by all. Every import counts, lazy ones inside functions too.
* **Faces.** A module of one unit imports another unit through its face
  (``from pseudoclaude.llm import Message``), never through a submodule
  (``pseudoclaude.llm.messages``): the ``__init__``'s ``__all__`` is the contract.
* **No cycle** between modules at module level, and none inside a package
  when every import counts: inside functions and under ``if TYPE_CHECKING:``
  too (a lazy or a type-only import that closes a circle only hides it: the
  two modules still cannot be read, or moved, one without the other; a
  package face's lazy names are its ``TYPE_CHECKING`` imports).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

SOURCE = Path(__file__).resolve().parent.parent / "pseudoclaude"

PACKAGES = (
    "pseudoclaude.acp",
    "pseudoclaude.agent",
    "pseudoclaude.config",
    "pseudoclaude.headless",
    "pseudoclaude.sandbox",
    "pseudoclaude.compact",
    "pseudoclaude.llm",
    "pseudoclaude.mcp_client",
    "pseudoclaude.session",
    "pseudoclaude.tools.permissions",
    "pseudoclaude.tools",
    "pseudoclaude.tui",
)

IMPORTABLE_BY_ALL = {
    "pseudoclaude",
    "pseudoclaude.config",
    "pseudoclaude.exitcodes",
    "pseudoclaude.interrupts",
    "pseudoclaude.lazy",
    "pseudoclaude.trust",
    "pseudoclaude.textsafe",
    "pseudoclaude.redaction",
}
# These import only what MAY_IMPORT lists (llm is the bottom; config and exitcodes are imported by all).
FOUNDATION = {"pseudoclaude.llm", *IMPORTABLE_BY_ALL}

_BELOW_AGENT = {
    "pseudoclaude.sandbox",
    "pseudoclaude.imaging",
    "pseudoclaude.mcp_client",
    "pseudoclaude.compact",
    "pseudoclaude.session",
    "pseudoclaude.tools.permissions",
    "pseudoclaude.tools",
    "pseudoclaude.llm",
}
MAY_IMPORT: dict[str, set[str]] = {
    "pseudoclaude.__main__": {"pseudoclaude.cli"},
    "pseudoclaude.cli": {
        "pseudoclaude.acp",
        "pseudoclaude.commands",
        "pseudoclaude.subcommands",
        "pseudoclaude.headless",
        "pseudoclaude.tui",
        "pseudoclaude.agent",
        "pseudoclaude.first_run",
        *_BELOW_AGENT,
    },
    "pseudoclaude.subcommands": {"pseudoclaude.acp", "pseudoclaude.commands", "pseudoclaude.doctor"},
    "pseudoclaude.doctor": {"pseudoclaude.llm", "pseudoclaude.sandbox"},
    "pseudoclaude.first_run": {"pseudoclaude.llm"},
    "pseudoclaude.commands": {"pseudoclaude.headless", "pseudoclaude.tui", "pseudoclaude.agent", *_BELOW_AGENT},
    "pseudoclaude.tui": {"pseudoclaude.agent", *_BELOW_AGENT},
    "pseudoclaude.headless": {"pseudoclaude.agent", *_BELOW_AGENT},
    "pseudoclaude.acp": {"pseudoclaude.agent", *_BELOW_AGENT},
    "pseudoclaude.agent": _BELOW_AGENT,
    "pseudoclaude.compact": {"pseudoclaude.llm"},
    "pseudoclaude.session": {"pseudoclaude.llm"},
    "pseudoclaude.mcp_client": {"pseudoclaude.tools", "pseudoclaude.imaging", "pseudoclaude.llm"},
    "pseudoclaude.tools.permissions": {"pseudoclaude.tools", "pseudoclaude.sandbox", "pseudoclaude.imaging", "pseudoclaude.llm"},
    "pseudoclaude.tools": {"pseudoclaude.sandbox", "pseudoclaude.imaging", "pseudoclaude.llm"},
    "pseudoclaude.sandbox": set(),
    "pseudoclaude.imaging": {"pseudoclaude.llm"},
    "pseudoclaude.llm": set(),
    "pseudoclaude.config": {"pseudoclaude.llm", "pseudoclaude.trust", "pseudoclaude.sandbox", "pseudoclaude.interrupts"},
    "pseudoclaude.trust": set(),
    "pseudoclaude.exitcodes": set(),
    "pseudoclaude.interrupts": {"pseudoclaude.exitcodes"},
    "pseudoclaude.lazy": set(),
    "pseudoclaude.textsafe": set(),
    "pseudoclaude.redaction": set(),
    "pseudoclaude": set(),
}

# Imports allowed to break a rule, each with its reason. Keep it empty if you can.
ALLOWED_EXCEPTIONS: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Import:
    importer: str  # module name, e.g. "pseudoclaude.tui.repl"
    target: str  # module imported, submodules resolved: "from pseudoclaude.agent import events" -> "pseudoclaude.agent.events"
    line: int
    top_level: bool  # runs when the importer is imported (not in a function, not under TYPE_CHECKING)
    typing_only: bool = False  # under ``if TYPE_CHECKING:``: never runs


def module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(SOURCE.rglob("*.py"))}


def unit_of(module: str) -> str:
    for package in PACKAGES:
        if module == package or module.startswith(package + "."):
            return package
    return module


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports_in(importer: str, node: ast.AST, top_level: bool, typing_only: bool = False) -> list[Import]:
    """Every pseudoclaude import under ``node``; ``top_level`` turns False inside a function or a TYPE_CHECKING block."""
    if isinstance(node, ast.Import):
        return [Import(importer, a.name, node.lineno, top_level, typing_only) for a in node.names if a.name.startswith("pseudoclaude")]
    if isinstance(node, ast.ImportFrom):
        assert node.level == 0, f"{importer}:{node.lineno}: relative import; spell the module out"
        if not (node.module or "").startswith("pseudoclaude"):
            return []
        found = []
        for alias in node.names:
            submodule = f"{node.module}.{alias.name}"
            found.append(Import(importer, submodule if submodule in MODULES else str(node.module), node.lineno, top_level, typing_only))
        return found
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        top_level = False
    if isinstance(node, ast.If) and _is_type_checking(node.test):
        return [i for child in node.body for i in _imports_in(importer, child, False, True)] + [
            i for child in node.orelse for i in _imports_in(importer, child, top_level, typing_only)
        ]
    return [i for child in ast.iter_child_nodes(node) for i in _imports_in(importer, child, top_level, typing_only)]


def all_imports() -> list[Import]:
    return [imp for module, path in MODULES.items() for imp in _imports_in(module, ast.parse(path.read_text(), filename=str(path)), True)]


IMPORTS = all_imports()


def _cross_unit(imp: Import) -> bool:
    return unit_of(imp.importer) != unit_of(imp.target) and (imp.importer, imp.target) not in ALLOWED_EXCEPTIONS


def direction_violations(imports: list[Import]) -> list[str]:
    bad = []
    for imp in filter(_cross_unit, imports):
        source, target = unit_of(imp.importer), unit_of(imp.target)
        allowed = MAY_IMPORT[source] | (set() if source in FOUNDATION else IMPORTABLE_BY_ALL)
        if target not in allowed:
            bad.append(f"{imp.importer}:{imp.line} imports {imp.target} ({source} may not import {target})")
    return bad


def face_violations(imports: list[Import]) -> list[str]:
    return [
        f"{imp.importer}:{imp.line} imports {imp.target}; import from its face {unit_of(imp.target)}"
        for imp in filter(_cross_unit, imports)
        if unit_of(imp.target) in PACKAGES and imp.target != unit_of(imp.target)
    ]


def find_cycle(imports: list[Import], *, lazy: bool = False) -> list[str]:
    """A cycle of module-level imports; with ``lazy``, of every import within one unit (in functions, type-only too)."""
    graph: dict[str, set[str]] = {}
    for imp in imports:
        counted = unit_of(imp.importer) == unit_of(imp.target) if lazy else imp.top_level
        if counted and imp.target in MODULES and imp.target != imp.importer:
            graph.setdefault(imp.importer, set()).add(imp.target)
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(module: str) -> list[str]:
        state[module] = 1
        stack.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                return [*stack[stack.index(target) :], target]
            if target not in state and (cycle := visit(target)):
                return cycle
        stack.pop()
        state[module] = 2
        return []

    for module in sorted(graph):
        if module not in state and (cycle := visit(module)):
            return cycle
    return []


def test_every_module_has_a_place_in_the_direction_table() -> None:
    assert {unit_of(module) for module in MODULES} <= set(MAY_IMPORT)


def test_the_scan_sees_imports_at_every_depth() -> None:
    lazy = [i for i in IMPORTS if i.importer == "pseudoclaude.cli" and not i.top_level]
    assert any(i.target == "pseudoclaude.commands" for i in lazy)
    assert any(i.target == "pseudoclaude.exitcodes" and i.top_level for i in IMPORTS if i.importer == "pseudoclaude.cli")


def test_the_dependency_direction_holds() -> None:
    assert direction_violations(IMPORTS) == []


def test_packages_are_imported_through_their_faces() -> None:
    assert face_violations(IMPORTS) == []


def test_no_import_cycle_between_modules() -> None:
    assert find_cycle(IMPORTS) == []


# Packages whose lazy circles are still open, each with its issue. Keep it empty if you can.
LAZY_CYCLE_EXEMPT: dict[str, str] = {}


@pytest.mark.parametrize("package", sorted({unit_of(module) for module in MODULES}))
def test_no_import_cycle_inside_a_package_even_through_lazy_or_type_only_imports(package: str) -> None:
    if package in LAZY_CYCLE_EXEMPT:
        pytest.skip(LAZY_CYCLE_EXEMPT[package])
    assert find_cycle([i for i in IMPORTS if unit_of(i.importer) == package], lazy=True) == []


@pytest.mark.parametrize(
    ("importer", "target", "rule"),
    [
        ("pseudoclaude.llm.messages", "pseudoclaude.session", direction_violations),
        ("pseudoclaude.compact.manage", "pseudoclaude.tools", direction_violations),
        ("pseudoclaude.tools.base", "pseudoclaude.tools.permissions", direction_violations),
        ("pseudoclaude.session.store", "pseudoclaude.agent", direction_violations),
        ("pseudoclaude.config", "pseudoclaude.session", direction_violations),
        ("pseudoclaude.llm.retry", "pseudoclaude.config", direction_violations),
        ("pseudoclaude.exitcodes", "pseudoclaude.tui", direction_violations),
        ("pseudoclaude.tui.repl", "pseudoclaude.agent.runner", face_violations),
        ("pseudoclaude.headless.stream", "pseudoclaude.tui", direction_violations),
        ("pseudoclaude.tui.repl", "pseudoclaude.headless", direction_violations),
    ],
)
def test_the_rules_catch_a_violation(importer: str, target: str, rule: Callable[[list[Import]], list[str]]) -> None:
    assert rule([Import(importer, target, 1, False)]) != []


def test_a_cycle_is_caught() -> None:
    a, b = "pseudoclaude.llm.errors", "pseudoclaude.llm.retry"
    assert find_cycle([Import(a, b, 1, True), Import(b, a, 1, True)]) == [a, b, a]
    assert find_cycle([Import(a, b, 1, True), Import(b, a, 1, False)]) == []
    assert find_cycle([Import(a, b, 1, True), Import(b, a, 1, False)], lazy=True) == [a, b, a]
    assert find_cycle([Import(a, b, 1, True), Import(b, a, 1, False, typing_only=True)], lazy=True) == [a, b, a]


def test_the_terminal_shows_views_and_runs_nothing_of_compact() -> None:
    """``tui`` reads what the agent's frozen views carry (``AgentStatus.read_page_bytes``), never ``compact`` itself."""
    reached = [
        f"{i.importer}:{i.line}"
        for i in IMPORTS
        if unit_of(i.importer) == "pseudoclaude.tui" and unit_of(i.target) == "pseudoclaude.compact" and not i.typing_only
    ]
    assert reached == []


def test_every_function_of_the_runner_fits_on_a_screen() -> None:
    """The loop reads top to bottom (issue 10): no function in ``agent/runner.py`` over 50 lines."""
    tree = ast.parse((SOURCE / "agent" / "runner.py").read_text(encoding="utf-8"))
    long = [
        f"{node.name}: {node.end_lineno - node.lineno + 1} lines"
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno is not None and node.end_lineno - node.lineno + 1 > 50
    ]
    assert long == []
