"""How strong the tests are around one module: mutate N random sites of it, one at a time, and run the given tests.

    python bench/mutation_sample.py ROOT MODULE N SEED -- PYTEST_ARGS...
    python bench/mutation_sample.py /work/wt/mut pseudoclaude/sandbox/layout.py 10 7 -- tests/sandbox tests/permissions

A mutation flips a comparison or ``and``/``or``, negates an ``if``, changes a
constant (an int by one, a bool, a ``--flag`` string) or drops a call
statement; a mutant no test kills ("SURVIVED") is a missing test or an
equivalent mutant, to be judged by reading it. Run it in a scratch worktree
(ROOT): the module is rewritten in place (``ast.unparse``) while the tests run
and put back after, and ``PYTHONPATH`` points the tests' child processes at
ROOT. The same SEED picks the same sites, so a re-run after new tests shows
what they killed. mutmut does this whole-suite and per line; this samples, so
a module's figure takes minutes.
"""

from __future__ import annotations

import ast
import os
import random
import subprocess
import sys
from pathlib import Path

FLIP = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}


def sites(tree: ast.AST) -> list[tuple[str, ast.AST]]:
    found: list[tuple[str, ast.AST]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and type(node.ops[0]) in FLIP:
            found.append(("compare", node))
        elif isinstance(node, ast.BoolOp):
            found.append(("boolop", node))
        elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
            found.append(("bool", node))
        elif isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            found.append(("int", node))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("--"):
            found.append(("flag", node))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            found.append(("drop-call", node))
        elif isinstance(node, ast.If):
            found.append(("negate-if", node))
    return found


def mutate(source: str, index: int) -> tuple[str, str]:
    tree = ast.parse(source)
    kind, node = sites(tree)[index]
    line = getattr(node, "lineno", 0)
    if kind == "compare":
        node.ops[0] = FLIP[type(node.ops[0])]()
    elif kind == "boolop":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif kind == "bool":
        node.value = not node.value
    elif kind == "int":
        node.value = node.value + 1
    elif kind == "flag":
        node.value = "--x-mutated"
    elif kind == "drop-call":
        node.value = ast.Constant(None)
    elif kind == "negate-if":
        node.test = ast.UnaryOp(ast.Not(), node.test)
    return ast.unparse(tree), f"{kind}@{line}"


def main() -> None:
    root, module, count, seed = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    args = sys.argv[sys.argv.index("--") + 1 :]
    path = root / module
    original = path.read_text()
    # a module-level docstring and the source as ast.unparse writes it, so an unmutated unparse must pass first
    total = len(sites(ast.parse(original)))
    chosen = random.Random(seed).sample(range(total), min(count, total))
    env = {**os.environ, "PYTHONPATH": str(root)}
    survivors = []
    try:
        for index in chosen:
            text, label = mutate(original, index)
            path.write_text(text)
            done = subprocess.run(
                [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *args], cwd=root, env=env, capture_output=True, text=True, timeout=900
            )
            verdict = "killed" if done.returncode != 0 else "SURVIVED"
            print(f"{module} {label}: {verdict}", flush=True)
            if done.returncode == 0:
                survivors.append(label)
    finally:
        path.write_text(original)
    print(f"{module}: {len(chosen) - len(survivors)}/{len(chosen)} killed; survivors {survivors}")


if __name__ == "__main__":
    main()
