"""On CI, a skipped test fails the run unless its reason is one this machine is known to give.

``.ci/run`` installs every tool the suite runs for real (bubblewrap, tmux, git,
Zed's adapter), so a test that skips there is a test that silently stopped
running: a missing package on a leaner image, a probe that broke. With
``PSEUDOCLAUDE_STRICT_SKIPS=1`` (``.ci/run`` sets it) such a skip is listed and
the session's exit status is 1. Elsewhere skips stay skips: a laptop without
tmux still runs the rest.
"""

from __future__ import annotations

import os

import pytest

EXPECTED_SKIPS = ("root reads every file",)
"""Reasons a skip may give on the CI machine: it runs the suite as root, so a file without read permission is read."""

_unexpected: list[str] = []


def _strict() -> bool:
    return os.environ.get("PSEUDOCLAUDE_STRICT_SKIPS") == "1"


def _reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    return str(longrepr[2]) if isinstance(longrepr, tuple) else str(longrepr)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if _strict() and report.skipped and not hasattr(report, "wasxfail"):
        reason = _reason(report)
        if not any(expected in reason for expected in EXPECTED_SKIPS):
            _unexpected.append(f"{report.nodeid}: {reason}")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _unexpected:
        terminalreporter.section("unexpected skips (PSEUDOCLAUDE_STRICT_SKIPS=1)", red=True)
        for line in _unexpected:
            terminalreporter.write_line(line)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _unexpected and not hasattr(session.config, "workerinput") and session.exitstatus == 0:
        session.exitstatus = 1
