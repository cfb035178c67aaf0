"""Tool results and hook answers with the session's secrets masked, before they reach the model, the user or the session.

Every call of a tool round ends in one ``ToolOutput`` (a built-in tool's, an
MCP tool's, a refusal or an error), and that one value becomes both the
result the model reads and the ``ToolCallFinished`` event every renderer and
output format shows; ``toolexec.ToolRound`` passes it through
``redacted_output`` there, so no tool, however it was added (MCP tools are
added after the session is built), is left out. A hook's stdout and stderr
go through ``redacted_run`` before they are read, since its context reaches
the model and its messages the user. See ``pseudoclaude.redaction``.
"""

from __future__ import annotations

import dataclasses

from pseudoclaude.agent.hooks.run import HookRun
from pseudoclaude.redaction import Redactor
from pseudoclaude.tools import ToolOutput


def redacted_output(output: ToolOutput, redactor: Redactor) -> ToolOutput:
    """``output`` with every secret in its content, summary and display replaced by ``***``."""
    if not redactor:
        return output
    return dataclasses.replace(output, content=redactor.text(output.content), summary=redactor.text(output.summary), display=redactor.value(output.display))


def redacted_run(run: HookRun, redactor: Redactor) -> HookRun:
    """A hook's run with every secret in what it printed (and why it failed) replaced by ``***``."""
    if not redactor:
        return run
    error = redactor.text(run.error) if run.error is not None else None
    return dataclasses.replace(run, stdout=redactor.text(run.stdout), stderr=redactor.text(run.stderr), error=error)
