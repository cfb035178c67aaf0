"""The permission policy's ``Approver`` for the REPL.

The policy calls ``ask`` from inside a running turn; the question goes to the
keys of that turn (``TurnKeys.ask``), which show it in the live footer and
resolve it on y / a / n+reason. Outside a turn nobody can answer, so the call
is denied with a reason the model can read.
"""

from __future__ import annotations

from pseudoclaude.tools.permissions import ApprovalAnswer, ApprovalRequest
from pseudoclaude.tui.keys import TurnKeys


class TerminalApprover:
    """Satisfies ``pseudoclaude.tools.permissions.Approver``; ``keys`` is set while a turn runs."""

    def __init__(self) -> None:
        self.keys: TurnKeys | None = None

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        if self.keys is None:
            return ApprovalAnswer("deny", "no one was at the terminal to approve it")
        return await self.keys.ask(request)
