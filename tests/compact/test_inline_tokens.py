"""A shaped command output stays within 4,000 real tokens (and 8% of a small window), counted by the real tokenizers offline."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from pseudoclaude.compact import Budget
from pseudoclaude.compact.tokenizer import load_offline_encoding
from pseudoclaude.tools import OutputBudget, RunCommandTool, ToolContext

PYTEST_RUN = r"""
import random
random.seed(4)
out = ["============================= test session starts ==============================",
       "platform linux -- Python 3.11.7, pytest-8.3.2, pluggy-1.5.0 -- /usr/bin/python3",
       "cachedir: .pytest_cache", "rootdir: /home/dev/ledger", "configfile: pyproject.toml",
       "plugins: xdist-3.6.1, cov-5.0.0", "collected 2140 items", ""]
for i in range(2140):
    module = random.choice(["parser", "loader", "ledger", "balances", "import_job", "formats"])
    case = random.choice(["nested", "flat", "empty", "unicode", "large", "partial"])
    status = "PASSED" if i % 97 else "FAILED"
    out.append(f"tests/test_{module}.py::test_{case}_record_{i} {status} [{i * 100 // 2140:3d}%]")
for k in range(3):
    out += ["", f"_____________________ test_nested_record_{k} _____________________", "",
            "    def test_nested_record():", "        data = load_fixture('nested.csv')",
            ">       assert parse(data) == EXPECTED",
            "E       AssertionError: assert {'a': [1, 2, {'b': 3}]} == {'a': [1, 2, {'b': 4}]}",
            "E         Full diff:", "E         - {'a': [1, 2, {'b': 4}]}", "E         + {'a': [1, 2, {'b': 3}]}", "",
            f"tests/test_parser.py:{120 + k}: AssertionError"]
out.append("=========================== short test summary info ============================")
out += [f"FAILED tests/test_parser.py::test_nested_record_{k} - AssertionError: assert {{'a': [1, 2, {{'b': 3}}]}} == ..." for k in range(22)]
out.append("================= 22 failed, 2118 passed, 4 warnings in 31.42s =================")
print("\n".join(out))
raise SystemExit(1)
"""


def _shaped(tmp_path: Path, budget: Budget) -> str:
    (tmp_path / "run_tests.py").write_text(PYTEST_RUN)
    ctx = ToolContext(workspace=tmp_path, spill_dir=tmp_path / "spill").at(
        budget=OutputBudget(budget.inline_output_bytes, budget.read_page_bytes, budget.single_limit_bytes),
    )
    return asyncio.run(RunCommandTool().run({"command": f"{sys.executable} run_tests.py"}, ctx)).content


@pytest.mark.parametrize("window", [200_000, 128_000, 60_000, 32_000])
@pytest.mark.parametrize("model", ["gpt-4o", "gpt-4"])
def test_a_shaped_test_log_stays_within_four_thousand_real_tokens(window: int, model: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tiktoken"))
    encoding = load_offline_encoding(model)
    assert encoding is not None, "the packaged ranks load without the network"
    workspace = tmp_path / "ws"
    workspace.mkdir()
    text = _shaped(workspace, Budget.for_window(window))
    assert "[exit code 1" in text and "22 failed, 2118 passed" in text, "the status line and the end of the log are shown"
    assert len(text.encode()) > 5_000, "the log was shaped, not dropped"
    assert len(encoding.encode_ordinary(text)) <= min(4_000, 0.08 * window)
